#!/usr/bin/env bash
# Runs locally what CI runs: the tests of the packages changed since BASE (and their dependants),
# in parallel, with a summary at the end. Usage: scripts/run-affected.sh [BASE] [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
base="${1:-origin/main}"
jobs="${2:-4}"
packages=$(scripts/changed.sh "$base" | jq -r '.[]')
if [ -z "$packages" ]; then
  echo "nothing changed since $base"
  exit 0
fi
logdir=$(mktemp -d)
run_one() {
  local pkg="$1" logdir="$2"
  if (cd "packages/$pkg" && npm ci --silent && npm test) > "$logdir/$pkg.log" 2>&1; then
    echo "ok   $pkg"
  else
    echo "FAIL $pkg (log: $logdir/$pkg.log)"
    return 1
  fi
}
export -f run_one
status=0
printf '%s\n' $packages | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} "$logdir" || status=$?
echo "tested $(printf '%s\n' $packages | wc -l) packages; logs in $logdir"
exit $status
