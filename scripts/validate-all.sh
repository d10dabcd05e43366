#!/usr/bin/env bash
# Proves validate's battery (docs/plugins.md): every busted lock must be
# caught (at least one scenario not PASS) and every correct lock must pass
# every scenario. About 7 minutes on 2 cores with the defaults; the ctest
# and meson test 'validate-all' (label/suite 'long', not in the default run).
#   scripts/validate-all.sh [BINARY] [TIME PER LOCK]     (build/rwstress, 5s)
set -uo pipefail
bin=${1:-build/rwstress}
budget=${2:-5s}
bad=0
busted=$("$bin" validate --lock busted --time "$budget" --watchdog 1s 2>&1)
caught=$(grep -c '^validate busted-.*did not PASS' <<<"$busted")
total=$(grep -c '^validate busted-' <<<"$busted")
echo "busted: $caught of $total caught"
grep '^validate busted-' <<<"$busted" | sed 's/; replay each with:$//'
grep '^validate busted-' <<<"$busted" | grep -v 'did not PASS' && bad=1
[ "$total" -gt 0 ] || bad=1
correct=$("$bin" validate --lock all --time "$budget" 2>&1)
passed=$(grep -c '^validate .*: all [0-9]* scenarios PASS' <<<"$correct")
total=$(grep -c '^validate ' <<<"$correct")
echo "correct: $passed of $total passed every scenario"
if [ "$passed" -ne "$total" ] || [ "$total" -eq 0 ]; then
  bad=1
  # The rows that did not pass, with their lock's summary and replay lines.
  grep -E '^(validate|rwstress [0-9])| (FAIL|HANG|STARVED|CRASH) |^  .*: rwstress' <<<"$correct" |
    grep -vE '^validate .*: all [0-9]* scenarios PASS'
fi
exit $bad
