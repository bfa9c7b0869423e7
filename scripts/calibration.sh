#!/usr/bin/env bash
# Calibration of the gate's sign-flip test and its interval under a true null
# (examples/calibration.rs; the table is in docs/guide.md, "Segments and honest
# statistics").
#
#   RAGDIFF_REFERENCE_DIR=/path/to/reference scripts/calibration.sh   # SIMS=4000 by default
#
# Pools of real per-query pairs: the Vaswani fixture runs (tests/fixtures/real_changes,
# judged by $RAGDIFF_REFERENCE_DIR/vaswani/qrels) at k = 10, stemming (bm25 -> bm25-stem)
# and two HNSW builds (seed 1 -> seed 2); and the two synth shapes (examples/synth.rs,
# 5,000 queries, seed 1). Writes under $CALIBRATION_DIR (default target/calibration).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${RAGDIFF_REFERENCE_DIR:?names the reference data (its vaswani/qrels)}"
out="${CALIBRATION_DIR:-target/calibration}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
cargo build --release --quiet --bin ragdiff --example synth --example calibration
bin="$(pwd)/target/release/ragdiff"
qrels="$RAGDIFF_REFERENCE_DIR/vaswani/qrels"
real() { # NAME BASELINE CANDIDATE (manifests in tests/fixtures/verdict/real)
  (cd tests/fixtures/verdict/real && "$bin" compare --no-config --gold "$qrels" --k 10 \
    "$2" "$3" --format json --no-gate --nondeterminism warn --unconfirmed warn) \
    > "$out/$1.json" 2> "$out/$1.err"
}
real stemming bm25.toml bm25-stem.toml
real hnsw hnsw-1.toml hnsw-2.toml
for shape in m r; do
  dir="$out/synth-$shape"
  [ -f "$dir/gold.toml" ] || target/release/examples/synth --shape "$shape" --queries 5000 \
    --depth 100 --seed 1 --out "$dir" > /dev/null
  (cd "$dir" && "$bin" compare --no-config --gold gold.toml baseline.toml candidate.toml \
    --k 10 --format json --no-gate) > "$out/synth-$shape.json" 2> "$out/synth-$shape.err"
done
target/release/examples/calibration --sims "${SIMS:-4000}" \
  "stemming=$out/stemming.json" "hnsw=$out/hnsw.json" \
  "synth-m=$out/synth-m.json" "synth-r=$out/synth-r.json"
