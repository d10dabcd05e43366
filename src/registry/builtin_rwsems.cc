// The kernel-style reader-writer locks of the built-in table: the 2001 rwsems,
// today's rwsem.c, qrwlock, percpu-rwsem, the ticket and preference rwlocks.
// The table is split in four files so that its template instances (every
// runner of every lock) compile side by side; registry.cc joins them in
// this order.
#include "registry/builtin.h"

#include "locks/rwlock/brlock.h"
#include "locks/rwlock/fair_rwlocks.h"
#include "locks/rwlock/percpu_rwsem.h"
#include "locks/rwlock/pref_rwlocks.h"
#include "locks/rwlock/qrwlock.h"
#include "locks/rwlock/rwsem_aa.h"
#include "locks/rwlock/rwsem_linux.h"
#include "locks/rwlock/rwsem_spinlock.h"
#include "locks/rwlock/rwsem_xadd.h"
#include "registry/lock_entry.h"

namespace rwstress {

namespace {

using namespace lock_entry;  // rwlock<L>(...), semaphore<L>(...), mutex<L>(...)

constexpr LockEntry kLocks[] = {
    // Unfair, not reader-preference: a woken reader is not handed the lock,
    // so a writer that keeps its CPU re-takes it before any woken reader
    // runs (docs/locks.md: 3 readers asleep through a 500 ms run on 1 CPU).
    rwlock<RwsemAa<>>("aa-rwsem", Fairness::kUnfair,
                      "Linux 2.4.4-pre3 + Andrea Arcangeli's rwsem-generic (April 2001, as "
                      "benchmarked): recursive down_read, two wait queues, wake and re-check"),
    rwlock<RwsemAaFair<>>("aa-rwsem-fair", Fairness::kTaskFair,
                          "Andrea Arcangeli's rwsem-fair-20 (September 2001, on 2.4.10-pre12): "
                          "sleepers' bias left in the count, FIFO, woken sleeper re-takes the lock"),
    rwlock<RwsemXadd<>>("xadd", Fairness::kTaskFair,
                        "XADD rwsem, David Howells' April 2001 series on Linux 2.4.4-pre6 (i386 count layout)"),
    rwlock<RwsemXaddUnfair<>>("xadd-unfair", Fairness::kUnfair,
                              "xadd with the slightly-unfair wake: all queued readers granted "
                              "together (as Linux 3.10)"),
    rwlock<RwsemSpinlock<>>("generic-spin", Fairness::kTaskFair,
                            "Linux 2.4.4-pre4 lib/rwsem-spinlock.c, David Howells"),
    rwlock<LinuxRwsem<>>("linux-rwsem", Fairness::kHandoff,
                         "Linux 6.1 kernel/locking/rwsem.c: WRITER_LOCKED/WAITERS/HANDOFF, OSQ "
                         "optimistic spinning, reader stealing (knobs: --rwsem-*)"),
    rwlock<QRwlock<>>("qrwlock", Fairness::kTaskFair,
                      "Linux 3.16+ queued rwlock: count word + qspinlock wait queue"),
    rwlock<PercpuRwsem<>>("percpu-rwsem", Fairness::kUnfair,
                          "Linux percpu-rwsem as of 5.8: per-CPU reader counts, one FIFO wait queue "
                          "with hand-off, block by xchg, rcu_sync (membarrier) per writer burst"),
    rwlock<PhaseFairRwlock<>>("phase-fair", Fairness::kPhaseFair,
                              "phase-fair ticket rwlock PF-T (Brandenburg & Anderson 2010)"),
    rwlock<TaskFairRwlock<>>("task-fair", Fairness::kTaskFair,
                             "fair reader-writer ticket lock (Mellor-Crummey & Scott 1991)"),
    rwlock<ReaderPrefRwlock<>>("reader-pref", Fairness::kReaderPref,
                               "reader-preference rwlock (classic Linux arch rwlock_t)"),
    rwlock<WriterPrefRwlock<>>("writer-pref", Fairness::kWriterPref,
                               "writer-preference rwlock (Courtois, Heymans & Parnas 1971)"),
    rwlock<BigReaderLock<>>("brlock", Fairness::kUnfair,
                            "big-reader lock: per-CPU reader spinlocks, writer takes all (Linux 2.4)"),
};

}  // namespace

std::span<const LockEntry> kernel_style_rwlocks() { return kLocks; }

}  // namespace rwstress
