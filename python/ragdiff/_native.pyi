"""Type stubs of ragdiff's native module (src/python.rs); use ``ragdiff`` itself."""

import os
from typing import Optional, Sequence

GATE_KEYS: str
COMPARE_KEYS: str
RECORD_KEYS: str
__version__: str

def report(argv: Sequence[str]) -> tuple[str, str, list[str]]:
    """Run ``eval``/``compare`` as a library call: (kind, text, problems)."""

def write_run(
    manifest: str | os.PathLike[str],
    results: str | os.PathLike[str],
    queries: Sequence[str],
    docs: Sequence[Sequence[str]],
    scores: Optional[Sequence[Sequence[float]]],
    index_version: str,
    corpus: str,
    depth: Optional[int],
    filters: dict[str, str],
) -> tuple[str, str, list[str]]:
    """Write a results file and its manifest: (kind, manifest path or summary, problems)."""

def run_cli(argv: Sequence[str]) -> int:
    """The ``ragdiff`` command (console script); handles signals as the binary does."""
