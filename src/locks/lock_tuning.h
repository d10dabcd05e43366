// Run-time fairness knobs of the locks that have them (DESIGN.md §3; the
// fault-injection issue's "fairness tweaks"). A lock that takes a
// LockTuning in its constructor reads it once there; the others ignore it.
#pragma once

namespace rwstress {

struct LockTuning {
  // Modern rwsem: a waiter that has waited longer than handoff_after_us sets
  // the HANDOFF bit, after which nobody may steal the lock from it.
  bool handoff = true;
  int handoff_after_us = 4000;  // the kernel's RWSEM_WAIT_TIMEOUT: 4 ms
  // Modern rwsem: a reader arriving while others read may take the lock
  // even if writers wait (reader lock stealing).
  bool reader_steal = true;
  // Spin-before-sleep limit of the optimistic spinners (modern rwsem,
  // kernel semaphore's fast retry): turns of cpu_relax on one owner, the
  // userspace stand-in for the kernel's "while owner->on_cpu".
  int spin_limit = 2000;
  // XADD rwsem (xadd): wake every queued reader when the head is a reader
  // (the slightly-unfair wake of the 2001 rwsem benchmark), instead of the head run.
  bool xadd_unfair_wake = false;
  // XADD rwsem: a waker that backs out of its 0 -> 1 claim retries only if
  // the whole count went to 0, as 2.4.4's lib/rwsem.c did; that count is
  // never 0 while anyone waits, so a holder that left while the claim was
  // up strands the queue until the next locker arrives (off: retry whenever
  // the active part is 0, which closes the strand).
  bool xadd_original_retry = false;
};

}  // namespace rwstress
