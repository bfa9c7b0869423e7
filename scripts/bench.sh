#!/usr/bin/env bash
# Benchmark ragdiff side by side with trec_eval on synthetic workloads made by
# `cargo run --release --example synth`.
#
#   TREC_EVAL=/path/to/trec_eval scripts/bench.sh   # workloads M and R at 1%, 50%, 99% changed
#   scripts/bench.sh --million                      # also 1,000,000 queries at 83% changed (~12 GB)
#   scripts/bench.sh --only R 99                    # one workload at one share
#   scripts/bench.sh --linear                       # 1M, 10M and 50M lines per run: time per line
#
# Workloads (each defined once, in `shape` below), 100,000 queries x depth 100, k = 10,
# default statistics (1000 resamples):
#   M  gold of 1-5 relevant docs (grade 1); runs with 4-decimal scores; a changed query
#      moves, drops or gains a few docs.
#   R  a real ranking change: qrels with 1-5 relevant docs graded 1-3 plus 0-2 judged
#      non-relevant docs; scores of 4 to 17 significant digits; a changed query's
#      candidate is a new ranking (as a new embedding model returns).
# Each runs `compare --format json`, then the same with all three exports
# (--export-markdown, --export-json, --export-csv).
#
# trec_eval comes from $TREC_EVAL (build it from its public source,
# github.com/usnistgov/trec_eval, with its own Makefile); without it the ratios are
# skipped, saying so. It runs once per shape (the baseline does not depend on the
# share changed), on ONE run, and not on the million-query case (its time grows with
# the square of the queries). Needs GNU time (/usr/bin/time) and about 1.1 GB of disk
# per workload under $BENCH_DIR (default target/bench). Times are the best of
# $REPEAT runs (default 3): wall and CPU (user + system) seconds, peak RSS. Not a
# test: nothing here asserts a timing.
set -euo pipefail
cd "$(dirname "$0")/.."
root="${BENCH_DIR:-target/bench}"
trec_eval="${TREC_EVAL:-}"
cargo build --release --quiet --example synth --bin ragdiff
bin="$(pwd)/target/release/ragdiff"
mkdir -p "$root"

# The workloads: shape NAME -> synth arguments.
shape() {
  case "$1" in
    M) echo "--shape m" ;;
    R) echo "--shape r" ;;
    *) echo "unknown shape $1" >&2; exit 2 ;;
  esac
}

gen() { # SHAPE QUERIES DEPTH PERCENT [extra synth args] -> folder
  local dir="$root/$1-$2-$3-$4${5:+-interleaved}"
  if [ ! -f "$dir/gold.toml" ]; then
    # shellcheck disable=SC2046 # the shape's arguments are words
    target/release/examples/synth $(shape "$1") --queries "$2" --depth "$3" --seed 1 \
      --changed "$(awk -v p="$4" 'BEGIN { print p / 100 }')" --out "$dir" ${5:+$5} >&2
  fi
  echo "$dir"
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# Runs are read from the page cache, as `cat` shows (warm it first): the figures
# are ragdiff's, not the disk's.
warm() { cat "$@" > /dev/null; }

# measure LABEL DIR CMD... -> prints "seconds|cpu seconds|peak MB", the fastest of
# $REPEAT runs (default 3; trec_eval runs once).
measure() {
  local label=$1 dir=$2; shift 2
  local best="" best_cpu="" best_kb=0 n=${REPEAT:-3}
  [ "$label" = te ] && n=1
  for _ in $(seq "$n"); do
    (cd "$dir" && /usr/bin/time -f '%e %U %S %M' -o "$tmp" "$@" >/dev/null 2>&1) || true
    read -r secs user sys kb < <(tail -n 1 "$tmp")
    if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$secs
      best_cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
      best_kb=$kb
    fi
  done
  echo "$best|$best_cpu|$((best_kb / 1024))"
}

ratio() { # BASE VALUE -> "Nx"
  if [ -n "$1" ]; then awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0fx", a / b; else print "-" }'; else echo "-"; fi
}

row() { # label secs cpu mb [base_secs base_cpu base_mb]
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" \
    "$(ratio "${5:-}" "$2")" "$(ratio "${6:-}" "$3")" "$(ratio "${7:-}" "$4")"
}

exports=(--export-markdown out.md --export-json out.json --export-csv out.csv)

# report SHAPE QUERIES DEPTH PERCENTS... : one table per shape
report() {
  local s=$1 q=$2 d=$3; shift 3
  local base_wall="" base_cpu="" base_mb=""
  echo
  echo "Workload $s: $q queries x depth $d, k = 10, 1000 resamples ($(shape "$s"))"
  echo
  echo "| what | wall s | CPU s | peak RSS MB | vs trec_eval time (one run) | vs trec_eval CPU | vs trec_eval memory |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for pct in "$@"; do
    local dir abs; dir=$(gen "$s" "$q" "$d" "$pct"); abs=$(cd "$dir" && pwd)
    warm "$dir"/*.trec "$dir"/gold.*
    if [ "$pct" = "$1" ]; then
      local mb=$(( $(stat -c %s "$dir/baseline.trec") / 1000000 ))
      IFS='|' read -r w c m < <(measure cat "$abs" cat baseline.trec candidate.trec)
      row "cat both TREC runs ($mb MB each)" "$w" "$c" "$m"
      if [ -z "$trec_eval" ]; then
        echo "| trec_eval: skipped, TREC_EVAL is not set (ratios skipped) | | | | | | |"
      elif [ "$q" -gt 200000 ]; then
        echo "| trec_eval: skipped, its time grows with the square of the queries | | | | | | |"
      else
        IFS='|' read -r w c m < <(measure te "$abs" "$trec_eval" -c -m recip_rank -m recall.10 -m ndcg_cut.10 gold.qrels baseline.trec)
        base_wall=$w
        base_cpu=$c
        base_mb=$m
        row "trec_eval -c -m recip_rank -m recall.10 -m ndcg_cut.10 (ONE run)" "$w" "$c" "$m"
      fi
    fi
    IFS='|' read -r w c m < <(measure rd "$abs" "$bin" compare --gold gold.toml baseline.toml candidate.toml --k 10 --format json)
    row "**compare --format json, $pct% changed**" "$w" "$c" "$m" "$base_wall" "$base_cpu" "$base_mb"
    IFS='|' read -r w c m < <(measure rd "$abs" "$bin" compare --gold gold.toml baseline.toml candidate.toml --k 10 --format json "${exports[@]}")
    row "**… with all three exports, $pct% changed**" "$w" "$c" "$m" "$base_wall" "$base_cpu" "$base_mb"
  done
}

if [ "${1:-}" = "--linear" ]; then
  echo "| lines per run | queries | compare wall s | ns per line (both runs) | peak RSS MB |"
  echo "|---:|---:|---:|---:|---:|"
  for q in 10000 100000 500000; do
    dir=$(gen M "$q" 100 50); abs=$(cd "$dir" && pwd)
    warm "$dir"/*.trec "$dir"/gold.*
    IFS='|' read -r w c m < <(measure rd "$abs" "$bin" compare --gold gold.toml baseline.toml candidate.toml --k 10)
    awk -v q="$q" -v s="$w" -v m="$m" 'BEGIN { printf "| %d | %d | %s | %.1f | %s |\n", q * 100, q, s, s * 1e9 / (2 * q * 100), m }'
  done
  exit 0
fi

if [ "${1:-}" = "--only" ]; then
  report "$2" 100000 100 "$3"
  exit 0
fi

[ -n "$trec_eval" ] || echo "TREC_EVAL is not set: trec_eval is not run and the ratios are skipped." >&2
report M 100000 100 1 50 99
report R 100000 100 1 50 99
if [ "${1:-}" = "--million" ]; then
  # Two 4.5 GB TREC runs plus CSV: check the disk first.
  free_gb=$(df -BG --output=avail "$root" | tail -n 1 | tr -dc 0-9)
  if [ -d "$root/R-1000000-100-83" ] || [ "$free_gb" -ge 14 ]; then
    report R 1000000 100 83
  else
    echo
    echo "Million-query case skipped: it needs about 12 GB under $root and only ${free_gb} GB are free."
  fi
fi
echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
