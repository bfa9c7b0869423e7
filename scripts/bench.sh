#!/usr/bin/env bash
# Benchmark ragdiff side by side with trec_eval (when one is on PATH or in $TREC_EVAL)
# on synthetic workloads made by `cargo run --release --example synth`.
#
#   scripts/bench.sh                 # workload M: 100,000 queries x depth 100 (10M lines per run)
#   scripts/bench.sh 10000 100       # any QUERIES DEPTH
#   scripts/bench.sh --linear        # 1M, 10M and 50M lines per run: time per line
#   scripts/bench.sh 1000000 100     # SPEC 10's million queries (about 10 GB of files)
#
# Needs /usr/bin/time (GNU time) and about 1 GB of disk per 10M lines (both runs, TREC
# and CSV) under $BENCH_DIR (default target/bench). Prints a Markdown table of wall
# time, peak RSS and the ratio to trec_eval's time for one run. Not a test: nothing
# here asserts a timing.
set -euo pipefail
cd "$(dirname "$0")/.."
root="${BENCH_DIR:-target/bench}"
trec_eval="${TREC_EVAL:-$(command -v trec_eval || true)}"
cargo build --release --quiet --example synth --bin ragdiff
bin="$(pwd)/target/release/ragdiff"

gen() { # QUERIES DEPTH [extra synth args] -> folder
  local dir="$root/wl-$1-$2${3:+-interleaved}"
  if [ ! -f "$dir/gold.toml" ]; then
    target/release/examples/synth --queries "$1" --depth "$2" --seed 1 --out "$dir" ${3:+$3} >&2
  fi
  echo "$dir"
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# Runs are read from the page cache, as `cat` shows (warm it first): the figures
# are ragdiff's, not the disk's.
warm() { cat "$@" > /dev/null; }

# measure LABEL DIR CMD... -> prints "LABEL|seconds|peak MB", the fastest of
# $REPEAT runs (default 3; trec_eval runs once).
measure() {
  local label=$1 dir=$2; shift 2
  local best="" best_kb=0 n=${REPEAT:-3}
  [ "$label" = te ] && n=1
  for _ in $(seq "$n"); do
    (cd "$dir" && /usr/bin/time -f '%e %M' -o "$tmp" "$@" >/dev/null 2>&1) || true
    read -r secs kb < <(tail -n 1 "$tmp")
    if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$secs
      best_kb=$kb
    fi
  done
  echo "$label|$best|$((best_kb / 1024))"
}

row() { # label secs mb base
  local ratio="-"
  if [ -n "${4:-}" ]; then ratio=$(awk -v a="$4" -v b="$2" 'BEGIN { if (b > 0) printf "%.0fx faster", a / b; else print "-" }'); fi
  printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$ratio"
}

report() { # QUERIES DEPTH
  local dir; dir=$(gen "$1" "$2")
  local abs; abs=$(cd "$dir" && pwd)
  local lines=$(( $(wc -l < "$dir/baseline.trec") ))
  echo
  echo "Workload: $1 queries x depth $2 ($lines lines, $(( $(stat -c %s "$dir/baseline.trec") / 1000000 )) MB per TREC run), k = 10, 1000 resamples"
  echo
  warm "$dir"/*.trec "$dir"/*.csv "$dir"/gold.*
  echo "| what | wall s | peak RSS MB | vs trec_eval (one run) |"
  echo "|---|---:|---:|---:|"
  IFS='|' read -r l s m < <(measure cat "$abs" cat baseline.trec)
  row "cat baseline.trec" "$s" "$m"
  local base=""
  if [ -n "$trec_eval" ] && [ "$1" -gt 200000 ]; then
    echo "| trec_eval: skipped, its time grows with the square of the queries | | | |"
  elif [ -n "$trec_eval" ]; then
    IFS='|' read -r l s m < <(measure te "$abs" "$trec_eval" -c -m recip_rank -m recall.10 gold.qrels baseline.trec)
    base=$s
    row "trec_eval -c -m recip_rank -m recall.10 (ONE run)" "$s" "$m"
  fi
  IFS='|' read -r l s m < <(measure rd "$abs" "$bin" eval --gold gold.toml baseline.toml --k 10 --format json)
  row "ragdiff eval, one TREC run" "$s" "$m" "$base"
  IFS='|' read -r l s m < <(measure rd "$abs" "$bin" compare --gold gold.toml baseline.toml candidate.toml --k 10)
  row "**ragdiff compare, both TREC runs**" "$s" "$m" "$base"
  IFS='|' read -r l s m < <(measure rd "$abs" "$bin" compare --gold gold-csv.toml baseline-csv.toml candidate-csv.toml --k 10)
  row "ragdiff compare, both CSV runs" "$s" "$m" "$base"
}

if [ "${1:-}" = "--linear" ]; then
  echo "| lines per run | queries | compare wall s | ns per line (both runs) | peak RSS MB |"
  echo "|---:|---:|---:|---:|---:|"
  for q in 10000 100000 500000; do
    dir=$(gen "$q" 100); abs=$(cd "$dir" && pwd)
    warm "$dir"/*.trec "$dir"/gold.*
    IFS='|' read -r l s m < <(measure rd "$abs" "$bin" compare --gold gold.toml baseline.toml candidate.toml --k 10)
    awk -v q="$q" -v s="$s" -v m="$m" 'BEGIN { printf "| %d | %d | %s | %.1f | %s |\n", q * 100, q, s, s * 1e9 / (2 * q * 100), m }'
  done
  exit 0
fi

report "${1:-100000}" "${2:-100}"
echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
