#!/usr/bin/env bash
# rwstress side by side with the anchors (bench/anchors/build.sh): for each
# shape, N pairs of runs, the anchor and `rwstress --no-check` on the same
# lock, thread counts, CPUs in the same order, and duration. The two runs
# of a pair alternate which goes first (ABBA), so a drift of the machine
# falls on both. Prints per shape the anchor's ops/s, rwstress's, and the
# ratio rwstress/anchor: the median over the pairs and its range.
#
#   bench/anchors/compare.sh [options]
#     --pairs N        pairs per shape (default 7)
#     --seconds S      seconds per run, whole (default 2; test_rwlock counts whole seconds)
#     --shapes LIST    comma-separated, from: 1R 1W 2R 2R+1W 4R+2W 1T 2T 3T
#                      (default all of them; "" for none, with --ck)
#     --ck             also ck's spinlock throughput programs (ticket, mcs,
#                      clh, fas, cas) at 1T, 2T and 3T; their runs last 10 s,
#                      fixed in the anchor
#     --ck-locks LIST  which of them (default ticket,mcs,clh,fas,cas)
#     --checked        also a checked rwstress run per pair: the price of the
#                      checkers, as checked/--no-check
#     --cpus N         CPUs to place threads on, 0..N-1 (default all online;
#                      with --ck, all of them: ck's placement is fixed at its build)
#     --rwstress BIN   (default build-release/rwstress, which scripts/run.sh builds)
#     --anchors DIR    where build.sh builds (default build/anchors)
#     --raw FILE       also write every run's figure, one line each
#
# Threads are placed as both tools do it: thread i on CPU i mod N, readers
# first (test_rwlock's -a list; rwstress's compact order of --cpus).
# Exit 77 when the anchors cannot be built here (no network).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
pairs=7 seconds=2 shapes="1R,1W,2R,2R+1W,4R+2W,1T,2T,3T" ck=0 checked=0 ck_locks="ticket,mcs,clh,fas,cas"
ncpus=$(nproc) bin=$here/build-release/rwstress anchors=$here/build/anchors raw=""
die() { echo "compare.sh: $*" >&2; exit 2; }
value() {  # value "$@": the argument of the option in $1, or one line and exit 2
  [ $# -ge 2 ] || die "$1 needs a value (see --help)"
  printf '%s' "$2"
}
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) pairs=$(value "$@"); shift 2 ;;
    --seconds) seconds=$(value "$@"); shift 2 ;;
    --shapes) shapes=$(value "$@"); shift 2 ;;
    --ck) ck=1; shift ;;
    --ck-locks) ck=1; ck_locks=$(value "$@"); shift 2 ;;
    --checked) checked=1; shift ;;
    --cpus) ncpus=$(value "$@"); shift 2 ;;
    --rwstress) bin=$(value "$@"); shift 2 ;;
    --anchors) anchors=$(value "$@"); shift 2 ;;
    --raw) raw=$(value "$@"); shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d;s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ $pairs =~ ^[1-9][0-9]*$ ]] || die "--pairs '$pairs': a whole number from 1"
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die "--seconds '$seconds': whole seconds from 1"
[[ $ncpus =~ ^[1-9][0-9]*$ ]] || die "--cpus '$ncpus': a number of CPUs from 1"
# ck's programs place thread i on CPU i mod CORES, which its configure sets
# to every CPU of the build machine: rwstress can match that and nothing else.
[ $ck -eq 0 ] || [ "$ncpus" -eq "$(nproc)" ] ||
  die "--cpus $ncpus with --ck: ck's benchmarks use all $(nproc) CPUs (CORES at their build); leave --cpus out"
IFS=, read -r -a ck_wanted <<<"$ck_locks"
for l in "${ck_wanted[@]}"; do
  case "$l" in ticket|mcs|clh|fas|cas) ;; *) die "--ck-locks: unknown lock '$l' (ticket mcs clh fas cas)" ;; esac
done
IFS=, read -r -a wanted <<<"$shapes"
for s in "${wanted[@]}"; do
  case "$s" in 1R|1W|2R|2R+1W|4R+2W|1T|2T|3T) ;; *) die "--shapes: unknown shape '$s' (1R 1W 2R 2R+1W 4R+2W 1T 2T 3T)" ;; esac
done
[ -x "$bin" ] || die "$bin: no rwstress binary there (build first, or --rwstress BIN)"

set +e
built=$("$here/bench/anchors/build.sh" "$anchors")
rc=$?
set -e
[ $rc -eq 0 ] || { echo "$built"; exit $rc; }
anchor() { awk -v n="$1" '$1 == "anchor" && $2 == n { print $3 }' <<<"$built"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -z "$raw" ] || : >"$raw"

# The CPU of each of T threads, as the anchors' -a list: 0 1 .. N-1 0 1 ..
cpu_list() { local t; for ((t = 0; t < $1; t++)); do echo -n "$((t % ncpus)) "; done; }
cpus_arg() { local n=$(($1 < ncpus ? $1 : ncpus)); echo "0-$((n - 1))"; }

# One run of each side: prints ops/s.
run_anchor() {  # KIND R W | ck_LOCK T
  case "$1" in
    test_rwlock|test_mutex)
      local a=() c
      for c in $(cpu_list $(($2 + $3))); do a+=(-a "$c"); done
      "$(anchor "$1")" "$2" "$3" "$seconds" "${a[@]}" >"$work/out" 2>&1 ||
        die "$1 failed: $(tail -1 "$work/out")"
      awk -v s="$seconds" '$1 == "SUMMARY" { for (i = 1; i < NF; i++) if ($i == "nr_ops") printf "%.0f\n", $(i + 1) / s }' "$work/out" ;;
    ck_*)
      # Threads on CPUs 0, 1, .. by delta 1; the run is 10 s (common_sleep(10)).
      "$(anchor "$1")" "$2" 1 0 >"$work/out" 2>&1 || die "$1 failed: $(tail -1 "$work/out")"
      awk '$1 == "#" && $2 == "total" { printf "%.0f\n", $4 / 10 }' "$work/out" ;;
  esac
}
run_rwstress() {  # LOCK R W SECONDS [extra...]: ops/s from the CSV row
  local lock=$1 r=$2 w=$3 s=$4 shape
  shift 4
  if [ "$r" = T ]; then shape=(--threads "$w"); else shape=(--readers "$r" --writers "$w"); fi
  "$bin" --lock "$lock" "${shape[@]}" --cpus "$(cpus_arg $((${r/T/0} + w)))" --placement compact \
    --duration "${s}s" --csv "$work/csv" "$@" >"$work/rw" 2>&1 ||
    [ $? -eq 5 ] || die "rwstress failed: $(tail -1 "$work/rw")"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ops_per_s") c = i } NR == 2 { printf "%.0f\n", $c }' "$work/csv"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo, hi }'; }
human() { awk -v v="$1" 'BEGIN { if (v >= 1e6) printf "%.1fM", v / 1e6; else if (v >= 1e3) printf "%.1fk", v / 1e3; else printf "%.0f", v }'; }

printf '%-16s %-14s %21s %21s %18s' "shape" "anchor" "anchor ops/s" "rwstress ops/s" "ratio"
[ $checked -eq 0 ] || printf ' %18s' "checked/no-check"
printf '\n'

# One shape: NAME ANCHOR LOCK R W [NOTE] (R = T for a mutex shape: W threads).
compare() {
  local name=$1 kind=$2 lock=$3 r=$4 w=$5 note=${6:-} p a b c="" args
  if [ "$r" = T ]; then args=("$w" 0); else args=("$r" "$w"); fi
  : >"$work/a"; : >"$work/b"; : >"$work/ratio"; : >"$work/price"
  for ((p = 0; p < pairs; p++)); do
    local s=$seconds
    [[ $kind == ck_* ]] && s=10
    if ((p % 2 == 0)); then
      a=$(run_anchor "$kind" "${args[@]}"); b=$(run_rwstress "$lock" "$r" "$w" "$s" --no-check)
    else
      b=$(run_rwstress "$lock" "$r" "$w" "$s" --no-check); a=$(run_anchor "$kind" "${args[@]}")
    fi
    echo "$a" >>"$work/a"; echo "$b" >>"$work/b"
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f\n", (a > 0 ? b / a : 0) }' >>"$work/ratio"
    if [ $checked -eq 1 ]; then
      c=$(run_rwstress "$lock" "$r" "$w" "$s")
      awk -v b="$b" -v c="$c" 'BEGIN { printf "%.4f\n", (b > 0 ? c / b : 0) }' >>"$work/price"
    fi
    [ -z "$raw" ] || echo "$name $kind pair $p anchor $a rwstress $b${c:+ checked $c}" >>"$raw"
  done
  local am bm rm
  am=$(median <"$work/a"); bm=$(median <"$work/b"); rm=$(median <"$work/ratio")
  read -r alo ahi < <(range <"$work/a"); read -r blo bhi < <(range <"$work/b")
  read -r rlo rhi < <(range <"$work/ratio")
  printf '%-16s %-14s %21s %21s %18s' "$name" "$kind" \
    "$(human "$am") ($(human "$alo")-$(human "$ahi"))" "$(human "$bm") ($(human "$blo")-$(human "$bhi"))" \
    "$(printf '%.2f (%.2f-%.2f)' "$rm" "$rlo" "$rhi")"
  if [ $checked -eq 1 ]; then
    read -r plo phi < <(range <"$work/price")
    printf ' %18s' "$(printf '%.2f (%.2f-%.2f)' "$(median <"$work/price")" "$plo" "$phi")"
  fi
  printf '%s\n' "${note:+  $note}"
}

for s in "${wanted[@]}"; do
  case "$s" in
    1R) compare "1R" test_rwlock pthread-rwlock 1 0 ;;
    1W) compare "1W" test_rwlock pthread-rwlock 0 1 ;;
    2R) compare "2R" test_rwlock pthread-rwlock 2 0 ;;
    2R+1W) compare "2R+1W" test_rwlock pthread-rwlock 2 1 ;;
    4R+2W) compare "4R+2W" test_rwlock pthread-rwlock 4 2 ;;
    1T|2T|3T) compare "$s mutex" test_mutex pthread-mutex T "${s%T}" ;;
  esac
done
marked=0
if [ $ck -eq 1 ]; then
  for l in "${ck_wanted[@]}"; do
    # ck times the backoff variants of fas and cas (its ck_fas.h, ck_cas.h: _lock_eb).
    lock=ck-$l; case "$l" in fas|cas) lock=ck-$l-eb ;; esac
    for t in 1 2 3; do
      # A FIFO spinlock with more threads than CPUs waits for the scheduler
      # to run a preempted waiter: such a row measures the time slice.
      note=""
      case "$l" in ticket|mcs|clh) ((t <= ncpus)) || { note="(oversubscribed: not judged)"; marked=1; } ;; esac
      compare "${t}T $lock" "ck_$l" "$lock" T "$t" "$note"
    done
  done
fi
echo "# $pairs pairs per shape, ${seconds}s runs (ck: 10 s), threads on CPUs i mod $ncpus; ratio = rwstress / anchor, median (range) of the pairs"
if [ $marked -eq 1 ]; then
  echo "# (oversubscribed: not judged): a FIFO spinlock's waiters outnumber the CPUs, so a preempted waiter stalls the queue for a time slice; the rate is the scheduler's"
fi
