#!/usr/bin/env bash
# Runs every correct lock in the shapes the CLI runs by default and the ones
# that stress fairness, N times, and counts every verdict that is not PASS.
# A correct lock must PASS in all of them, run after run: any other line is
# a false verdict (a harness bug) or a real bug in that lock.
#   scripts/verdict-loop.sh [N] [DURATION] [BINARY]     (default 5, 0.2, build/rwstress)
set -uo pipefail
n=${1:-5}
duration=${2:-0.2}
bin=${3:-build/rwstress}
shapes=(
  "--lock rwlock"
  "--lock rwlock --sched"
  "--lock rwlock --readers 2 --writers 1"
  "--lock rwlock --readers 2 --writers 1 --sched"
  "--lock rwlock --readers 2 --writers 1 --no-check"
  "--lock semaphore"
  "--lock semaphore --count 1 --sched"
  "--lock mutex"
  "--lock mutex --sched"
)
bad=0 runs=0
for ((i = 1; i <= n; i++)); do
  for shape in "${shapes[@]}"; do
    # shellcheck disable=SC2086
    out=$("$bin" $shape --duration "$duration" 2>&1)
    rc=$?
    runs=$((runs + $(grep -cE ' (PASS|FAIL|HANG|STARVED)$' <<<"$out")))
    if [ $rc -ne 0 ]; then
      # The flagged rows with the lines under them, and the replay line.
      awk -v tag="[$i: $shape]" '/ (PASS|FAIL|HANG|STARVED)$/ { show = !/ PASS$/ }
           show && !/^$/ { print tag, $0 } /^rwstress --/ { print tag, $0 }' <<<"$out"
      bad=$((bad + 1))
    fi
  done
done
echo "verdict-loop: $runs lock runs in $((n * ${#shapes[@]})) sessions, $bad sessions not PASS"
[ $bad -eq 0 ]
