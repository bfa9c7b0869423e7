#!/usr/bin/env bash
# Size and speed of the HTML report (docs/contract.md §9.10): the demo, and workload R
# (100,000 queries, 99% changed; see scripts/bench.sh) made by the synth example.
# For each: the file's size, ragdiff's wall time with and without --export-html, and
# the milliseconds headless Chromium takes from navigation to the load event with the
# script done (tests/browser/cdp.py). Not a test: nothing here asserts a figure.
#
#   scripts/html-report.sh          # both
#   QUERIES=10000 scripts/html-report.sh   # a smaller R
# Needs chromium and python3, GNU time, and about 1.1 GB of disk under $BENCH_DIR
# (default target/bench).
set -euo pipefail
cd "$(dirname "$0")/.."
root="${BENCH_DIR:-target/bench}"
queries="${QUERIES:-100000}"
chromium="${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}"
cargo build --release --quiet --example synth --bin ragdiff
bin="$(pwd)/target/release/ragdiff"
mkdir -p "$root"
out="$(cd "$root" && pwd)/html"
mkdir -p "$out"

wall() { # DIR ARGS... -> seconds (the exit code of a failed gate is expected)
  local dir="$1"; shift
  (cd "$dir" && /usr/bin/time -f '%e' "$bin" "$@" > /dev/null 2> "$out/time.txt") || true
  tail -n 1 "$out/time.txt"
}

report() { # NAME DIR ARGS...
  local name="$1" dir="$2"; shift 2
  local plain with size ms
  plain="$(wall "$dir" "$@" --format json)"
  with="$(wall "$dir" "$@" --format json --export-html "$out/$name.html")"
  size="$(stat -c %s "$out/$name.html")"
  ms="$(python3 tests/browser/cdp.py "$chromium" "$out/$name.html" "$out/$name.png" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["ready_ms"])')"
  printf '%-10s %12s bytes   compare %6s s, with --export-html %6s s   Chromium ready %6s ms\n' \
    "$name" "$size" "$plain" "$with" "$ms"
}

report demo . compare
dir="$root/R-$queries-99"
if [ ! -f "$dir/gold.toml" ]; then
  mkdir -p "$dir"
  target/release/examples/synth --shape r --queries "$queries" --depth 100 --seed 1 \
    --changed 0.99 --out "$dir" >&2
fi
report "R-$queries" "$dir" compare --gold gold.toml baseline.toml candidate.toml --k 10
