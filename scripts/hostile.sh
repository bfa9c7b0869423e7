#!/usr/bin/env bash
# Hostile inputs (issue 9, items 2, 5 and 6): generate each, run the release build on
# it, print wall time and peak RSS. Not a test: nothing here asserts a timing.
#
#   scripts/hostile.sh            # all cases
#   LINES=1000000 scripts/hostile.sh   # a shorter endless query (default 10,000,000)
#
# Cases:
#   manifest-100k-unknown-keys   a run manifest with 100,000 unknown keys (was 41 s)
#   gold-row-100k-ids            one gold CSV row of 100,000 expected ids (was 18 s)
#   trec-one-query-LINES         one TREC query of LINES lines, depth 5 (was 1.9 GB)
#   sparse-2gb                   a 2 GB sparse file (no line end) as TREC results
# Needs /usr/bin/time (GNU time), python3 and about 350 MB of disk under $HOSTILE_DIR
# (default target/hostile) for the 10-million-line run.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${HOSTILE_DIR:-target/hostile}"
lines="${LINES:-10000000}"
cargo build --release --quiet --bin ragdiff
bin="$(pwd)/target/release/ragdiff"
mkdir -p "$dir"
cd "$dir"

printf 'id,expected_doc_ids\nQ-1,D-1\nQ-2,D-2\n' > gold.csv
printf 'name = "hostile"\nversion = "1.0.0"\ncorpus = "c"\ndata = "gold.csv"\n' > gold.toml
printf 'Q-1 Q0 D-1 1 2.0 t\nQ-2 Q0 D-2 1 3.0 t\n' > small.trec

python3 - "$lines" <<'EOF'
import sys
lines = int(sys.argv[1])
with open("unknown.toml", "w") as f:
    f.write('index_version = "1.0.0"\ncorpus = "c"\ndepth = 5\nresults = "small.trec"\n')
    f.writelines(f"unknown_{i} = 1\n" for i in range(100_000))
with open("row.csv", "w") as f:
    f.write("id,expected_doc_ids\nQ-1," + ";".join(f"d{i}" for i in range(100_000)) + "\nQ-2,D-2\n")
with open("row-run.csv", "w") as f:
    f.write("id,retrieved_doc_ids\nQ-1,d7;d3\nQ-2,D-2\n")
with open("endless.trec", "w") as f:
    chunk = 100_000
    for start in range(0, lines, chunk):
        f.writelines(f"Q-1 Q0 doc-{i} {i + 1} {1e7 - i} t\n" for i in range(start, min(start + chunk, lines)))
with open("endless.toml", "w") as f:
    f.write('index_version = "1.0.0"\ncorpus = "c"\ndepth = 5\nresults = "endless.trec"\n')
EOF
rm -f sparse.trec
python3 -c 'import os; f = open("sparse.trec", "wb"); f.truncate(2_000_000_000)'

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# measure LABEL CMD... -> "| LABEL | exit | seconds | peak MB |"
measure() {
  local label=$1; shift
  local code=0
  /usr/bin/time -f '%e %M' -o "$tmp" "$@" > /dev/null 2>&1 || code=$?
  read -r secs kb < <(tail -n 1 "$tmp")
  printf '| %s | %s | %s | %s |\n' "$label" "$code" "$secs" "$((kb / 1024))"
}

echo '| case | exit | seconds | peak MB |'
echo '| --- | --- | --- | --- |'
measure manifest-100k-unknown-keys "$bin" validate --gold gold.toml unknown.toml
measure gold-row-100k-ids "$bin" eval row.csv row-run.csv
measure "trec-one-query-$lines" "$bin" validate --gold gold.toml endless.toml
measure sparse-2gb "$bin" validate --gold gold.csv sparse.trec
