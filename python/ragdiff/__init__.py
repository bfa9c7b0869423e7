"""ragdiff: catch retrieval regressions before they ship, from Python.

The same engine as the ``ragdiff`` command, in process: :func:`evaluate` and
:func:`compare` return the reports ``--format json`` prints (as dicts), and
:func:`write_run` writes a run (results file and manifest) from the shapes notebooks
hold. Problems raise :class:`InvalidInput` (the command's exit 2) or
:class:`Refused` (exit 3), each carrying the list the command prints.

The calls print nothing, show no progress bar and install no signal handler; they
release the GIL while they work, and Ctrl-C raises ``KeyboardInterrupt``.
See docs/guide.md, "Python".
"""

from __future__ import annotations

import os

from . import _native

__all__ = [
    "evaluate",
    "compare",
    "write_run",
    "Report",
    "RagdiffError",
    "InvalidInput",
    "Refused",
    "__version__",
]

__version__: str = _native.__version__

_GATE_KEYS = frozenset(k.strip() for k in _native.GATE_KEYS.split(","))
_COMPARE_KEYS = frozenset(k.strip() for k in _native.COMPARE_KEYS.split(","))


class RagdiffError(Exception):
    """A call ragdiff could not complete; ``problems`` lists why, line by line."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        self.problems: list[str] = list(problems or [])
        text = "\n  ".join([message, *self.problems])
        super().__init__(text)


class InvalidInput(RagdiffError, ValueError):
    """Invalid input or usage (the command's exit 2): every problem, with file:line."""


class Refused(RagdiffError):
    """The runs are not comparable (the command's exit 3): every difference."""

    @property
    def differences(self) -> list[str]:
        return self.problems


class Report(dict):
    """A report as ``--format json`` prints it (a dict), with :meth:`to_pandas`."""

    @property
    def passed(self) -> bool | None:
        """``compare``: whether the gate passed; ``None`` for an ``evaluate`` report."""
        gate = self.get("gate")
        return gate.get("passed") if isinstance(gate, dict) else None

    @property
    def verdict(self) -> str | None:
        """``compare``: ``"pass"``, ``"fail"`` or ``"inconclusive"`` (a
        non-inferiority test that could not tell); ``None`` for ``evaluate``."""
        gate = self.get("gate")
        return gate.get("verdict") if isinstance(gate, dict) else None

    def to_pandas(self):
        """The per-query rows as a ``pandas.DataFrame`` (pandas must be installed):
        one row per query, nested values flattened to ``a.b`` columns."""
        try:
            import pandas
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("Report.to_pandas needs pandas: pip install pandas") from e
        return pandas.json_normalize(self.get("per_query", []))


def _call(argv: list[str]) -> Report:
    import json

    kind, text, problems = _native.report(["ragdiff", *argv])
    if kind == "ok":
        return Report(json.loads(text))
    _raise(kind, text, problems)


def _raise(kind: str, text: str, problems: list[str]):
    if kind == "invalid":
        raise InvalidInput(text, problems)
    if kind == "refused":
        raise Refused(text, problems)
    raise RagdiffError(text, problems)


def _path(p: str | os.PathLike) -> str:
    return os.fspath(p)


def evaluate(
    gold: str | os.PathLike,
    run: str | os.PathLike,
    *,
    k: int | None = None,
    measures: list[str] | None = None,
    cutoffs: list[int] | None = None,
    require_frozen: bool = False,
    judged_only: bool = False,
) -> Report:
    """Evaluate one run against the gold set, as ``ragdiff eval --format json``.

    ``gold`` and ``run`` are manifests (``.toml``) or bare data files (qrels, TREC or
    CSV runs). ``measures`` names extra measures (``--measure``, where this build has
    it); ``cutoffs`` adds ``--cutoffs``; ``judged_only`` adds ``--judged-only`` (each
    row's and the means' ``judged_only``: every metric on the judged docs only).
    """
    argv = ["eval", "--format", "json", "--gold", _path(gold), _path(run)]
    if k is not None:
        argv += ["--k", str(k)]
    for m in measures or []:
        argv += ["--measure", m]
    if cutoffs:
        argv += ["--cutoffs", ",".join(str(c) for c in cutoffs)]
    if require_frozen:
        argv.append("--require-frozen")
    if judged_only:
        argv.append("--judged-only")
    return _call(argv)


def _toml(value) -> str:
    import json
    import math

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, (str, os.PathLike)):
        return json.dumps(os.fspath(value))
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    raise TypeError(f"a policy value must be a bool, number, string, list or dict, not {type(value).__name__}")


def _key(key: str) -> str:
    import json
    import re

    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _policy_file(policy: dict, folder: str) -> str:
    """The policy keys as a ragdiff.toml: each key in its table (``[gate]`` or
    ``[compare]``); ``gate={…}`` and ``compare={…}`` give a table whole."""
    tables: dict[str, dict] = {"gate": {}, "compare": {}}
    for key, value in policy.items():
        if key in tables and isinstance(value, dict):
            tables[key].update(value)
        elif key in _GATE_KEYS:
            tables["gate"][key] = value
        else:
            tables["compare"][key] = value
    for table in tables.values():
        path = table.get("allow_failed_file")
        if path is not None:
            table["allow_failed_file"] = os.path.abspath(os.fspath(path))
    lines = ["# The policy keys given to ragdiff.compare"]
    for name, table in tables.items():
        if table:
            lines.append(f"[{name}]")
            lines += [f"{_key(k)} = {_toml(v)}" for k, v in table.items()]
    path = os.path.join(folder, "ragdiff.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def compare(
    gold: str | os.PathLike,
    baseline: str | os.PathLike,
    candidate: str | os.PathLike,
    *,
    config: str | os.PathLike | None = None,
    **policy,
) -> Report:
    """Compare a baseline and a candidate run against the gold set and apply the
    gate, as ``ragdiff compare --format json``; the returned report's ``passed``
    is the gate's verdict (the command's exit 0 or 1).

    ``gold``, ``baseline`` and ``candidate`` are manifests (``.toml``). The policy is
    ``config`` (a ``ragdiff.toml``) or the keyword arguments, named as in
    ragdiff.toml (``max_drop={"mrr": 0.02}``, ``fail_on_significant_drop=True``,
    ``seed=7``, ``resamples=2000``, …; ``gate={…}`` or ``compare={…}`` give a table
    whole); without either no policy applies (no ragdiff.toml is looked for).
    """
    import tempfile

    argv = ["compare", "--format", "json", "--gold", _path(gold)]
    if config is not None and policy:
        raise TypeError("compare takes a config file or policy keywords, not both")
    with tempfile.TemporaryDirectory(prefix="ragdiff-") as folder:
        if policy:
            config = _policy_file(policy, folder)
        if config is None:
            argv.append("--no-config")
        else:
            argv += ["--config", _path(config)]
        argv += ["--", _path(baseline), _path(candidate)]
        try:
            return _call(argv)
        except RagdiffError as e:
            if policy:
                e.problems = [p.replace(str(config), "policy") for p in e.problems]
                e.args = tuple(a.replace(str(config), "policy") for a in e.args)
            raise


_QUERY_COLUMNS = ("query_id", "qid", "query-id", "topic", "query")
_DOC_COLUMNS = ("doc_id", "docno", "docid", "corpus-id", "doc")


def _rows_of_frame(frame) -> list[tuple]:
    columns = list(frame.columns)
    query = next((c for c in _QUERY_COLUMNS if c in columns), None)
    doc = next((c for c in _DOC_COLUMNS if c in columns), None)
    if query is None or doc is None:
        raise InvalidInput(
            "write_run: a DataFrame needs a query and a doc column",
            [f"columns {columns}: expected one of {list(_QUERY_COLUMNS)} and one of {list(_DOC_COLUMNS)}, with rank and/or score"],
        )
    rank = "rank" if "rank" in columns else None
    score = "score" if "score" in columns else None
    if rank is None and score is None:
        raise InvalidInput("write_run: a DataFrame needs a rank or a score column", [f"columns {columns}"])
    out = []
    wanted = [query, doc, rank or query, score or query]
    for q, d, r, sc in frame[wanted].itertuples(index=False, name=None):
        out.append((q, d, r if rank else None, sc if score else None))
    return out


def _grouped(rows) -> dict[str, list[tuple]]:
    """Rows as ``{qid: [(doc, rank, score), …]}`` from any of write_run's shapes."""
    if hasattr(rows, "itertuples") and hasattr(rows, "columns"):
        rows = _rows_of_frame(rows)
    groups: dict[str, list[tuple]] = {}
    if isinstance(rows, dict):
        for qid, docs in rows.items():
            if isinstance(docs, dict):  # ranx / pytrec_eval: {qid: {doc: score}}
                groups[str(qid)] = [(str(d), None, float(s)) for d, s in docs.items()]
            else:  # {qid: [doc, …]} in rank order
                groups[str(qid)] = [(str(d), i + 1, None) for i, d in enumerate(docs)]
        return groups
    for row in rows:
        if len(row) == 3:
            qid, doc, score = row
            rank = None
        else:
            qid, doc, rank, score = row
        rank = None if rank is None or rank != rank else int(rank)
        score = None if score is None or score != score else float(score)
        groups.setdefault(str(qid), []).append((str(doc), rank, score))
    return groups


def _ordered(docs: list[tuple]) -> list[tuple]:
    """Rank order: by rank where every doc has one, else as trec_eval ranks scores
    (descending, equal scores by doc id descending in byte order)."""
    if all(r is not None for _, r, _ in docs):
        return sorted(docs, key=lambda d: d[1])
    if all(s is not None for _, _, s in docs):
        return sorted(docs, key=lambda d: (d[2], d[0].encode()), reverse=True)
    raise InvalidInput("write_run: every row needs a rank, or every row a score", [])


def write_run(
    path: str | os.PathLike,
    rows,
    *,
    index_version: str,
    corpus: str,
    depth: int | None = None,
    filters: dict[str, str] | None = None,
    results: str | os.PathLike | None = None,
) -> str:
    """Write a run: its manifest at ``path`` (``runs/candidate.toml``) and its results
    beside it (``candidate.trec`` when every row has a score, else ``candidate.csv``
    in rank order), both or neither. Returns the manifest's path.

    ``rows`` is a dict of dicts ``{qid: {doc: score}}`` (ranx, pytrec_eval), a dict
    of lists ``{qid: [doc, …]}`` in rank order, a list of ``(qid, doc, rank, score)``
    (rank or score may be ``None``; ``(qid, doc, score)`` too), or a
    ``pandas.DataFrame`` with a query column (``query_id``, ``qid``, …), a doc column
    (``doc_id``, ``docno``, …) and ``rank`` and/or ``score``. ``depth`` defaults to the
    longest list.
    """
    groups = {q: _ordered(d) for q, d in _grouped(rows).items()}
    scored = bool(groups) and all(s is not None for d in groups.values() for _, _, s in d)
    manifest = _path(path)
    if results is None:
        stem = manifest[:-5] if manifest.endswith(".toml") else manifest
        results = stem + (".trec" if scored else ".csv")
    queries = list(groups)
    docs = [[d for d, _, _ in groups[q]] for q in queries]
    scores = [[s for _, _, s in groups[q]] for q in queries] if scored else None
    kind, text, problems = _native.write_run(
        manifest, _path(results), queries, docs, scores, index_version, corpus, depth,
        {str(k): str(v) for k, v in (filters or {}).items()},
    )
    if kind != "ok":
        _raise(kind, text, problems)
    return text
