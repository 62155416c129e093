#!/usr/bin/env bash
# Keeps a minimized corpus within a byte budget: drops the largest inputs of corpus/<target>
# until the folder holds at most BYTES (default 300000). libFuzzer's merge keeps the smallest
# input per feature, so the large inputs dropped here carry the fewest unique features.
#
#   fuzz/trim.sh [BYTES] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
budget=${1:-300000}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(watch_stream list_decode kubeconfig selectors continue_token status_body)
fi
for t in "${targets[@]}"; do
  total=$(find "corpus/$t" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  # Largest first, until within budget.
  while read -r size path; do
    [ "$total" -gt "$budget" ] || break
    rm -- "$path"
    total=$((total - size))
  done < <(find "corpus/$t" -type f -printf '%s %p\n' | sort -rn)
  echo "$t: $(find "corpus/$t" -type f | wc -l) inputs, $(find "corpus/$t" -type f -printf "%s\n" | awk "{s += \$1} END {print s + 0}") bytes"
done
