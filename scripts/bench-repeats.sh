#!/usr/bin/env bash
# Benchmark of the repeats' duplicate check (docs/contract.md §17.1): a candidate
# manifest with N repeats (default 10,000, each a one-query CSV run), timed through
# `ragdiff validate`, which reads every manifest and repeat. Not a test: run by hand,
# `scripts/bench-repeats.sh [N] [path/to/ragdiff]`.
set -euo pipefail
n="${1:-10000}"
bin="${2:-target/release/ragdiff}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/gold" "$dir/runs/rep"
printf 'id,expected_doc_ids\nQ-1,D-1\n' > "$dir/gold/g.csv"
printf 'name = "g"\nversion = "1.0.0"\ncorpus = "c"\ndata = "g.csv"\nk = 3\n' > "$dir/gold/g.toml"
printf 'id,retrieved_doc_ids\nQ-1,D-1;D-2\n' > "$dir/runs/base.csv"
printf 'index_version = "1.0.0"\ncorpus = "c"\ndepth = 5\nresults = "base.csv"\n' > "$dir/runs/base.toml"
{
  printf 'index_version = "2.0.0"\ncorpus = "c"\ndepth = 5\nresults = [\n'
  for i in $(seq 1 "$n"); do
    printf 'id,retrieved_doc_ids\nQ-1,D-x%s;D-1\n' "$i" > "$dir/runs/rep/r$i.csv"
    printf '  "rep/r%s.csv",\n' "$i"
  done
  printf ']\n'
} > "$dir/runs/cand.toml"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
cd "$dir"
start=$(date +%s.%N)
status=0
"$bin" validate --gold gold/g.toml runs/base.toml runs/cand.toml > out.txt 2>&1 || status=$?
end=$(date +%s.%N)
echo "$n repeats: ragdiff validate exit $status in $(echo "$end - $start" | bc) s"
[ "$status" -eq 0 ] || { head -5 out.txt; exit 1; }
