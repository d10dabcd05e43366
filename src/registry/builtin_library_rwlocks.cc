// The reader-writer locks of other libraries: liburcu, glibc, libstdc++,
// abseil, Concurrency Kit.
// The table is split in four files so that its template instances (every
// runner of every lock) compile side by side; registry.cc joins them in
// this order.
#include "registry/builtin.h"

#include "locks/rwlock/absl_rwmutex.h"
#include "locks/rwlock/ck_rwlocks.h"
#include "locks/rwlock/pthread_rwlock.h"
#include "locks/rwlock/std_shared_mutex.h"
#include "locks/rwlock/urcu_reference.h"
#include "registry/lock_entry.h"

namespace rwstress {

namespace {

using namespace lock_entry;  // rwlock<L>(...), semaphore<L>(...), mutex<L>(...)

constexpr LockEntry kLocks[] = {
    rwlock<UrcuReference>("urcu", Fairness::kReaderPref,
                          "RCU reference on liburcu-memb: readers never wait, writers publish + "
                          "synchronize_rcu/call_rcu"),
    rwlock<PthreadRwlock>("pthread-rwlock", Fairness::kReaderPref,
                          "glibc pthread_rwlock_t, default attributes (prefer reader)"),
    rwlock<StdSharedMutex>("std-shared-mutex", Fairness::kReaderPref,
                           "libstdc++ std::shared_mutex (on pthread_rwlock_t)"),
    rwlock<PthreadRwlockPreferWriter>("pthread-rwlock-wp", Fairness::kWriterPref,
                                      "glibc pthread_rwlock_t, "
                                      "PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP"),
    rwlock<AbslRwMutex>("absl-mutex-rw", Fairness::kWriterPref,
                        "abseil absl::Mutex, ReaderLock/Lock, deadlock detection off"),
    rwlock<CkRwlock>("ck-rwlock", Fairness::kWriterPref, "Concurrency Kit ck_rwlock"),
    rwlock<CkPflock>("ck-pflock", Fairness::kPhaseFair, "Concurrency Kit ck_pflock (phase-fair)"),
    rwlock<CkTflock>("ck-tflock", Fairness::kTaskFair, "Concurrency Kit ck_tflock (task-fair)"),
};

}  // namespace

std::span<const LockEntry> library_rwlocks() { return kLocks; }

}  // namespace rwstress
