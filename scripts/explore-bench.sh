#!/usr/bin/env bash
# The controlled scheduler's speed, as docs/PERFORMANCE.md records it:
# steps a second of a fixed set of searches (explore's seed 0, so every binary runs
# the same schedules), for one or more rwstress binaries side by side.
#
#   scripts/explore-bench.sh [--kernel PLUGIN.so] [--jobs N] BINARY...
#
# --kernel: an explore build of a kernel rwsem.c (rwstress kernel --explore
# leaves it in its cache: plugins/k<version>-rwsem-explore-*.so) adds two
# rows for it. --jobs: each search also split N ways (explore --jobs N).
# Prints one line a search and binary; a search that does not PASS is
# reported as it ended (the numbers are then not comparable).
set -euo pipefail

kernel=""
jobs=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kernel) kernel="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "explore-bench.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [[ $# -eq 0 ]]; then
  echo "explore-bench.sh: give at least one rwstress binary" >&2
  exit 2
fi

searches=(
  "--lock qrwlock --readers 2 --writers 1 --strategy random --schedules 20000"
  "--lock ticket --threads 3 --strategy random --schedules 20000"
  "--lock linux-rwsem --readers 2 --writers 1 --strategy random --schedules 20000"
  "--lock linux-rwsem --readers 2 --writers 1 --strategy pct:depth=3 --schedules 20000"
)
if [[ -n "$kernel" ]]; then
  lock=$(basename "$kernel" | sed -E 's/-explore-[0-9a-f]+\.so$//')
  searches+=(
    "--plugin $kernel --lock $lock --readers 2 --writers 2 --strategy random --memory c11 --signals --time-jumps 2 --schedules 2000"
    "--plugin $kernel --lock $lock --readers 2 --writers 1 --strategy pct:depth=3 --memory c11 --schedules 2000"
  )
fi

run_one() {  # binary, search words..., [--jobs N]
  local bin="$1"; shift
  local line
  # --plugin is a main-run option: it goes before the command
  local pre=() rest=()
  while [[ $# -gt 0 ]]; do
    if [[ "$1" == --plugin ]]; then pre+=("$1" "$2"); shift 2; else rest+=("$1"); shift; fi
  done
  line=$("$bin" "${pre[@]}" explore "${rest[@]}" --replays 0 2>&1 | grep -E '^[^ ]+: (PASS|FAIL|[A-Z]+)' | tail -1 || true)
  printf '%-14s %s\n' "$(basename "$bin")" "${line:-no result line}"
}

for s in "${searches[@]}"; do
  echo "== explore $s"
  for bin in "$@"; do
    # shellcheck disable=SC2086
    run_one "$bin" $s
    if [[ -n "$jobs" ]]; then
      # shellcheck disable=SC2086
      run_one "$bin" $s --jobs "$jobs"
    fi
  done
done
