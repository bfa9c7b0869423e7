"""The ``ragdiff`` command, as a console script: the same Rust entry point as the
binary (exit codes, signals, a closed stdout: docs/contract.md §11, §12)."""

import sys


def main() -> None:
    from ._native import run_cli

    sys.exit(run_cli(sys.argv))
