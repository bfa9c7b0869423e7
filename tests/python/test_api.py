"""The Python API (python/ragdiff) and the `ragdiff` console script, run by .ci/run
in the wheel's venv. Fixtures: the repository's demo (gold/, runs/) and
tests/fixtures/compare (see its README), read in place, never modified."""

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import ragdiff

ROOT = Path(__file__).resolve().parents[2]
COMPARE = ROOT / "tests" / "fixtures" / "compare"
CI = bool(os.environ.get("CI") or os.environ.get("RAGDIFF_CI"))


def command(*args, cwd=ROOT, **kw):
    """The console script of this venv (beside its python), as a user runs it."""
    exe = Path(sys.executable).with_name("ragdiff")
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, **kw)


def test_the_command_is_the_console_script():
    exe = Path(sys.executable).with_name("ragdiff")
    head = exe.read_bytes()[:200]
    assert head.startswith(b"#!"), "the ragdiff command is a Python console script"


def test_evaluate_returns_what_eval_format_json_prints(monkeypatch):
    monkeypatch.chdir(ROOT)  # the same relative paths as the command's, in messages too
    got = ragdiff.evaluate("gold/demo.toml", "runs/baseline.toml")
    out = command("eval", "--gold", "gold/demo.toml", "runs/baseline.toml", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert got == json.loads(out.stdout)
    assert got.passed is None


def test_evaluate_judged_only_is_eval_judged_only(monkeypatch):
    monkeypatch.chdir(ROOT)
    got = ragdiff.evaluate("gold/demo.toml", "runs/candidate.toml", judged_only=True)
    out = command(
        "eval", "--gold", "gold/demo.toml", "runs/candidate.toml", "--format", "json", "--judged-only"
    )
    assert out.returncode == 0, out.stderr
    assert got == json.loads(out.stdout)
    # Q-21's relevant doc sits below two unjudged docs: rank 4 in the list, 2 judged-only
    q21 = next(r for r in got["per_query"] if r["id"] == "Q-21")
    assert (q21["rr"], q21["judged_only"]["rr"]) == (0.0, 0.5)
    assert "judged_only" in got["means"]


def test_compare_returns_what_compare_format_json_prints(monkeypatch):
    monkeypatch.chdir(ROOT)
    got = ragdiff.compare("gold/demo.toml", "runs/baseline.toml", "runs/candidate.toml")
    out = command("compare", "--no-config", "--format", "json")
    assert out.returncode == 1, out.stderr  # the demo's gate fails on purpose
    assert got == json.loads(out.stdout)
    assert got.passed is False
    assert got["gate"]["passed"] is False
    assert got.verdict == "fail"
    assert got.verdict == got["gate"]["verdict"]


def test_invalid_input_carries_the_commands_problem_list(monkeypatch):
    monkeypatch.chdir(COMPARE)
    with pytest.raises(ragdiff.InvalidInput) as e:
        ragdiff.compare("gold.toml", "base.toml", "duplicate-doc-depth.toml")
    out = command("compare", "--no-config", "--gold", "gold.toml", "base.toml", "duplicate-doc-depth.toml", cwd=COMPARE)
    assert out.returncode == 2
    lines = out.stderr.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("error: invalid input"))
    printed = [l[2:] for l in lines[start + 1 :] if l.startswith("  ")]
    assert e.value.problems == printed
    assert any("a1" in p for p in e.value.problems)
    assert isinstance(e.value, ValueError)


def test_refused_carries_every_difference():
    with pytest.raises(ragdiff.Refused) as e:
        ragdiff.compare(COMPARE / "gold.toml", COMPARE / "base.toml", COMPARE / "several.toml")
    out = command("compare", "--no-config", "--gold", "gold.toml", "base.toml", "several.toml", cwd=COMPARE)
    assert out.returncode == 3
    assert len(e.value.differences) >= 3
    for d in e.value.differences:
        assert d.split(":")[0] in out.stderr


def test_policy_keywords_are_ragdiff_toml_keys():
    loose = ragdiff.compare(COMPARE / "gold.toml", COMPARE / "base.toml", COMPARE / "cand.toml")
    assert loose.passed is True
    strict = ragdiff.compare(
        COMPARE / "gold.toml", COMPARE / "base.toml", COMPARE / "cand.toml", max_drop={"mrr": 0.1}, seed=7
    )
    assert strict.passed is False
    # An interval that holds -margin: INCONCLUSIVE, exit 1 unless inconclusive = "pass".
    unsure = dict(non_inferior={"mrr": 0.01}, resamples=2000)
    asked = ragdiff.compare(COMPARE / "gold.toml", COMPARE / "base.toml", COMPARE / "cand.toml", **unsure)
    assert (asked.verdict, asked.passed) == ("inconclusive", False)
    assert asked["gate"]["non_inferiority"][0]["queries_needed"] > 0
    allowed = ragdiff.compare(
        COMPARE / "gold.toml", COMPARE / "base.toml", COMPARE / "cand.toml", inconclusive="pass", **unsure
    )
    assert (allowed.verdict, allowed.passed) == ("inconclusive", True)
    with pytest.raises(ragdiff.InvalidInput) as e:
        ragdiff.compare(COMPARE / "gold.toml", COMPARE / "base.toml", COMPARE / "cand.toml", max_drop={"nope": 0.1})
    assert any("policy" in p and "nope" in p for p in e.value.problems), e.value.problems


def test_a_usage_error_is_invalid_input():
    with pytest.raises(ragdiff.InvalidInput):
        ragdiff.evaluate(ROOT / "gold/demo.toml", ROOT / "runs/baseline.toml", k=0)


def test_a_negative_rel_is_invalid_input():
    """`rel=-1` is refused (a grade trec_eval gives docs outside the qrels), as in the
    command: in `measures` and in a gate rule's keywords."""
    why = "`P(rel=-1)@3`: rel=-1 is below 0; rel is the lowest grade that counts as relevant"
    with pytest.raises(ragdiff.InvalidInput) as e:
        ragdiff.evaluate(ROOT / "gold/demo.toml", ROOT / "runs/candidate.toml", measures=["P(rel=-1)@3"])
    assert any(p.startswith(f"--measure: {why}") for p in e.value.problems), e.value.problems
    with pytest.raises(ragdiff.InvalidInput) as e:
        ragdiff.compare(COMPARE / "gold.toml", COMPARE / "base.toml", COMPARE / "cand.toml", max_drop={"P(rel=-1)@3": 0.1})
    assert any("`max_drop`: " + why in p for p in e.value.problems), e.value.problems
    # rel=0 has a meaning (trec_eval -l 0: every doc judged 0 or above is relevant)
    assert "P(rel=0)@3" in ragdiff.evaluate(ROOT / "gold/demo.toml", ROOT / "runs/candidate.toml", measures=["P(rel=0)@3"])["means"]["measures"]


def demo_lists(name):
    """The demo's CSV run as {qid: [doc, …]} in rank order."""
    lines = (ROOT / "runs" / name).read_text().splitlines()[1:]
    return {q: [d for d in docs.split(";") if d] for q, docs in (l.split(",", 1) for l in lines)}


def per_query(report):
    return {r["id"]: r for r in report["per_query"]}


def test_write_run_shapes_give_the_demos_numbers(tmp_path):
    lists = demo_lists("baseline.csv")
    want = ragdiff.evaluate(ROOT / "gold/demo.toml", ROOT / "runs/baseline.toml")
    as_scores = {q: {d: float(len(ds) - i) for i, d in enumerate(ds)} for q, ds in lists.items()}
    as_tuples = [(q, d, i + 1, None) for q, ds in lists.items() for i, d in enumerate(ds)]
    for name, rows in [("lists", lists), ("scores", as_scores), ("tuples", as_tuples)]:
        manifest = ragdiff.write_run(
            tmp_path / f"{name}.toml", rows, index_version="2.3.0", corpus="demo-questions", depth=5,
            filters={"access": "public"},
        )
        got = ragdiff.evaluate(ROOT / "gold/demo.toml", manifest)
        assert got["means"] == want["means"], name
        assert Path(manifest).exists()
    assert (tmp_path / "scores.trec").exists() and (tmp_path / "lists.csv").exists()
    assert "index_version = \"2.3.0\"" in (tmp_path / "scores.toml").read_text()


def test_write_run_refuses_a_bad_run_and_writes_nothing(tmp_path):
    with pytest.raises(ragdiff.InvalidInput) as e:
        ragdiff.write_run(
            tmp_path / "r.toml", {"q1": ["d1", "d1", "d 2"], "": ["x"]}, index_version="1.0.0", corpus="c", depth=2
        )
    problems = "\n".join(e.value.problems)
    assert "d1 is listed twice" in problems
    assert "more than depth 2" in problems
    assert "it is empty" in problems
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "rows,message",
    [
        ({"q1": {"d 1": 1.0}}, "doc d 1: it contains white space"),
        ({"q 1": {"d1": 1.0}}, "query q 1: it contains white space"),
        ({"q1": ["d1;d2"]}, "it contains `;`"),
        ({"q1": {"d1": float("inf")}}, "a score is not a finite number"),
        ({"q1": ["d\x01"]}, "control character"),
        ([("q1", "d1", 1, None), ("q1", "d2", None, 2.0)], "every row needs a rank, or every row a score"),
    ],
)
def test_write_run_names_each_problem(tmp_path, rows, message):
    with pytest.raises(ragdiff.InvalidInput) as e:
        ragdiff.write_run(tmp_path / "r.toml", rows, index_version="1.0.0", corpus="c")
    assert message in str(e.value)
    assert list(tmp_path.iterdir()) == []


def test_write_run_refuses_an_empty_version_or_corpus(tmp_path):
    with pytest.raises(ragdiff.InvalidInput) as e:
        ragdiff.write_run(tmp_path / "r.toml", {"q1": ["d1"]}, index_version=" ", corpus="")
    assert e.value.problems == [
        "write_run: index_version: it is empty or only white space",
        "write_run: corpus: it is empty or only white space",
    ]


def test_write_run_from_a_dataframe(tmp_path):
    pandas = pytest.importorskip("pandas") if not CI else __import__("pandas")
    lists = demo_lists("candidate.csv")
    frame = pandas.DataFrame(
        [(q, d, i + 1, 10.0 - i) for q, ds in lists.items() for i, d in enumerate(ds)],
        columns=["query_id", "doc_id", "rank", "score"],
    )
    manifest = ragdiff.write_run(
        tmp_path / "cand.toml", frame, index_version="2.4.0", corpus="demo-questions", depth=5,
        filters={"access": "public"},
    )
    plain = ragdiff.write_run(
        tmp_path / "plain.toml", lists, index_version="2.4.0", corpus="demo-questions", depth=5,
        filters={"access": "public"},
    )
    want = ragdiff.evaluate(ROOT / "gold/demo.toml", plain)
    got = ragdiff.evaluate(ROOT / "gold/demo.toml", manifest)
    assert got["means"] == want["means"]
    table = got.to_pandas()
    assert list(table["id"]) == [r["id"] for r in got["per_query"]]


def test_gate_a_retrieval_change(tmp_path):
    """The example the guide shows: two retrievers' results, written from Python,
    gated against the frozen gold; the candidate loses Q-17's only relevant doc."""
    gold = ROOT / "gold/demo.toml"
    baseline = demo_lists("baseline.csv")
    candidate = {q: list(ds) for q, ds in baseline.items()}
    candidate["Q-17"] = [d for d in candidate["Q-17"] if d != "D-2"]  # the relevant one
    common = dict(corpus="demo-questions", depth=5, filters={"access": "public"})
    base = ragdiff.write_run(tmp_path / "baseline.toml", baseline, index_version="2.3.0", **common)
    cand = ragdiff.write_run(tmp_path / "candidate.toml", candidate, index_version="2.4.0", **common)
    report = ragdiff.compare(gold, base, cand)
    assert report.passed is False
    assert "Q-17" in json.dumps(report["gate"])
    # A candidate that puts every relevant doc first passes.
    rows = (ROOT / "gold/demo.csv").read_text().splitlines()[1:]
    expected = {r.split(",")[0]: [d for d in r.split(",")[2].split(";") if d] for r in rows}
    better = {q: (expected.get(q, []) + [d for d in ds if d not in expected.get(q, [])])[:5] for q, ds in baseline.items()}
    good = ragdiff.write_run(tmp_path / "better.toml", better, index_version="2.4.0", **common)
    assert ragdiff.compare(gold, base, good).passed is True


def big_inputs(folder, queries, depth):
    """A bare CSV gold and a TREC run of `queries` queries (generated, ids only)."""
    gold, run = folder / "gold.csv", folder / "run.trec"
    gold.write_text("id,expected_doc_ids\n" + "".join(f"q{i},d{i}\n" for i in range(queries)))
    with open(run, "w") as f:
        for i in range(queries):
            f.writelines(f"q{i} Q0 d{(i + j) % queries} {j + 1} {depth - j} r\n" for j in range(depth))
    return gold, run


def threads_named(pid, name):
    names = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            names.append((task / "comm").read_text().strip())
        except OSError:
            pass
    return name in names


def test_ctrl_c_raises_keyboard_interrupt_with_the_gil_released(tmp_path):
    """While the call works (its thread `ragdiff` exists), a Python thread runs — so
    the GIL is free — and sends SIGINT: Python's own handler (ragdiff installs none)
    turns it into KeyboardInterrupt, raised by the waiting call. On a fast machine the
    call can end before the signal lands (then it returns, or the interrupt arrives
    just after): the case is tried again on inputs four times as large."""
    # Python's own handler, whatever the test runner inherited: a shell that starts a
    # job in the background without job control ignores SIGINT for it, and Python then
    # keeps it ignored. ragdiff must leave the handler it finds in place.
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    handler = signal.getsignal(signal.SIGINT)
    try:
        outcome, seen = interrupted_call(tmp_path)
    finally:
        after = signal.signal(signal.SIGINT, inherited)
    assert seen.is_set(), "no Python thread ran while the call worked: the GIL was held"
    assert outcome == "raised", f"the call was not interrupted ({outcome})"
    assert after is handler


def interrupted_call(tmp_path):
    """Evaluate big inputs while a thread sends SIGINT once the call's thread exists:
    "raised" when the call raised KeyboardInterrupt, else "returned" or "late"."""
    outcome = None
    for queries in (20_000, 80_000):
        gold, run = big_inputs(tmp_path, queries, 100)
        seen, done = threading.Event(), threading.Event()

        def interrupt():
            while not done.is_set():
                if threads_named(os.getpid(), "ragdiff"):
                    seen.set()
                    os.kill(os.getpid(), signal.SIGINT)
                    return

        t = threading.Thread(target=interrupt)
        returned = False
        try:
            try:
                t.start()
                ragdiff.evaluate(gold, run)
                returned = True
            finally:
                done.set()
                t.join()
        except KeyboardInterrupt:
            outcome = "late" if returned else "raised"
        else:
            outcome = "returned"
        if outcome == "raised":
            break
    return outcome, seen


def test_the_command_keeps_its_exit_codes_and_a_closed_stdout():
    assert command("compare").returncode == 1
    assert command("compare", "--gold", "gold.toml", "base.toml", "several.toml", cwd=COMPARE).returncode == 3
    assert command("eval", "--k", "0").returncode == 2
    assert command("--version").stdout.startswith("ragdiff ")
    r, w = os.pipe()
    os.close(r)  # nobody reads: every write to stdout fails with EPIPE
    p = subprocess.run([str(Path(sys.executable).with_name("ragdiff")), "compare", "--format", "json"],
                       cwd=ROOT, stdout=w, stderr=subprocess.PIPE, text=True)
    os.close(w)
    assert p.returncode == 1, p.stderr
    assert "error" not in p.stderr.lower().replace("newly", ""), p.stderr


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_command_exits_128_plus_the_signal(tmp_path, sig, code):
    """The command's report (far over a pipe's buffer) goes to a pipe nobody reads, so
    it waits in its write; once its signal thread exists, the signal comes."""
    gold, run = big_inputs(tmp_path, 5_000, 2)
    exe = Path(sys.executable).with_name("ragdiff")
    p = subprocess.Popen([str(exe), "eval", "--format", "json", str(gold), str(run)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        while not threads_named(p.pid, "signals"):
            assert p.poll() is None, "the command ended before its signal thread started"
        p.send_signal(sig)
        assert p.wait(timeout=60) == code
    finally:
        p.kill()
        p.stdout.close()


def test_the_guides_example_runs(tmp_path, monkeypatch, capsys):
    """docs/guide.md's Python example, as it stands, on a copy of the demo gold."""
    import re
    import shutil

    pytest.importorskip("pandas") if not CI else __import__("pandas")
    guide = (ROOT / "docs/guide.md").read_text()
    section = guide[guide.index("## Python\n"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shutil.copytree(ROOT / "gold", tmp_path / "gold")
    (tmp_path / "runs").mkdir()
    monkeypatch.chdir(tmp_path)
    scope = {}
    exec(compile(code, "docs/guide.md", "exec"), scope)
    assert scope["report"].passed is False
    out = capsys.readouterr().out
    assert out.startswith("False\n")
    assert "Q-17" in out
    assert "policy:3: `max_drop`" in out
