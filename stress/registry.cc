#include "stress/registry.h"

#include <algorithm>

#include "locks/rwlock/absl_rwmutex.h"
#include "locks/rwlock/busted_noop.h"
#include "locks/rwlock/pthread_rwlock.h"
#include "locks/rwlock/rwsem_aa.h"
#include "locks/rwlock/rwsem_spinlock.h"
#include "locks/rwlock/rwsem_xadd.h"
#include "locks/rwlock/std_shared_mutex.h"
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
#include "stress/mutex_run.h"
#include "stress/rwlock_run.h"
#include "stress/semaphore_run.h"

namespace rwstress {

namespace {

template <class Lock>
constexpr LockEntry rwlock(std::string_view name, Fairness fairness, std::string_view origin,
                           bool busted = false) {
  return LockEntry{LockMeta{name, Family::kRwlock, fairness, origin, capabilities_of<Lock>(), busted},
                   &run_rwlock<Lock>};
}

template <class Lock>
constexpr LockEntry semaphore(std::string_view name, Fairness fairness, std::string_view origin,
                              bool busted = false) {
  static_assert(CountingSemaphore<Lock>);
  return LockEntry{
      LockMeta{name, Family::kSemaphore, fairness, origin, capabilities_of<Lock>(), busted},
      &run_semaphore<Lock>};
}

template <class Lock>
constexpr LockEntry mutex(std::string_view name, Fairness fairness, std::string_view origin,
                          bool busted = false) {
  static_assert(MutexLock<Lock>);
  return LockEntry{LockMeta{name, Family::kMutex, fairness, origin, capabilities_of<Lock>(), busted},
                   &run_mutex<Lock>};
}

// One line per implementation. docs/locks.md describes each.
constexpr LockEntry kLocks[] = {
    rwlock<RwsemAa<>>("aa-rwsem", Fairness::kTaskFair,
                      "Linux 2.4.4-pre3 + Andrea Arcangeli's generic rwsem (spinlock + count + "
                      "FIFO list)"),
    rwlock<RwsemXadd<>>("xadd", Fairness::kTaskFair,
                        "Linux 2.4.4-pre4 XADD rwsem, David Howells (i386 count layout)"),
    rwlock<RwsemXaddUnfair<>>("xadd-unfair", Fairness::kUnfair,
                              "xadd with the slightly-unfair wake: all queued readers granted "
                              "together (as Linux 3.10)"),
    rwlock<RwsemSpinlock<>>("generic-spin", Fairness::kTaskFair,
                            "Linux 2.4.4-pre4 lib/rwsem-spinlock.c, David Howells"),
    rwlock<PthreadRwlock>("pthread-rwlock", Fairness::kReaderPref,
                          "glibc pthread_rwlock_t, default attributes (prefer reader)"),
    rwlock<StdSharedMutex>("std-shared-mutex", Fairness::kReaderPref,
                           "libstdc++ std::shared_mutex (on pthread_rwlock_t)"),
    rwlock<AbslRwMutex>("absl-mutex-rw", Fairness::kWriterPref,
                        "abseil absl::Mutex, ReaderLock/Lock, deadlock detection off"),

    semaphore<SemI386<>>("sem-i386", Fairness::kUnfair,
                         "Linux 2.4 i386 semaphore: count + sleepers, wake passes the baton"),
    semaphore<KernelSemaphore<>>("kernel-sem", Fairness::kTaskFair,
                                 "Linux 2.6.26+ kernel/locking/semaphore.c: spinlock, count, "
                                 "FIFO list, direct hand-off in up"),
    semaphore<PosixSemaphore>("posix-sem", Fairness::kUnfair, "glibc POSIX sem_t"),
    semaphore<StdCountingSemaphore>("std-counting-semaphore", Fairness::kUnfair,
                                    "libstdc++ C++20 std::counting_semaphore"),
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
                                       "sem-i386 with count 1 used as a mutex (seed 001)"),
    mutex<PthreadSpinlock>("pthread-spinlock", Fairness::kUnfair, "glibc pthread_spinlock_t"),
    mutex<PthreadMutex>("pthread-mutex", Fairness::kUnfair,
                        "glibc pthread_mutex_t, default attributes"),
    mutex<StdMutex>("std-mutex", Fairness::kUnfair, "libstdc++ std::mutex"),
    mutex<AbslMutex>("absl-mutex", Fairness::kUnfair, "abseil absl::Mutex, deadlock detection off"),
    mutex<CkTicket>("ck-ticket", Fairness::kTaskFair, "Concurrency Kit ck_spinlock_ticket"),
    mutex<CkFas>("ck-fas", Fairness::kUnfair, "Concurrency Kit ck_spinlock_fas"),
    mutex<CkCas>("ck-cas", Fairness::kUnfair, "Concurrency Kit ck_spinlock_cas"),
    mutex<CkMcs>("ck-mcs", Fairness::kTaskFair, "Concurrency Kit ck_spinlock_mcs (C wrapper)"),
    mutex<CkClh>("ck-clh", Fairness::kTaskFair, "Concurrency Kit ck_spinlock_clh (C wrapper)"),
    mutex<CkAnderson>("ck-anderson", Fairness::kTaskFair,
                      "Concurrency Kit ck_spinlock_anderson (array lock, Anderson 1990)"),

    rwlock<BustedNoop>("busted-noop", Fairness::kUnfair,
                       "positive control: every operation does nothing (must FAIL)", true),
};

}  // namespace

std::span<const LockEntry> lock_registry() { return kLocks; }

const LockEntry* find_lock(std::string_view name) {
  for (const auto& e : kLocks)
    if (e.meta.name == name) return &e;
  return nullptr;
}

std::string valid_lock_names() {
  std::string names = std::string(kSelectAll) + ", rwlock, semaphore, mutex, " +
                      std::string(kSelectBusted);
  for (const auto& e : kLocks) names += ", " + std::string(e.meta.name);
  return names;
}

std::vector<const LockEntry*> select_locks(std::string_view spec, std::string* error) {
  std::vector<bool> chosen(std::size(kLocks), false);
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string_view name = spec.substr(pos, comma == std::string_view::npos ? spec.npos : comma - pos);
    bool matched = false;
    for (size_t i = 0; i < std::size(kLocks); ++i) {
      const LockMeta& m = kLocks[i].meta;
      bool hit = m.name == name || (name == kSelectAll && !m.busted) ||
                 (name == kSelectBusted && m.busted) || (name == family_name(m.family) && !m.busted);
      if (hit) chosen[i] = matched = true;
    }
    if (!matched) {
      *error = "unknown lock '" + std::string(name) + "'; valid names: " + valid_lock_names();
      return {};
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  std::vector<const LockEntry*> out;
  for (size_t i = 0; i < std::size(kLocks); ++i)
    if (chosen[i]) out.push_back(&kLocks[i]);
  return out;
}

}  // namespace rwstress
