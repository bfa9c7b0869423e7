#!/usr/bin/env bash
# Fuzz every parser of ragdiff for SECONDS each (default 600), one after another.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); on the stable toolchain it needs
# RUSTC_BOOTSTRAP=1, set here. Crashes land in fuzz/artifacts/<target>/; copy each
# reproducer to fuzz/regressions/<target>/ once fixed, where `cargo test` replays it.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-600}"
export RUSTC_BOOTSTRAP=1
for target in gold_csv qrels run_csv trec_run gold_manifest run_manifest; do
  echo "== $target: ${seconds}s"
  cargo fuzz run "$target" -O -- -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 2>&1 \
    | grep -E '^(stat::|#[0-9]+ *DONE|==[0-9]+==|SUMMARY|Done|INFO: Running|.*(panicked|crash|deadly))' || true
done
