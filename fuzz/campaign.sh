#!/usr/bin/env bash
# Runs each fuzz target in turn for SECONDS (default 630) of wall time, one at a time, at low
# priority, on a working copy of its corpus (corpus-work/); then minimizes that copy into
# corpus/<target>, the committed corpus.
# Crashes land in artifacts/<target>/; a crash restarts the fuzzer for the time left.
#
#   fuzz/campaign.sh [SECONDS] [TARGET...]
#
# Logs go to $FUZZ_LOG_DIR (default fuzz/target/logs), one per target.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-630}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(watch_stream list_decode kubeconfig selectors continue_token status_body protobuf_object)
fi
logs=${FUZZ_LOG_DIR:-target/logs}
mkdir -p "$logs"
bin=target/x86_64-unknown-linux-gnu/release
cargo fuzz build --sanitizer none
for t in "${targets[@]}"; do
  # A private copy of the binary, so a rebuild during the campaign does not touch it.
  mkdir -p target/campaign "corpus-work/$t" "artifacts/$t"
  cp "$bin/$t" "target/campaign/$t"
  cp -n corpus/"$t"/* "corpus-work/$t/" 2>/dev/null || true
  start=$(date +%s)
  round=0
  while :; do
    left=$((seconds - ($(date +%s) - start)))
    [ "$left" -gt 5 ] || break
    round=$((round + 1))
    echo "== $t round $round, $left s left, $(date -u +%FT%TZ)" >>"$logs/$t.log"
    nice -n 10 "target/campaign/$t" "corpus-work/$t" -max_total_time="$left" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="artifacts/$t/" \
      >>"$logs/$t.log" 2>&1 || echo "== $t round $round exited with $?" >>"$logs/$t.log"
  done
  echo "== $t done after $(($(date +%s) - start)) s" >>"$logs/$t.log"
  # Minimize: keep only inputs that add edges (hit counts ignored, which keeps the corpus small),
  # and make that the committed corpus; trim.sh then enforces a size budget.
  rm -rf "target/min/$t" && mkdir -p "target/min/$t"
  "target/campaign/$t" -merge=1 -use_counters=0 "target/min/$t" "corpus-work/$t" \
    >>"$logs/$t.merge.log" 2>&1
  rm -rf "corpus/$t" && mv "target/min/$t" "corpus/$t"
done
