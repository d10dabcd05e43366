#!/usr/bin/env bash
# bench/anchors/compare.sh's bad input, checked without the anchors: each bad
# option must give one line on stderr, nothing on stdout, and exit 2, before
# anything is fetched or run; --help exits 0. (A real comparison needs
# Debian's source archive and minutes of quiet machine: not a unit test.)
#   scripts/check-anchors-cli.sh SOURCE_DIR RWSTRESS_BIN
set -uo pipefail
root=$1 bin=$2
compare=$root/bench/anchors/compare.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bad=0
expect_usage_error() {  # ARGS...: exit 2, one line on stderr, none on stdout
  "$compare" --rwstress "$bin" "$@" >"$out/stdout" 2>"$out/stderr"
  local rc=$? lines
  lines=$(wc -l <"$out/stderr")
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$out/stdout" ] ||
    ! grep -q '^compare.sh: ' "$out/stderr"; then
    echo "FAIL: compare.sh $* -> exit $rc, $lines line(s) on stderr: $(head -3 "$out/stderr")"
    bad=1
  fi
}
expect_usage_error --pairs 0
expect_usage_error --pairs seven
expect_usage_error --pairs
expect_usage_error --seconds 1.5
expect_usage_error --seconds 0
expect_usage_error --cpus 0
expect_usage_error --cpus -1
expect_usage_error --shapes 1R,5R
expect_usage_error --ck-locks ticket,rwlock
expect_usage_error --no-such-option
expect_usage_error --rwstress "$out/no-such-binary"
[ "$(nproc)" -eq 1 ] || expect_usage_error --ck --cpus 1  # ck places on every CPU

if ! "$compare" --help >"$out/help" 2>&1 || ! grep -q -- '--pairs N' "$out/help"; then
  echo "FAIL: compare.sh --help: $(head -3 "$out/help")"
  bad=1
fi
[ $bad -eq 0 ] && echo "compare.sh: every bad option gave one line and exit 2"
exit $bad
