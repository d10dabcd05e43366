// The counting semaphores and the mutexes and spinlocks of the built-in table.
// The table is split in four files so that its template instances (every
// runner of every lock) compile side by side; registry.cc joins them in
// this order.
#include "registry/builtin.h"

#include "locks/mutex/bkl.h"
#include "locks/mutex/ck_spinlocks.h"
#include "locks/mutex/clh.h"
#include "locks/mutex/library_mutexes.h"
#include "locks/mutex/mcs.h"
#include "locks/mutex/qspinlock.h"
#include "locks/mutex/tas.h"
#include "locks/mutex/ticket.h"
#include "locks/mutex/ttas_backoff.h"
#include "locks/semaphore/kernel_semaphore.h"
#include "locks/semaphore/library_semaphores.h"
#include "locks/semaphore/sem_i386.h"
#include "registry/lock_entry.h"

namespace rwstress {

namespace {

using namespace lock_entry;  // rwlock<L>(...), semaphore<L>(...), mutex<L>(...)

constexpr LockEntry with_known_issue(LockEntry e, std::string_view issue) {
  e.meta.known_issue = issue;
  return e;
}

constexpr LockEntry kLocks[] = {
    semaphore<SemI386<>>("sem-i386", Fairness::kUnfair,
                         "Linux 2.4 i386 semaphore: count + sleepers, wake passes the baton"),
    semaphore<KernelSemaphore<>>("kernel-sem", Fairness::kTaskFair,
                                 "Linux 2.6.26+ kernel/locking/semaphore.c: spinlock, count, "
                                 "FIFO list, direct hand-off in up"),
    semaphore<PosixSemaphore>("posix-sem", Fairness::kUnfair, "glibc POSIX sem_t"),
    with_known_issue(
        semaphore<StdCountingSemaphore>("std-counting-semaphore", Fairness::kUnfair,
                                        "libstdc++ C++20 std::counting_semaphore"),
        "libstdc++ 12 lost wake-up: release() skips the notify while the count is positive, and "
        "a concurrent acquire whose CAS failed can sleep forever (GCC PR 104928, PR 98033). "
        "Suspected in one HANG in about 12 runs of tests/test_locks; not reproduced in 50 "
        "targeted runs"),
    semaphore<AbslSemaphore>("absl-sem", Fairness::kUnfair,
                             "count under absl::Mutex, down waits on an absl::Condition"),

    mutex<TasSpinlock<>>("tas", Fairness::kUnfair, "test-and-set spinlock"),
    mutex<TtasBackoffSpinlock<>>("ttas-backoff", Fairness::kUnfair,
                                 "test-and-test-and-set, exponential backoff (Anderson 1990)"),
    mutex<TicketSpinlock<>>("ticket", Fairness::kTaskFair,
                            "ticket spinlock (Mellor-Crummey & Scott 1991; Linux x86 2.6.25)"),
    mutex<McsSpinlock<>>("mcs", Fairness::kTaskFair, "MCS queue lock (Mellor-Crummey & Scott 1991)"),
    mutex<ClhSpinlock<>>("clh", Fairness::kTaskFair,
                         "CLH queue lock (Craig 1993; Magnusson, Landin & Hagersten 1994)"),
    mutex<QSpinlock<>>("qspinlock", Fairness::kUnfair,
                       "Linux 4.2+ queued spinlock: locked byte, pending bit, MCS tail"),
    mutex<BigKernelLock<>>("bkl", Fairness::kUnfair,
                           "Linux 2.2/2.4 big kernel lock: recursive, dropped around sleeps"),
    mutex<SemaphoreAsMutex<SemI386<>>>("sem-mutex", Fairness::kUnfair,
                                       "sem-i386 with count 1 used as a mutex (the 2000 BKL report)"),
    mutex<PthreadSpinlock>("pthread-spinlock", Fairness::kUnfair, "glibc pthread_spinlock_t"),
    mutex<PthreadMutex>("pthread-mutex", Fairness::kUnfair,
                        "glibc pthread_mutex_t, default attributes"),
    mutex<StdMutex>("std-mutex", Fairness::kUnfair, "libstdc++ std::mutex"),
    mutex<AbslMutex>("absl-mutex", Fairness::kUnfair, "abseil absl::Mutex, deadlock detection off"),
    mutex<CkTicket>("ck-ticket", Fairness::kTaskFair, "Concurrency Kit ck_spinlock_ticket"),
    mutex<CkFas>("ck-fas", Fairness::kUnfair, "Concurrency Kit ck_spinlock_fas"),
    mutex<CkCas>("ck-cas", Fairness::kUnfair, "Concurrency Kit ck_spinlock_cas"),
    mutex<CkFasEb>("ck-fas-eb", Fairness::kUnfair,
                   "Concurrency Kit ck_spinlock_fas, exponential backoff (ck's benchmark's)"),
    mutex<CkCasEb>("ck-cas-eb", Fairness::kUnfair,
                   "Concurrency Kit ck_spinlock_cas, exponential backoff (ck's benchmark's)"),
    mutex<CkMcs>("ck-mcs", Fairness::kTaskFair, "Concurrency Kit ck_spinlock_mcs (C wrapper)"),
    mutex<CkClh>("ck-clh", Fairness::kTaskFair, "Concurrency Kit ck_spinlock_clh (C wrapper)"),
    mutex<CkAnderson>("ck-anderson", Fairness::kTaskFair,
                      "Concurrency Kit ck_spinlock_anderson (array lock, Anderson 1990)"),
};

}  // namespace

std::span<const LockEntry> semaphores_and_mutexes() { return kLocks; }

}  // namespace rwstress
