#!/usr/bin/env bash
# A corpus of bugs the kernel shipped in kernel/locking/ and later fixed,
# each put back into a current file by an edit made here at run time (the
# reverse of the fix, in the file's present shape; nothing of the kernel is
# committed), then run through the default command a developer would type:
#
#   rwstress kernel --source TREE --patch BUG.patch --explore
#
# (validate, then explore's time-budgeted portfolio, on the groups the patch
# changes). Per bug: found or not, by which verdict, the schedule of the
# first failure, the seconds the command took, and whether the failure
# replayed step for step. The table goes to stdout and, with
# RWSTRESS_CORPUS_TABLE=FILE, to FILE as markdown (docs/explore.md keeps
# the last one measured).
#
#   scripts/kernel-corpus.sh RWSTRESS_BIN
#
# Environment:
#   RWSTRESS_KERNEL_CACHE   where the sources are kept (default build/kernel-src)
#   RWSTRESS_CORPUS_SERIES  the kernel series to plant into (default 6.12)
#   RWSTRESS_CORPUS_ARGS    extra rwstress kernel options (default none: the
#                           defaults, --time 1m and --explore-time 3m)
#   RWSTRESS_CORPUS_ONLY    a space-separated list of bug names to run
# Exit 0 when every bug the table expects found is found and the tree as
# shipped passes the same command; 1 otherwise; 77 when no source can be had.
set -euo pipefail
bin=$(readlink -f "$1")
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/kernel-plants.sh"
cache=${RWSTRESS_KERNEL_CACHE:-$here/build/kernel-src}
series=${RWSTRESS_CORPUS_SERIES:-6.12}
read -r -a extra <<<"${RWSTRESS_CORPUS_ARGS:-}"
mkdir -p "$cache"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

rc=0
tree=$("$here/share/rwstress/kernel-fetch.sh" "$series" "$cache") || rc=$?
case $rc in
  0) ;;
  77) echo "kernel-corpus: SKIPPED: linux $series cannot be fetched"; exit 77 ;;
  *) echo "kernel-corpus: no linux $series source (see $cache/fetch.log)"; exit 1 ;;
esac
locking=$tree/kernel/locking
kc=$out/cache
mkdir -p "$kc"

failed=0
table=("| bug | fix | file | expected | verdict | first failure | seconds | replayed |"
       "|---|---|---|---|---|---|---|---|")

# NAME FILE COMMIT SUBJECT EXPECT EDIT...: EDIT (a command reading the
# shipped FILE on stdin, writing the planted one) makes the bug; EXPECT is
# "found" (the command must not PASS) or "open: WHY" (not found yet, and
# why: the table says so, the script does not fail on it).
bug() {
  local name=$1 file=$2 commit=$3 subject=$4 expect=$5
  shift 5
  if [ -n "${RWSTRESS_CORPUS_ONLY:-}" ] && [[ " $RWSTRESS_CORPUS_ONLY " != *" $name "* ]]; then
    return
  fi
  mkdir -p "$out/$name/a/kernel/locking" "$out/$name/b/kernel/locking"
  cp "$locking/$file" "$out/$name/a/kernel/locking/"
  "$@" <"$locking/$file" >"$out/$name/b/kernel/locking/$file"
  (cd "$out/$name" && diff -u "a/kernel/locking/$file" "b/kernel/locking/$file" >"$out/$name.patch") || true
  if [ ! -s "$out/$name.patch" ]; then
    echo "kernel-corpus: $name: $file has a new shape in linux $series; the bug cannot be planted"
    table+=("| $name | $commit $subject | $file | $expect | NOT PLANTED | - | - | - |")
    failed=1
    return
  fi
  echo "kernel-corpus: $name ($commit \"$subject\"): rwstress kernel --patch ... --explore"
  local start end code=0
  start=$(date +%s)
  "$bin" kernel --source "$tree" --cache "$kc" --patch "$out/$name.patch" --explore "${extra[@]}" \
    >"$out/$name.out" 2>&1 || code=$?
  end=$(date +%s)
  local verdict first replayed
  # The rows' worst: the first that did not PASS (a group has one or two locks).
  verdict=$(awk -v f="k${series}-" '/^LOCK / { table = 1; next }
      table && $1 ~ "^"f && NF >= 5 { v = $(NF-1); if (v != "PASS" && w == "") w = $1 " " v }
      END { print (w != "" ? w : v) }' "$out/$name.out")
  [ -n "$verdict" ] || verdict="exit $code"
  first=$(grep -m1 -oE ": (FAIL|HANG|STARVED|CRASH|UNITS-LOST|TIMEOUT) at schedule [0-9,]+ \([0-9]+ steps, [0-9]+ preemptions?" \
            "$out/$name.out" | sed 's/^: //; s/$/)/' || true)
  [ -n "$first" ] || first=$(grep -m1 -oE "^[a-z0-9 +-]+ +(FAIL|HANG|STARVED) +[0-9.]+" "$out/$name.out" |
                             sed 's/  */ /g' || true)
  replayed=$(grep -m1 -oE "replayed [0-9]+ times: [0-9]+ the same" "$out/$name.out" || echo -)
  table+=("| $name | $commit $subject | $file | $expect | $verdict | ${first:--} | $((end - start)) | $replayed |")
  if [ "$expect" = found ] && { [ $code = 0 ] || [ $code = 2 ] || [ $code = 125 ]; }; then
    tail -20 "$out/$name.out"
    echo "kernel-corpus: $name was not found (exit $code)"
    failed=1
  fi
}

# 2019: a reader leaves its sleep loop on a plain read of waiter.task; the
# writer's data before its release may not be in the reader's view.
bug rwsem-sleep-acquire rwsem.c 99143f82a255 \
  "locking/rwsem: Add missing ACQUIRE to read_slowpath sleep loop" found \
  sed 's/^\t\tif (!smp_load_acquire(&waiter.task)) {$/\t\tif (!READ_ONCE(waiter.task)) {/'
# 2019: a reader that finds the queue empty leaves the slow path without
# the ACQUIRE after its count check.
bug rwsem-empty-acquire rwsem.c e1b98fa31664 \
  "locking/rwsem: Add missing ACQUIRE to read_slowpath exit when queue is empty" found \
  awk '{ print } /^\t\t\t\/\* Provide lock ACQUIRE \*\/$/ { getline; if ($0 !~ /smp_acquire__after_ctrl_dep/) print }'
# 2021: the queued rwlock's waiting writer reads the count with ACQUIRE
# until only its waiting flag is left, then takes the lock with a relaxed
# cmpxchg: a reader in interrupt context, which does not queue behind a
# waiting writer, may come and go between the two, and the writer's hold
# is then not ordered after that reader's (the reader may read what the
# writer stores). Both halves as the code was before the fix; reached only
# with a reader in an interrupt handler (--interrupts; qrwlock's portfolio
# has them) and seen by explore's check that a writer has every earlier
# read hold in view (--memory c11).
bug qrwlock-write-order qrwlock.c 84a24bf8c52e \
  "locking/qrwlock: Fix ordering in queued_write_lock_slowpath()" found \
  sed 's/^\t\tcnts = atomic_cond_read_relaxed(&lock->cnts, VAL == _QW_WAITING);$/\t\tcnts = atomic_cond_read_acquire(\&lock->cnts, VAL == _QW_WAITING);/; s/^\t} while (!atomic_try_cmpxchg_acquire(&lock->cnts, &cnts, _QW_LOCKED));$/\t} while (!atomic_try_cmpxchg_relaxed(\&lock->cnts, \&cnts, _QW_LOCKED));/'
# 2018: the MCS node is published (xchg_tail) before its initialisation
# is ordered: the predecessor's hand-off lands first and is overwritten.
bug qspinlock-node-init qspinlock.c 95bcade33a8a \
  "locking/qspinlock: Ensure node is initialised before updating prev->next" found \
  awk '/^\tsmp_wmb\(\);$/ && !done { done = 1; next } { print }'
# 2022: a killed first waiter leaves without waking the waiters behind it.
bug rwsem-out-nolock-wake rwsem.c 1ee326196c66 \
  "locking/rwsem: Always try to wake waiters in out_nolock path" found \
  sed 's/^\tif (rwsem_del_waiter(sem, waiter) \&\& first)$/\tif (rwsem_del_waiter(sem, waiter) \&\& first \&\& 0)/'
# 2019: readers steal the lock while readers own it, past a sleeping
# writer: a stream of readers starves it (a fairness bug: STARVED).
bug rwsem-reader-steal rwsem.c 2f06f702925b \
  "locking/rwsem: Prevent potential lock starvation" found \
  sed 's/^\t    (rcnt > 1) \&\& !(count \& RWSEM_WRITER_LOCKED))$/\t    (rcnt > 1) \&\& 0)/'
# 2022: a writer that is not first yields to a HANDOFF bit it did not
# set, which a killed first waiter may leave behind: nobody takes the lock.
# In the file's present shape the stall may not be reachable: a killed
# first waiter wakes the next one (1ee326196c66, above, came later), which
# as first is not held back, and a writer entering the slow path wakes
# the first waiter of a free lock (rwsem_cond_wake_waiter, later still);
# only the non-first writers' stealing is lost, which is no verdict.
bug rwsem-foreign-handoff rwsem.c 6eebd5fb2083 \
  "locking/rwsem: Allow slowpath writer to ignore handoff bit if not set by first waiter" \
  "open: not found (likely unreachable in this shape: the first waiter is woken and not held back)" \
  sed 's/^\t\t\tif (first->handoff_set \&\& (waiter != first))$/\t\t\tif (waiter != first)/'

# 2022: a writer took the count with preemption on, before it stored
# itself as the owner: a real-time writer of its CPU that preempts it
# there spins on the ownerless lock (the handoff writer's spin on the
# owner, and the retry after it) and never lets it finish: a livelock
# ("If the system is UP, it will lock up completely"). The fix disabled
# preemption across the trylock and the slow path (which then sleeps with
# schedule_preempt_disabled(), and whose optimistic spin had disabled it
# for itself). Reached only with a real-time thread sharing a CPU (the
# rwsem portfolio's `--virtual-cpus 1 --rt-threads 1` search).
bug rwsem-preempt-write rwsem.c 48dfb5d2560d \
  "locking/rwsem: Disable preemption while trying for rwsem lock" found \
  perl -0pe 's/(__down_write_common\(struct rw_semaphore \*sem, int state\)\n\{\n\tint ret = 0;\n\n)\tpreempt_disable\(\);\n(.*?)\tpreempt_enable\(\);\n(\treturn ret;\n\})/$1$2$3/s or die; s/(\tu64 rspin_threshold = 0;\n\n)(\t\/\* sem->wait_lock should not be held when doing optimistic spinning \*\/\n)/$1\tpreempt_disable();\n\n$2/ or die; s/(\tosq_unlock\(&sem->osq\);\ndone:\n)(\tlockevent_cond_inc\(rwsem_opt_fail, !taken\);)/$1\tpreempt_enable();\n$2/ or die; s/(\t\tschedule)_preempt_disabled(\(\);\n\t\tlockevent_inc\(rwsem_sleep_writer\);)/$1$2/ or die'
# 2023: the same for readers: a reader adds its bias to the count with
# preemption on, before it marks the lock reader-owned; the real-time
# writer that preempts it spins on the ownerless lock for good. The fix
# disabled preemption on every down_read*() and up_read() path (the read
# slow path then sleeps with schedule_preempt_disabled()). The id and
# subject were checked against the stable backport's record.
bug rwsem-preempt-read rwsem.c 3f5245538a19 \
  "locking/rwsem: Disable preemption at all down_read*() and up_read() code paths" found \
  perl -0pe "$PLANT_RWSEM_PREEMPTIBLE_READER"
# 2022: a writer that set HANDOFF marked itself as the one that did
# (waiter->handoff_set) even when it was not first, and the first waiter
# inherited a HANDOFF bit it found set: the non-first writer, seeing its
# mark, spins on the owner and retries without sleeping, while the lock
# is kept for the first waiter. A real-time non-first writer on the first
# waiter's CPU keeps it off the CPU for good: a livelock. Both halves of
# the old code. The livelock needs the first waiter to inherit the bit
# while the real-time writer sleeps, and that writer awake again before
# the first takes the lock: two well-placed spurious wake-ups on one CPU
# (or a migration, which explore does not make), not shown in 800,000
# schedules of the priority search. What is found is the wrong mark
# itself: the non-first writer, become first, is named the waiter the
# hand-off is for while the bit was another's, and the lock goes to
# others past it (STARVED, the hand-off the lock names).
bug rwsem-rt-nonfirst-spin rwsem.c b613c7f31476 \
  "locking/rwsem: Prevent non-first waiter from spinning in down_write() slowpath" found \
  perl -0pe 's/(\t\t\tif \(first->handoff_set && \(waiter != first\)\)\n\t\t\t\treturn false;\n)/$1\n\t\t\tif (waiter == first)\n\t\t\t\twaiter->handoff_set = true;\n/ or die; s/\tif \(new & RWSEM_FLAG_HANDOFF\) \{\n\t\tfirst->handoff_set = true;/\tif (new & RWSEM_FLAG_HANDOFF) {\n\t\twaiter->handoff_set = true;/ or die'

# 2019: the reader wake-up clears each woken reader's waiter.task before
# the count holds all their reader biases: a woken reader that sees it,
# runs and leaves (up_read) takes its bias out first, and a writer finds
# the count free while the other woken reader is inside.
bug rwsem-reader-count-early rwsem.c a9e9bcb45b15 \
  "locking/rwsem: Prevent decrement of reader count before increment" found \
  perl -0pe 's/\tif \(adjustment\)\n\t\tatomic_long_add\(adjustment, &sem->count\);\n\n(\t\/\* 2nd pass \*\/\n.*?\n\t\twake_q_add_safe\(wake_q, tsk\);\n\t\}\n)\}/$1\n\tif (adjustment)\n\t\tatomic_long_add(adjustment, &sem->count);\n}/s or die'
# 2018: the reader wake-up queues each woken reader (wake_q_add) before it
# clears waiter->task. A task already on another waker's wake_q is not
# queued, and that waker may wake it at once: the reader finds its
# waiter.task still set, sleeps again, and the store that follows wakes
# nobody (a lost wake-up: HANG). Found with explore's wake-ups from another
# wake_q (the layer's wake_q_add(), one of the spurious wake-ups). The
# subject and the change were checked against a stored copy of the patch;
# the mainline id is as remembered, not checked here.
bug rwsem-wake-q-early rwsem.c e158488be27b \
  "locking/rwsem: Fix (possible) missed wakeup" found \
  perl -0pe 's/(\t\tget_task_struct\(tsk\);\n)(\n\t\t\/\*\n\t\t \* Ensure calling get_task_struct\(\).*?\*\/\n\t\tsmp_store_release\(&waiter->task, NULL\);\n)\t\t\/\*\n\t\t \* Ensure issuing the wakeup.*?\*\/\n\t\twake_q_add_safe\(wake_q, tsk\);\n/$1\t\twake_q_add_safe(wake_q, tsk);\n$2/s or die'
# 2021: a waiter interrupted by a signal leaves the wait list without
# clearing the flags when it was the last: WAITERS stays set on an idle
# mutex, and every later lock takes the slow path (not-idle).
bug mutex-signal-flags mutex.c 3a010c493271 \
  "locking/mutex: clear MUTEX_FLAGS if wait_list is empty due to signal" found \
  perl -0pe 's/^err:\n\t__set_current_state\(TASK_RUNNING\);\n\t__mutex_remove_waiter\(lock, &waiter\);\n/err:\n\t__set_current_state(TASK_RUNNING);\n\tlist_del(&waiter.list);\n/m or die'

# 2021: the top waiter asked for the hand-off once, when it first found
# itself first; a stealer that takes the lock free clears the bit (as the
# trylock of the day did), and the waiter never asks again: starved. The
# file's present shape asks in the trylock's cmpxchg and keeps the bit on
# an acquisition, so the plant puts back both halves of the old code.
# Found on the lock's word (the glue names the waiter HANDOFF is for; a
# newcomer let past it is counted), under PCT's unfairness.
bug mutex-handoff-once mutex.c 048661a1f963 \
  "locking/mutex: Fix HANDOFF condition" found \
  perl -0pe 's/\t\t\tMUTEX_WARN_ON\(flags & \(MUTEX_FLAG_HANDOFF \| MUTEX_FLAG_PICKUP\)\);\n/\t\t\tflags &= ~MUTEX_FLAG_HANDOFF;\n/ or die; s/\tfor \(;;\) \{\n\t\tbool first;\n/\tbool first = false;\n\tfor (;;) {\n/ or die; s/\t\tfirst = __mutex_waiter_is_first\(lock, &waiter\);\n/\t\tif (!first) {\n\t\t\tfirst = __mutex_waiter_is_first(lock, &waiter);\n\t\t\tif (first)\n\t\t\t\t__mutex_set_flag(lock, MUTEX_FLAG_HANDOFF);\n\t\t}\n/ or die; s/if \(__mutex_trylock_or_handoff\(lock, first\)\)/if (__mutex_trylock(lock))/ or die'

# 2025: up() woke the waiter with wake_up_process() under sem->lock, which
# orders every semaphore's lock before the scheduler's pi_lock; printk()
# takes console_sem's lock under a run-queue lock, and try_to_wake_up()
# takes the run-queue lock under pi_lock: a cycle lockdep reported (a
# circular locking dependency through (console_sem).lock). The fix moved
# the wake-up out to a wake_q. Found by the lock-order checker, which has
# the scheduler's two orders as facts. The subject and the change were
# checked against a stored copy of the report and the shipped file; the
# mainline id is as remembered, not checked here.
bug semaphore-wake-under-lock semaphore.c 85b2b9c16d05 \
  "locking/semaphore: Use wake_q to wake up processes outside lock critical section" found \
  perl -0pe 's/static noinline void __up\(struct semaphore \*sem, struct wake_q_head \*wake_q\);/static noinline void __up(struct semaphore *sem);/ or die; s/\tDEFINE_WAKE_Q\(wake_q\);\n// or die; s/\t\t__up\(sem, &wake_q\);\n/\t\t__up(sem);\n/ or die; s/\tif \(!wake_q_empty\(&wake_q\)\)\n\t\twake_up_q\(&wake_q\);\n// or die; s/static noinline void __sched __up\(struct semaphore \*sem,\n\t\t\t\t  struct wake_q_head \*wake_q\)/static noinline void __sched __up(struct semaphore *sem)/ or die; s/\twake_q_add\(wake_q, waiter->task\);\n/\twake_up_process(waiter->task);\n/ or die'

# 2020: a reader counts itself in with __this_cpu_inc(), which is not
# interrupt-safe, while file_end_write() drops a read hold from an AIO
# completion's interrupt: an interrupt between the increment's load and
# store loses its decrement, the counts never sum to zero again, and the
# next writer waits for good. Reached only when explore lets an interrupt
# arrive there (--interrupts; the percpu-rwsem portfolio does). The id and
# subject were checked against the tip pull mail (locking_urgent_for_v5.9_rc6).
bug percpu-rwsem-irq-unsafe-count percpu-rwsem.c e6b1a44eccfc \
  "locking/percpu-rwsem: Use this_cpu_{inc,dec}() for read_count" found \
  sed 's/^\tthis_cpu_inc(\*sem->read_count);$/\t__this_cpu_inc(*sem->read_count);/; s/^\tthis_cpu_dec(\*sem->read_count);$/\t__this_cpu_dec(*sem->read_count);/'

# The controls: the files as shipped, through the same command.
if [ -z "${RWSTRESS_CORPUS_ONLY:-}" ]; then
  code=0
  "$bin" kernel --source "$tree" --cache "$kc" --files rwsem,mutex,qrwlock,percpu-rwsem --explore "${extra[@]}" \
    >"$out/shipped.out" 2>&1 || code=$?
  table+=("| (as shipped: rwsem, mutex, qrwlock, qspinlock, percpu-rwsem) | - | - | PASS | $([ $code = 0 ] && echo PASS || echo "exit $code") | - | - | - |")
  if [ $code != 0 ]; then
    tail -30 "$out/shipped.out"
    echo "kernel-corpus: the files as shipped did not pass (exit $code)"
    failed=1
  fi
fi

printf '%s\n' "${table[@]}"
[ -z "${RWSTRESS_CORPUS_TABLE:-}" ] || printf '%s\n' "${table[@]}" >"$RWSTRESS_CORPUS_TABLE"
exit $failed
