#!/usr/bin/env bash
# The kernel's own locking code, unchanged, as rwstress plugins, from every
# kernel series Debian serves: for each series (6.1 6.12 6.18 7.2 by
# default) fetches the newest linux source package of it that the archive
# hands out (share/rwstress/kernel-fetch.sh: apt-get source, into a cache of
# its own, the system's apt configuration untouched; the tarball is kept), takes
# kernel/locking/ out of it, and compiles at -Wall -Werror against the
# kernel-compat layer, with the glue files in share/rwstress/kernel-glue/:
#   semaphore.c; qrwlock.c with qspinlock.c;
#   rwsem.c without optimistic spinning, and with CONFIG_RWSEM_SPIN_ON_OWNER
#   and osq_lock.c (as x86 distributions build it); mutex.c likewise, with
#   and without CONFIG_MUTEX_SPIN_ON_OWNER; percpu-rwsem.c (its rcu_sync and
#   rcuwait on the layer's RCU, the host's liburcu).
# Then runs them: a main run, then validate. A file that does not compile
# is one line naming the tree, the file and the compiler's first error, and
# the script fails. Nothing of the kernel is committed to this repository.
#
#   scripts/kernel-upstream.sh RWSTRESS_BIN CFLAGS...
#
# CFLAGS: how to find the layer, e.g. "-Iinclude -Iinclude/rwstress/kernel-compat"
# or "$(pkg-config --cflags rwstress-kernel)". Environment:
#   RWSTRESS_KERNEL_CACHE   where the sources are kept (default build/kernel-src)
#   RWSTRESS_KERNEL_SERIES  the series to test (default "6.1 6.12 6.18 7.2")
#   RWSTRESS_LINUX_SRC      one kernel tree to use instead of fetching any
#   RWSTRESS_VALIDATE_TIME  validate's --time per lock (default 6s; none: no validate)
#   RWSTRESS_VALIDATE_SERIES the series whose files validate also runs (default
#                           "6.1 7.2", the oldest and the newest: the two
#                           between get the main run and the explore checks;
#                           a tree given by RWSTRESS_LINUX_SRC always does)
#   RWSTRESS_KERNEL_COMMAND 0: skip the rwstress kernel command checks (default 1)
#   RWSTRESS_KERNEL_EXPLORE build: compile the explore builds, search nothing
#                           (the install test's; default 1: compile and search)
# Exit 77 (a skipped test) when no source can be had (no network).
set -euo pipefail
bin=$(readlink -f "$1")
shift
cflags=("$@")
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/kernel-plants.sh"
cache=${RWSTRESS_KERNEL_CACHE:-$here/build/kernel-src}
mkdir -p "$cache"
validate_time=${RWSTRESS_VALIDATE_TIME:-6s}
validate_series=${RWSTRESS_VALIDATE_SERIES:-6.1 7.2}
tree_validate_time=$validate_time  # this tree's (check_tree's caller sets it per series)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0

# Compiles FILES... into OUT.so at -Werror; on failure, one line.
build() {
  local tree=$1 so=$2 what=$3
  shift 3
  if ! cc -shared -fPIC -O2 -Wall -Werror "${cflags[@]}" "$@" -o "$so" 2>"$out/cc.log"; then
    echo "kernel-upstream: $(basename "$tree"): $what does not compile against the layer:" \
         "$(grep -m1 -E 'error|undefined' "$out/cc.log" || head -1 "$out/cc.log")"
    return 1
  fi
}

# rwsem.c SRC with readers that steal the lock past HANDOFF and past other
# readers put back (the starvation "locking/rwsem: Prevent potential lock
# starvation" ended in 2019), written to DST; one line naming NAME and a
# failure where the file no longer has the shape both edits need.
plant_reader_steal() {
  local src=$1 dst=$2 name=$3
  sed -e 's/^\t    (rcnt > 1) \&\& !(count \& RWSEM_WRITER_LOCKED))$/\t    (rcnt > 1) \&\& 0)/' \
      -e 's/^\tif (!(count \& (RWSEM_WRITER_LOCKED | RWSEM_FLAG_HANDOFF))) {$/\tif (!(count \& RWSEM_WRITER_LOCKED)) {/' \
    "$src" >"$dst"
  if [ "$(diff "$src" "$dst" | grep -c '^>')" != 2 ]; then
    echo "kernel-upstream: $name: rwsem's reader lock stealing has a new shape; the check cannot plant its bug"
    return 1
  fi
}

# A bug planted by a perl program (-0pe) PROG: SRC edited into DST, which
# must differ from SRC in LINES diff lines; else one line naming NAME and
# WHAT (the part with a new shape) and a failure.
plant_perl() {
  local src=$1 dst=$2 name=$3 what=$4 lines=$5 prog=$6
  perl -0pe "$prog" "$src" >"$dst" 2>/dev/null || true  # (one that dies: a new shape, below)
  if [ "$(diff "$src" "$dst" | grep -c '^[<>]')" != "$lines" ]; then
    echo "kernel-upstream: $name: $what has a new shape; the check cannot plant its bug"
    return 1
  fi
}

# semaphore.c SRC whose down_trylock() takes sem->lock with interrupts on
# (raw_spin_lock, not irqsave), written to DST: up() may come from an
# interrupt handler, so that is lockdep's inconsistent lock state.
plant_irq_unsafe_trylock() {
  plant_perl "$1" "$2" "$3" "semaphore.c's down_trylock()" 4 \
    's/(int __sched down_trylock\(struct semaphore \*sem\)\n\{\n.*?)raw_spin_lock_irqsave\(&sem->lock, flags\);(.*?)raw_spin_unlock_irqrestore\(&sem->lock, flags\);/$1raw_spin_lock(&sem->lock); (void)flags;$2raw_spin_unlock(&sem->lock);/s'
}

# rwsem.c SRC with its reader paths preemptible (scripts/kernel-plants.sh),
# written to DST.
plant_preemptible_reader() {
  plant_perl "$1" "$2" "$3" "rwsem.c (its reader paths)" 8 "$PLANT_RWSEM_PREEMPTIBLE_READER"
}

check_tree() {
  local tree=$1 name locking major minor sub code
  name=$(basename "$tree")
  locking=$tree/kernel/locking
  major=$(sed -n 's/^VERSION = //p' "$tree/Makefile")
  minor=$(sed -n 's/^PATCHLEVEL = //p' "$tree/Makefile")
  sub=$(sed -n 's/^SUBLEVEL = //p' "$tree/Makefile")
  code=$(( (major << 16) + (minor << 8) + (sub > 255 ? 255 : sub) ))
  local v=(-DRWSTRESS_LINUX_VERSION_CODE=$code)
  echo "kernel-upstream: $locking ($name)"
  local ok=1
  build "$tree" "$out/semaphore.so" semaphore.c "${v[@]}" "$locking/semaphore.c" \
    "$here/share/rwstress/kernel-glue/upstream_semaphore.c" || ok=0
  build "$tree" "$out/qrwlock.so" "qrwlock.c + qspinlock.c" "${v[@]}" "$locking/qrwlock.c" \
    "$locking/qspinlock.c" "$here/share/rwstress/kernel-glue/upstream_qrwlock.c" || ok=0
  build "$tree" "$out/rwsem.so" rwsem.c "${v[@]}" "$locking/rwsem.c" \
    "$here/share/rwstress/kernel-glue/upstream_rwsem.c" || ok=0
  build "$tree" "$out/rwsem-spin.so" "rwsem.c + osq_lock.c (CONFIG_RWSEM_SPIN_ON_OWNER)" \
    "${v[@]}" -DCONFIG_RWSEM_SPIN_ON_OWNER=1 "$locking/rwsem.c" "$locking/osq_lock.c" \
    "$here/share/rwstress/kernel-glue/upstream_rwsem.c" || ok=0
  build "$tree" "$out/percpu-rwsem.so" percpu-rwsem.c "${v[@]}" "$locking/percpu-rwsem.c" \
    "$here/share/rwstress/kernel-glue/upstream_percpu_rwsem.c" || ok=0
  build "$tree" "$out/mutex.so" mutex.c "${v[@]}" "$locking/mutex.c" \
    "$here/share/rwstress/kernel-glue/upstream_mutex.c" || ok=0
  build "$tree" "$out/mutex-spin.so" "mutex.c + osq_lock.c (CONFIG_MUTEX_SPIN_ON_OWNER)" \
    "${v[@]}" -DCONFIG_MUTEX_SPIN_ON_OWNER=1 "$locking/mutex.c" "$locking/osq_lock.c" \
    "$here/share/rwstress/kernel-glue/upstream_mutex.c" || ok=0
  build "$tree" "$out/ww-mutex-spin.so" "mutex.c + osq_lock.c, its ww_mutex entry points" \
    "${v[@]}" -DCONFIG_MUTEX_SPIN_ON_OWNER=1 "$locking/mutex.c" "$locking/osq_lock.c" \
    "$here/share/rwstress/kernel-glue/upstream_ww_mutex.c" || ok=0
  if [ $ok = 0 ]; then
    failed=1
    return
  fi
  local plugins=(--plugin "$out/semaphore.so" --plugin "$out/qrwlock.so" --plugin "$out/rwsem.so"
                 --plugin "$out/rwsem-spin.so" --plugin "$out/mutex.so" --plugin "$out/mutex-spin.so"
                 --plugin "$out/percpu-rwsem.so" --plugin "$out/ww-mutex-spin.so")
  local locks=upstream-semaphore,upstream-qrwlock,upstream-qspinlock,upstream-rwsem,upstream-rwsem-spin
  locks+=,upstream-mutex,upstream-mutex-spin,upstream-percpu-rwsem
  locks+=,upstream-ww-mutex-spin,upstream-wd-mutex-spin
  if ! "$bin" "${plugins[@]}" --lock "$locks" --readers 4 --writers 2 --duration 1s; then
    echo "kernel-upstream: $name: the main run did not pass"
    failed=1
    return
  fi
  if [ "$tree_validate_time" != none ] &&
     ! "$bin" "${plugins[@]}" validate --lock "$locks" --time "$tree_validate_time"; then
    echo "kernel-upstream: $name: validate did not pass"
    failed=1
    return
  fi
  echo "kernel-upstream: $name: semaphore.c, qrwlock.c, qspinlock.c, rwsem.c and mutex.c (spinning on and off; mutex.c's ww_mutex too), percpu-rwsem.c compiled unchanged and passed"
  explore_tree "$tree" "${v[@]}"
}

# The same files built with the layer's scheduling points
# (-DRWSTRESS_KERNEL_EXPLORE), each lock explored: 300 PCT schedules at 3
# threads must PASS, the memory model's ordering check included
# (docs/explore.md); percpu-rwsem also at 5 threads with its read releases
# made in interrupts, qrwlock at 4 with every second read lock taken in
# one, semaphore with every second up() in one (--interrupts; the
# lock-order checker's interrupt-state rule sees sem->lock taken there).
explore_tree() {
  local tree=$1 name locking
  shift
  name=$(basename "$tree")
  locking=$tree/kernel/locking
  local glue=$here/share/rwstress/kernel-glue ok=1
  local x=($(grep -v '^#' "$glue/explore-cflags") "$@")
  build "$tree" "$out/x-semaphore.so" "semaphore.c (explore build)" "${x[@]}" "$locking/semaphore.c" \
    "$glue/upstream_semaphore.c" || ok=0
  build "$tree" "$out/x-qrwlock.so" "qrwlock.c + qspinlock.c (explore build)" "${x[@]}" \
    "$locking/qrwlock.c" "$locking/qspinlock.c" "$glue/upstream_qrwlock.c" || ok=0
  build "$tree" "$out/x-rwsem-spin.so" "rwsem.c + osq_lock.c (explore build)" "${x[@]}" \
    -DCONFIG_RWSEM_SPIN_ON_OWNER=1 "$locking/rwsem.c" "$locking/osq_lock.c" "$glue/upstream_rwsem.c" || ok=0
  build "$tree" "$out/x-mutex-spin.so" "mutex.c + osq_lock.c (explore build)" "${x[@]}" \
    -DCONFIG_MUTEX_SPIN_ON_OWNER=1 "$locking/mutex.c" "$locking/osq_lock.c" "$glue/upstream_mutex.c" || ok=0
  build "$tree" "$out/x-percpu-rwsem.so" "percpu-rwsem.c (explore build)" "${x[@]}" \
    "$locking/percpu-rwsem.c" "$glue/upstream_percpu_rwsem.c" || ok=0
  if [ $ok = 0 ]; then
    failed=1
    return
  fi
  if [ "${RWSTRESS_KERNEL_EXPLORE:-1}" = build ]; then
    echo "kernel-upstream: $name: the explore builds of the same files compiled (not explored: RWSTRESS_KERNEL_EXPLORE=build)"
    return
  fi
  local run
  for run in "semaphore upstream-semaphore --threads 3 --count 1" \
             "semaphore upstream-semaphore --threads 3 --count 1 --interrupts 2" \
             "qrwlock upstream-qrwlock --readers 2 --writers 1" \
             "qrwlock upstream-qrwlock --readers 2 --writers 2 --interrupts 2" \
             "qrwlock upstream-qspinlock --threads 3" \
             "rwsem-spin upstream-rwsem-spin --readers 1 --writers 2" \
             "rwsem-spin upstream-rwsem-spin --readers 1 --writers 2 --virtual-cpus 1 --rt-threads 1 --strategy random" \
             "mutex-spin upstream-mutex-spin --threads 3" \
             "mutex-spin upstream-mutex-spin --threads 3 --virtual-cpus 1 --rt-threads 1 --strategy random" \
             "percpu-rwsem upstream-percpu-rwsem --readers 2 --writers 1" \
             "percpu-rwsem upstream-percpu-rwsem --readers 3 --writers 2 --interrupts 2"; do
    set -- $run
    local so=$1 lock=$2
    shift 2
    if ! "$bin" --plugin "$out/x-$so.so" explore --lock "$lock" "$@" --schedules 300 --memory c11 \
      >"$out/explore.out" 2>&1; then
      tail -30 "$out/explore.out"
      echo "kernel-upstream: $name: explore did not pass $lock"
      failed=1
      return
    fi
  done
  # The hand-off locks' waits, judged in fair schedules (explore --fair):
  # as shipped, no waiter is starved.
  for run in "rwsem-spin upstream-rwsem-spin --readers 2 --writers 1 --time-jumps 2" \
             "mutex-spin upstream-mutex-spin --threads 3 --handoff-after 0"; do
    set -- $run
    local so=$1 lock=$2
    shift 2
    if ! "$bin" --plugin "$out/x-$so.so" explore --lock "$lock" "$@" --fair --ops 16 \
      --strategy random --schedules 200 >"$out/explore.out" 2>&1; then
      tail -30 "$out/explore.out"
      echo "kernel-upstream: $name: explore --fair did not pass $lock"
      failed=1
      return
    fi
  done
  # The glue's word on whom rwsem.c owes the lock (handoff_waiter: the
  # first waiter of this series' wait list, 7.2's first_waiter): with
  # readers that steal past HANDOFF put back (the 2019 starvation), PCT
  # without --fair must see a newcomer let past the waiter it names.
  mkdir -p "$out/steal"
  plant_reader_steal "$locking/rwsem.c" "$out/steal/rwsem.c" "$name" || { failed=1; return; }
  build "$tree" "$out/x-rwsem-steal.so" "rwsem.c with readers stealing past HANDOFF (explore build)" \
    "${x[@]}" -DCONFIG_RWSEM_SPIN_ON_OWNER=1 -I"$locking" "$out/steal/rwsem.c" "$locking/osq_lock.c" \
    "$glue/upstream_rwsem.c" || { failed=1; return; }
  local rc=0
  "$bin" --plugin "$out/x-rwsem-steal.so" explore --lock upstream-rwsem-spin --readers 2 --writers 1 \
    --ops 16 --strategy pct:depth=3 --time-jumps 2 --schedules 3000 >"$out/explore.out" 2>&1 || rc=$?
  if [ $rc != 5 ] || ! grep -q "the lock named this waiter the one it owes the lock next" "$out/explore.out"; then
    tail -30 "$out/explore.out"
    echo "kernel-upstream: $name: explore gave rwsem.c with readers stealing past HANDOFF exit $rc, not 5 (STARVED: a newcomer past the waiter the glue names)"
    failed=1
    return
  fi
  # The lock-order checker's interrupt-state rule on the kernel's own
  # file: semaphore.c whose down_trylock() takes sem->lock with interrupts
  # on, while up() comes from interrupt handlers (--interrupts), must FAIL
  # "inconsistent lock state".
  mkdir -p "$out/irq"
  plant_irq_unsafe_trylock "$locking/semaphore.c" "$out/irq/semaphore.c" "$name" || { failed=1; return; }
  build "$tree" "$out/x-semaphore-irq.so" "semaphore.c with an irq-unsafe down_trylock (explore build)" \
    "${x[@]}" -I"$locking" "$out/irq/semaphore.c" "$glue/upstream_semaphore.c" || { failed=1; return; }
  rc=0
  "$bin" --plugin "$out/x-semaphore-irq.so" explore --lock upstream-semaphore --threads 3 --count 1 \
    --interrupts 2 --schedules 300 >"$out/explore.out" 2>&1 || rc=$?
  if [ $rc != 1 ] || ! grep -q "inconsistent lock state: semaphore->lock was taken in an interrupt handler" "$out/explore.out"; then
    tail -30 "$out/explore.out"
    echo "kernel-upstream: $name: explore gave semaphore.c with an irq-unsafe down_trylock exit $rc, not 1 (FAIL: inconsistent lock state)"
    failed=1
    return
  fi
  # Priorities (explore --virtual-cpus, --rt-threads): rwsem.c whose
  # reader paths run with preemption on (the 2023 livelock put back) must
  # HANG, the reader preempted between its count and its owner mark and
  # the real-time writer spinning on the ownerless lock; as shipped it
  # passed above.
  mkdir -p "$out/rt"
  plant_preemptible_reader "$locking/rwsem.c" "$out/rt/rwsem.c" "$name" || { failed=1; return; }
  build "$tree" "$out/x-rwsem-rt.so" "rwsem.c with preemptible reader paths (explore build)" \
    "${x[@]}" -DCONFIG_RWSEM_SPIN_ON_OWNER=1 -I"$locking" "$out/rt/rwsem.c" "$locking/osq_lock.c" \
    "$glue/upstream_rwsem.c" || { failed=1; return; }
  rc=0
  "$bin" --plugin "$out/x-rwsem-rt.so" explore --lock upstream-rwsem-spin --readers 1 --writers 2 \
    --virtual-cpus 1 --rt-threads 1 --strategy random --schedules 300 >"$out/explore.out" 2>&1 || rc=$?
  if [ $rc != 3 ] || ! grep -q "preempted" "$out/explore.out"; then
    tail -30 "$out/explore.out"
    echo "kernel-upstream: $name: explore gave rwsem.c with preemptible reader paths exit $rc, not 3 (HANG: a reader kept off its CPU by a real-time writer)"
    failed=1
    return
  fi
  # Searches that once gave a false verdict on linux 6.12's files as
  # shipped, when rwstress kernel --explore first ran them with more seeds:
  # PCT keeping a writer that retries (HANDOFF set, the owner not yet
  # stored) above the new owner it waits for (a HANG: the fair tail of a
  # long schedule ended it); a waker's failed wake_q_add() with no barrier
  # (a lost wake-up the kernel's smp_mb__before_atomic() rules out); a
  # waiter sent a fatal signal, already off the queue, still counted as
  # waiting (a FIFO FAIL, at seed 1 by signal_pending_state(), at seed 2
  # by a spurious wake of its killable sleep); and a read-side section
  # begun while the updater stood at synchronize_rcu()'s point, not waited
  # for (percpu-rwsem.c: a HANG at schedule 12,046 of bound 3). Each must
  # PASS.
  for run in "rwsem-spin upstream-rwsem-spin 1 3000 --readers 1 --writers 2 --strategy pct:depth=3 --time-jumps 2" \
             "semaphore upstream-semaphore 1 3000 --threads 3 --count 1 --strategy pct:depth=5 --signals" \
             "semaphore upstream-semaphore 2 3000 --threads 3 --count 1 --strategy pct:depth=5 --signals" \
             "percpu-rwsem upstream-percpu-rwsem 0 15000 --readers 1 --writers 1 --strategy exhaustive:preemptions=3 --stale-reads 1"; do
    set -- $run
    local so=$1 lock=$2 seed=$3 schedules=$4
    shift 4
    if ! "$bin" --plugin "$out/x-$so.so" explore --lock "$lock" "$@" --seed "$seed" \
      --schedules "$schedules" --memory c11 >"$out/explore.out" 2>&1; then
      tail -30 "$out/explore.out"
      echo "kernel-upstream: $name: explore did not pass $lock at seed $seed ($*)"
      failed=1
      return
    fi
  done
  echo "kernel-upstream: $name: the explore builds of the same files passed 300 PCT schedules each, under the memory model (--memory c11; percpu-rwsem.c also with its read releases in interrupts, qrwlock.c with readers and semaphore.c with up() in interrupts), and the seeds that once gave false verdicts; rwsem.c and mutex.c starved no waiter in 200 fair schedules (--fair); rwsem.c with readers stealing past HANDOFF was STARVED; semaphore.c with an irq-unsafe down_trylock was an inconsistent lock state; rwsem.c and mutex.c passed with a real-time thread on one CPU, and rwsem.c with preemptible reader paths was a livelock there"
}

# The patch that plants a bug: DIR/b/FILE (the planted copy) against
# DIR/a/FILE, into PATCH; when the plant changed nothing (the file has a
# new shape), one line naming WHAT, and failure.
planted() {
  local dir=$1 file=$2 patch=$3 what=$4 tree=$5
  (cd "$dir" && diff -u "a/$file" "b/$file" >"$patch") || true
  if [ ! -s "$patch" ]; then
    echo "kernel-upstream: $(basename "$tree"): $what has a new shape; the check cannot plant its bug"
    failed=1
    return 1
  fi
}

# rwstress kernel on TREE, end to end: a verdict from the tree; the same
# plugin again from the cache; a bug put back by a patch (readers admitted
# whatever the count says) is a FAIL, readers that steal past HANDOFF are
# STARVED; a bug in semaphore.c's bail-out path is
# caught by the signal injector; a patch that breaks the build is exit 125
# (git bisect run: skip); --version finds the tree in the cache.
check_command() {
  local tree=$1 series=$2 kc=$out/kernel-cache rc
  mkdir -p "$kc" "$out/pt/a/kernel/locking" "$out/pt/b/kernel/locking"
  local vtime=5s
  expect() {  # WANT_RC WHAT ARGS... (validate --time $vtime)
    local want=$1 what=$2
    shift 2
    rc=0
    "$bin" kernel --files rwsem --time "$vtime" --cache "$kc" "$@" >"$out/kernel.out" 2>&1 || rc=$?
    if [ $rc != "$want" ]; then
      tail -20 "$out/kernel.out"
      echo "kernel-upstream: rwstress kernel ($what) exited $rc, not $want"
      failed=1
      return 1
    fi
  }
  expect 0 "the tree as it is" --source "$tree" || return
  grep -q "built .*\.so" "$out/kernel.out" || { echo "kernel-upstream: rwstress kernel built nothing"; failed=1; }
  expect 0 "again, from the cache" --source "$tree" || return
  grep -q "is cached" "$out/kernel.out" || { echo "kernel-upstream: rwstress kernel did not reuse its plugin"; failed=1; }
  cp "$tree/kernel/locking/rwsem.c" "$out/pt/a/kernel/locking/"
  sed 's/^\tif (!(\*cntp & RWSEM_READ_FAILED_MASK)) {$/\tif (1) {/' "$tree/kernel/locking/rwsem.c" \
    >"$out/pt/b/kernel/locking/rwsem.c"
  planted "$out/pt" kernel/locking/rwsem.c "$out/bug.patch" rwsem_read_trylock "$tree" || return
  expect 1 "a reader-admission bug put back" --source "$tree" --patch "$out/bug.patch" || return
  # Readers that steal the lock past HANDOFF and past other readers: safe,
  # so only the hand-off promise catches it, STARVED (5).
  plant_reader_steal "$tree/kernel/locking/rwsem.c" "$out/pt/b/kernel/locking/rwsem.c" \
    "$(basename "$tree")" || { failed=1; return; }
  (cd "$out/pt" && diff -u a/kernel/locking/rwsem.c b/kernel/locking/rwsem.c >"$out/steal.patch") || true
  # A run on a machine busy with other programs (meson runs tests two at a
  # time) is reported but not judged, and passes: up to three tries.
  local try
  for try in 1 2 3; do
    rc=0
    "$bin" kernel --files rwsem --time 20s --cache "$kc" --source "$tree" --patch "$out/steal.patch" \
      >"$out/kernel.out" 2>&1 || rc=$?
    [ $rc = 0 ] || break
  done
  if [ $rc != 5 ]; then
    tail -20 "$out/kernel.out"
    echo "kernel-upstream: rwstress kernel gave readers stealing past HANDOFF exit $rc in $try tries, not 5 (STARVED)"
    failed=1
  fi
  sed 's/^\tif (!(\*cntp & RWSEM_READ_FAILED_MASK)) {$/\tif (no_such_identifier) {/' \
    "$tree/kernel/locking/rwsem.c" >"$out/pt/b/kernel/locking/rwsem.c"
  (cd "$out/pt" && diff -u a/kernel/locking/rwsem.c b/kernel/locking/rwsem.c >"$out/build.patch") || true
  expect 125 "a patch that breaks the build" --source "$tree" --patch "$out/build.patch" || return
  # A bug in a bail-out path (semaphore.c's interrupted: no longer unlinks
  # the waiter) shows only when a signal interrupts a killable wait.
  mkdir -p "$out/ps/a/kernel/locking" "$out/ps/b/kernel/locking"
  cp "$tree/kernel/locking/semaphore.c" "$out/ps/a/kernel/locking/"
  awk '/^ interrupted:/ { print; getline; if ($0 ~ /list_del|sem_del_waiter/) next } { print }' \
    "$tree/kernel/locking/semaphore.c" >"$out/ps/b/kernel/locking/semaphore.c"
  planted "$out/ps" kernel/locking/semaphore.c "$out/sem.patch" "semaphore.c's interrupted: path" \
    "$tree" || return
  rc=0
  "$bin" kernel --files semaphore --time 6s --cache "$kc" --source "$tree" --patch "$out/sem.patch" \
    >"$out/kernel.out" 2>&1 || rc=$?
  case $rc in
    1|3|4) grep -q "inject signal  *\(FAIL\|HANG\|CRASH\)" "$out/kernel.out" || {
             echo "kernel-upstream: the interrupted-path bug was caught, but not by inject signal"; failed=1; } ;;
    *) tail -20 "$out/kernel.out"
       echo "kernel-upstream: rwstress kernel passed semaphore.c with its interrupted path broken (exit $rc)"
       failed=1 ;;
  esac
  # explore: the files as they are come out PASS; a lost wake-up put back
  # into semaphore.c (the waiter drops the lock before it sets its sleeping
  # state) is a deadlock found by explore alone (--no-validate).
  rc=0
  "$bin" kernel --files semaphore,qrwlock --explore --no-validate --explore-schedules 500 \
    --cache "$kc" --source "$tree" >"$out/kernel.out" 2>&1 || rc=$?
  if [ $rc != 0 ]; then
    tail -30 "$out/kernel.out"
    echo "kernel-upstream: rwstress kernel --explore did not pass semaphore.c, qrwlock.c, qspinlock.c as shipped (exit $rc)"
    failed=1
  fi
  awk '/^\t\t__set_current_state\(state\);$/ { held = $0; next }
       held != "" && /raw_spin_unlock_irq\(&sem->lock\);/ { print; print held; held = ""; next }
       { if (held != "") { print held; held = "" } print }' \
    "$tree/kernel/locking/semaphore.c" >"$out/ps/b/kernel/locking/semaphore.c"
  planted "$out/ps" kernel/locking/semaphore.c "$out/wake.patch" "semaphore.c's sleep loop" \
    "$tree" || return
  rc=0
  "$bin" kernel --files semaphore --explore --no-validate --explore-time 60s --cache "$kc" \
    --source "$tree" --patch "$out/wake.patch" >"$out/kernel.out" 2>&1 || rc=$?
  if [ $rc != 3 ] || ! grep -q "task.__state at schedule(): asleep" "$out/kernel.out"; then
    tail -30 "$out/kernel.out"
    echo "kernel-upstream: rwstress kernel --explore gave semaphore.c with a lost wake-up put back exit $rc, not 3 (HANG) with the sleeper named"
    failed=1
  fi
  # Missing ACQUIREs put back (explore's memory model, --memory c11, which
  # rwstress kernel --explore runs; x86 never shows them): rwsem.c's reader
  # sleep loop reading waiter.task with READ_ONCE (fixed in 2019 by
  # "locking/rwsem: Add missing ACQUIRE to read_slowpath sleep loop"), and
  # qrwlock.c's write slow path taking the lock with a relaxed cmpxchg. Each
  # is an ordering FAIL (and a third below).
  local plant
  mkdir -p "$out/pq/a/kernel/locking" "$out/pq/b/kernel/locking"
  cp "$tree/kernel/locking/qrwlock.c" "$out/pq/a/kernel/locking/"
  sed 's/^\t\tif (!smp_load_acquire(&waiter.task)) {$/\t\tif (!READ_ONCE(waiter.task)) {/' \
    "$tree/kernel/locking/rwsem.c" >"$out/pt/b/kernel/locking/rwsem.c"
  planted "$out/pt" kernel/locking/rwsem.c "$out/acquire.patch" "rwsem.c's reader sleep loop" \
    "$tree" || return
  sed 's/^\t} while (!atomic_try_cmpxchg_acquire(&lock->cnts, &cnts, _QW_LOCKED));$/\t} while (!atomic_try_cmpxchg_relaxed(\&lock->cnts, \&cnts, _QW_LOCKED));/' \
    "$tree/kernel/locking/qrwlock.c" >"$out/pq/b/kernel/locking/qrwlock.c"
  planted "$out/pq" kernel/locking/qrwlock.c "$out/qrw.patch" "qrwlock.c's write slow path" \
    "$tree" || return
  # rwsem.c's reader leaving the slow path when the queue is empty, without
  # the smp_acquire__after_ctrl_dep() after its count check (fixed in 2019
  # by "locking/rwsem: Add missing ACQUIRE to read_slowpath exit when queue
  # is empty").
  awk '{ print } /^\t\t\t\/\* Provide lock ACQUIRE \*\/$/ { getline; if ($0 !~ /smp_acquire__after_ctrl_dep/) print }' \
    "$tree/kernel/locking/rwsem.c" >"$out/pt/b/kernel/locking/rwsem.c"
  planted "$out/pt" kernel/locking/rwsem.c "$out/qempty.patch" "rwsem.c's queue-empty exit" \
    "$tree" || return
  # FILES PATCH SCHEDULES WANT_RC PATTERN WHAT: rwstress kernel --explore
  # on the planted tree must exit WANT_RC with PATTERN in its output.
  explored_plant() {
    rc=0
    "$bin" kernel --files "$1" --explore --no-validate --explore-schedules "$3" --cache "$kc" \
      --source "$tree" --patch "$2" >"$out/kernel.out" 2>&1 || rc=$?
    if [ $rc != "$4" ] || ! grep -q "$5" "$out/kernel.out"; then
      tail -30 "$out/kernel.out"
      echo "kernel-upstream: rwstress kernel --explore gave $1 with $6 exit $rc, not $4 with \"$5\""
      failed=1
    fi
  }
  for plant in "rwsem $out/acquire.patch" "qrwlock $out/qrw.patch" "rwsem $out/qempty.patch"; do
    set -- $plant
    explored_plant "$1" "$2" 500 1 "^  ordering (thread" "a missing ACQUIRE put back"
  done
  # Node initialisation published too early (explore's plain stores, the
  # explore build's instrumented `node->locked = 0`): qspinlock.c without
  # the smp_wmb() before xchg_tail() (the node-publication fix of 2018), and
  # osq_lock.c publishing its node with an ACQUIRE-only xchg (its comment
  # asks for RELEASE too). Each is a HANG: the predecessor's hand-off lands
  # before the node's initialisation, which overwrites it.
  mkdir -p "$out/pn/a/kernel/locking" "$out/pn/b/kernel/locking"
  cp "$tree/kernel/locking/qspinlock.c" "$tree/kernel/locking/osq_lock.c" "$out/pn/a/kernel/locking/"
  awk '/^\tsmp_wmb\(\);$/ && !done { done = 1; next } { print }' \
    "$tree/kernel/locking/qspinlock.c" >"$out/pn/b/kernel/locking/qspinlock.c"
  planted "$out/pn" kernel/locking/qspinlock.c "$out/node.patch" "qspinlock.c's node publication" \
    "$tree" || return
  cp "$tree/kernel/locking/qspinlock.c" "$out/pn/b/kernel/locking/"
  sed 's/^\told = atomic_xchg(&lock->tail, curr);$/\told = atomic_xchg_acquire(\&lock->tail, curr);/' \
    "$tree/kernel/locking/osq_lock.c" >"$out/pn/b/kernel/locking/osq_lock.c"
  planted "$out/pn" kernel/locking/osq_lock.c "$out/osq.patch" "osq_lock.c's node publication" \
    "$tree" || return
  # (osq_lock.c's: random schedule 1,153 on 7.2.8, seed 0; PCT misses it.)
  explored_plant qrwlock "$out/node.patch" 2000 3 "placed before the latest store" \
    "its node published too early"
  explored_plant mutex "$out/osq.patch" 5000 3 "placed before the latest store" \
    "its node published too early"
  # Store buffering: percpu-rwsem.c's reader slow path without the smp_mb()
  # between its this_cpu_inc() and its look at sem->block (A matches D):
  # the reader and the writer each miss the other (the writer's per-CPU sum
  # is plain loads, which the explore build's instrumentation hands to the
  # model). A FAIL: two holders, or a reader without the writer's data.
  mkdir -p "$out/pp/a/kernel/locking" "$out/pp/b/kernel/locking"
  cp "$tree/kernel/locking/percpu-rwsem.c" "$out/pp/a/kernel/locking/"
  sed '/^\tsmp_mb(); \/\* A matches D \*\/$/d' "$tree/kernel/locking/percpu-rwsem.c" \
    >"$out/pp/b/kernel/locking/percpu-rwsem.c"
  planted "$out/pp" kernel/locking/percpu-rwsem.c "$out/sb.patch" "percpu-rwsem.c's reader fence" \
    "$tree" || return
  explored_plant percpu-rwsem "$out/sb.patch" 2000 1 "^  \(ordering\|writer-exclusion\|reader-exclusion\) (thread" \
    "its reader's smp_mb() taken out"
  # The 5.18 shape: rwsem.c's out_nolock no longer wakes the waiters behind
  # a killed first waiter. validate's timed runs have not caught it; explore
  # with fatal signals (spurious wake-ups, signal checks) does (a HANG), in
  # the default configuration too, where writers spin on the owner: a tick
  # at a spinner's need_resched() sends it to sleep while the owner runs.
  sed 's/^\tif (rwsem_del_waiter(sem, waiter) \&\& first)$/\tif (rwsem_del_waiter(sem, waiter) \&\& first \&\& 0)/' \
    "$tree/kernel/locking/rwsem.c" >"$out/pt/b/kernel/locking/rwsem.c"
  planted "$out/pt" kernel/locking/rwsem.c "$out/nolock.patch" "rwsem.c's out_nolock wake" \
    "$tree" || return
  # rwstress kernel --explore on rwsem.c with PATCH must HANG (exit 3)
  # and print SEEN.
  explore_hangs() {  # PATCH WHAT SEEN
    rc=0
    "$bin" kernel --files rwsem --explore --no-validate --explore-time 60s --cache "$kc" \
      --source "$tree" --patch "$1" >"$out/kernel.out" 2>&1 || rc=$?
    if [ $rc != 3 ] || ! grep -qF -- "$3" "$out/kernel.out"; then
      tail -30 "$out/kernel.out"
      echo "kernel-upstream: rwstress kernel --explore gave rwsem.c $2 exit $rc, not 3 (HANG) with \"$3\""
      failed=1
    fi
  }
  explore_hangs "$out/nolock.patch" "without its out_nolock wake-up" "HANG at schedule"
  # A bug behind time: the writer that takes the lock in
  # rwsem_try_write_lock() without clearing HANDOFF. HANDOFF is set only
  # after RWSEM_WAIT_TIMEOUT (4 jiffies) of waiting, which a schedule's
  # microsecond steps never reach; the --time-jumps shapes of rwstress
  # kernel --explore do (a HANG: the bit left set keeps everyone out).
  awk 'done == 0 && /^\t\t\tnew &= ~RWSEM_FLAG_HANDOFF;$/ { done = 1; next } { print }' \
    "$tree/kernel/locking/rwsem.c" >"$out/pt/b/kernel/locking/rwsem.c"
  planted "$out/pt" kernel/locking/rwsem.c "$out/handoff.patch" "rwsem.c's HANDOFF clear" \
    "$tree" || return
  explore_hangs "$out/handoff.patch" "keeping HANDOFF set" "(time jumps: +20ms"
  ln -sfn "$cache" "$kc/src"
  expect 0 "--version $series from the cache" --version "$series" || return
  echo "kernel-upstream: rwstress kernel on $(basename "$tree"): PASS as shipped, cached on a rerun, FAIL with a bug put back, STARVED with readers stealing past HANDOFF, a broken interrupted path caught by inject signal, a lost wake-up, an out_nolock without its wake-up, a HANDOFF left set (behind a time jump), three missing ACQUIREs, two nodes published too early and a missing smp_mb() (store buffering) found by --explore, 125 when it does not build"
}

if [ -n "${RWSTRESS_LINUX_SRC:-}" ]; then
  check_tree "$(cd "$RWSTRESS_LINUX_SRC" && pwd)"
else
  fetched=0
  for series in ${RWSTRESS_KERNEL_SERIES:-6.1 6.12 6.18 7.2}; do
    rc=0
    tree=$("$here/share/rwstress/kernel-fetch.sh" "$series" "$cache") || rc=$?
    case $rc in
      0) fetched=1
         case " $validate_series " in
           *" $series "*) tree_validate_time=$validate_time ;;
           *) tree_validate_time=none ;;
         esac
         check_tree "$tree"; last_tree=$tree; last_series=$series ;;
      77) echo "kernel-upstream: linux $series: the archive cannot be reached" ;;
      *) echo "kernel-upstream: linux $series: no source could be fetched (see $cache/fetch.log)"
         failed=1 ;;
    esac
  done
  if [ $fetched = 0 ] && [ $failed = 0 ]; then
    echo "kernel-upstream: SKIPPED: cannot fetch Debian's linux source (see $cache/fetch.log)"
    exit 77
  fi
  [ $fetched = 1 ] && [ "${RWSTRESS_KERNEL_COMMAND:-1}" = 1 ] && check_command "$last_tree" "$last_series"
fi
exit $failed
