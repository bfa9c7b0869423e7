#!/usr/bin/env bash
# Benchmark `ragdiff record --command`: 10,000 questions (override with QUERIES)
# against a retriever process that answers instantly (a few lines of Python that
# echo one doc per request), at --concurrency 8. Prints the wall time of the whole
# recording, of the responder alone fed the same requests, and what record adds
# per query (their difference). Not a test: nothing here asserts a timing.
#
#   scripts/bench-record.sh            # 10,000 questions, best of 3
#   QUERIES=100000 scripts/bench-record.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n="${QUERIES:-10000}"
repeat="${REPEAT:-3}"
dir="${BENCH_DIR:-target/bench-record}"
cargo build --release --quiet --bin ragdiff
bin="$(pwd)/target/release/ragdiff"
mkdir -p "$dir/gold" "$dir/runs"
python3 - "$dir" "$n" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
with open(f"{d}/gold/bench.csv", "w") as f:
    f.write("id,question,expected_doc_ids\n")
    for i in range(n):
        f.write(f"Q-{i},question number {i} about topic {i % 97},D-{i}\n")
with open(f"{d}/gold/bench.toml", "w") as f:
    f.write('version = "1.0.0"\ncorpus = "bench"\ndata = "bench.csv"\n')
with open(f"{d}/requests.jsonl", "w") as f:
    for i in range(n):
        f.write(json.dumps({"id": f"Q-{i}", "question": f"question number {i}", "depth": 10, "filters": {}}) + "\n")
with open(f"{d}/instant.py", "w") as f:
    f.write(
        "import json, sys\n"
        "out = sys.stdout\n"
        "for line in sys.stdin:\n"
        "    q = json.loads(line)['id']\n"
        "    out.write('{\"id\": \"%s\", \"doc_ids\": [\"D-%s\"]}\\n' % (q, q[2:]))\n"
        "    out.flush()\n"
    )
PY
best() { sort -n | head -1; }
record_s=$(for _ in $(seq "$repeat"); do
  s=$(date +%s.%N)
  (cd "$dir" && "$bin" record --quiet --index-version 1.0.0 --concurrency 8 \
     --command "python3 instant.py" --out runs/bench.toml 2> /dev/null)
  e=$(date +%s.%N); echo "$e - $s" | bc -l
done | best)
alone_s=$(for _ in $(seq "$repeat"); do
  s=$(date +%s.%N)
  python3 "$dir/instant.py" < "$dir/requests.jsonl" > /dev/null
  e=$(date +%s.%N); echo "$e - $s" | bc -l
done | best)
python3 - "$n" "$record_s" "$alone_s" <<'PY'
import sys
n, rec, alone = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"{n} questions, concurrency 8: record {rec:.3f} s ({rec / n * 1e3:.3f} ms/query); "
      f"the responder alone {alone:.3f} s; record adds {(rec - alone) / n * 1e3:.3f} ms/query")
PY
