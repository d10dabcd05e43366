#include "registry/registry.h"

#include <algorithm>
#include <cstdlib>
#include <deque>

#include "locks/busted/busted_mutexes.h"
#include "locks/busted/busted_noop.h"
#include "locks/busted/busted_rwlocks.h"
#include "locks/mutex/bkl.h"
#include "locks/mutex/ck_spinlocks.h"
#include "locks/mutex/clh.h"
#include "locks/mutex/library_mutexes.h"
#include "locks/mutex/mcs.h"
#include "locks/mutex/qspinlock.h"
#include "locks/mutex/tas.h"
#include "locks/mutex/ticket.h"
#include "locks/mutex/ttas_backoff.h"
#include "locks/rwlock/absl_rwmutex.h"
#include "locks/rwlock/brlock.h"
#include "locks/rwlock/ck_rwlocks.h"
#include "locks/rwlock/fair_rwlocks.h"
#include "locks/rwlock/percpu_rwsem.h"
#include "locks/rwlock/pref_rwlocks.h"
#include "locks/rwlock/pthread_rwlock.h"
#include "locks/rwlock/qrwlock.h"
#include "locks/rwlock/rwsem_aa.h"
#include "locks/rwlock/rwsem_linux.h"
#include "locks/rwlock/rwsem_spinlock.h"
#include "locks/rwlock/rwsem_xadd.h"
#include "locks/rwlock/std_shared_mutex.h"
#include "locks/rwlock/urcu_reference.h"
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

// One line per implementation. docs/locks.md describes each.
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

    rwlock<BustedNoop<>>("busted-noop", Fairness::kUnfair,
                       "positive control: every operation does nothing (must FAIL)", true),
    rwlock<BustedReaderInWriter<>>("busted-reader-in-writer", Fairness::kReaderPref,
                                 "readers admitted while a writer holds", true),
    rwlock<BustedWriterInReaders<>>("busted-writer-in-readers", Fairness::kReaderPref,
                                  "writer admitted while readers hold", true),
    rwlock<BustedRacyReaders<>>("busted-racy-readers", Fairness::kReaderPref,
                              "non-atomic reader count (load + store)", true),
    rwlock<BustedDowngrade<>>("busted-downgrade", Fairness::kReaderPref,
                            "downgrade_write lets a writer in", true),
    rwlock<BustedUnfairClaimsFair<>>("busted-unfair-claims-fair", Fairness::kTaskFair,
                               "reader-preference lock that declares itself task-fair", true),
    rwlock<BustedRwsemHandoff<>>("busted-rwsem-handoff", Fairness::kHandoff,
                                 "linux-rwsem whose readers steal past HANDOFF and other readers",
                                 true),
    rwlock<BustedWprefReadersPass<>>("busted-wpref-readers-pass", Fairness::kWriterPref,
                                     "writer-preference rwlock whose readers pass waiting "
                                     "writers: reader-preference in fact",
                                     true),
    rwlock<BustedPfLateWriter<>>("busted-pf-late-writer", Fairness::kPhaseFair,
                                 "phase-fair PF-T whose writer waits for the readers to leave "
                                 "before it tells them it waits: reader-preference in fact",
                                 true),
    rwlock<BustedRwsemHandoffKept<>>("busted-rwsem-handoff-kept", Fairness::kHandoff,
                                     "linux-rwsem whose writer takes the lock without clearing "
                                     "HANDOFF: set after 4 ms of waiting, it keeps everyone out",
                                     true),
    rwlock<BustedRwsemOsqLeak<>>("busted-rwsem-osq-leak", Fairness::kHandoff,
                                 "linux-rwsem whose winning optimistic spinner never leaves the "
                                 "OSQ: safe and live, not idle",
                                 true),
    rwlock<BustedRwsemEndlessRspin<>>("busted-rwsem-endless-rspin", Fairness::kHandoff,
                                      "linux-rwsem whose writer spins on a reader-owned lock past "
                                      "its deadline (rwsem_rspin_threshold): safe, live, spins on",
                                      true),
    rwlock<PercpuRwsem<NoHooks, true>>(
        "busted-percpu-no-fence", Fairness::kUnfair,
        "percpu-rwsem without the reader fence and grace period: store buffering (explore --memory c11 or tso)",
        true),
    mutex<BustedRacyTas<>>("busted-racy-tas", Fairness::kUnfair, "non-atomic test-and-set", true),
    mutex<BustedRelaxedUnlock<>>("busted-relaxed-unlock", Fairness::kUnfair,
                                 "unlock is a relaxed store: a missing RELEASE (explore --memory c11)",
                                 true),
    mutex<McsSpinlock<NoHooks, true>>(
        "busted-mcs-relaxed-link", Fairness::kTaskFair,
        "MCS whose waiter links itself with a relaxed store: the hand-off may land before its node's initialisation (explore --memory c11)",
        true),
    mutex<BustedLyingTrylock<>>("busted-lying-trylock", Fairness::kUnfair,
                              "trylock reports success while the lock is held", true),
    mutex<BustedTicketWrap<>>("busted-ticket-wrap", Fairness::kTaskFair,
                            "ticket lock whose 2-bit tickets wrap with 5+ waiters", true),
    mutex<BustedEarlyRelease<>>("busted-early-release", Fairness::kUnfair,
                              "release visible before the last protected store (emulated)", true),
    mutex<BustedSleepingMutex<WaiterBug::kLostWakeup>>(
        "busted-lost-wakeup", Fairness::kTaskFair,
        "waiter re-arms its wake word after checking its grant: lost wake-up", true),
    mutex<BustedSleepingMutex<WaiterBug::kSpuriousGrant>>(
        "busted-spurious-grant", Fairness::kTaskFair,
        "waiter takes any futex return as the grant", true),
    semaphore<BustedSemDoubleUp<>>("busted-sem-double-up", Fairness::kTaskFair,
                                 "up() hands the unit to a waiter and also raises the count", true),
    semaphore<BustedSemLateTimeout<>>(
        "busted-sem-late-timeout", Fairness::kTaskFair,
        "down_timeout whose timeout runs out as up() hands it the unit reports a timeout: the "
        "unit is lost",
        true),
};

// The built-in locks, then those --plugin added (a deque: adding one moves
// none of the others, whose metadata RunConfig points at).
std::deque<LockEntry>& table() {
  static std::deque<LockEntry> t(std::begin(kLocks), std::end(kLocks));
  return t;
}

}  // namespace

const std::deque<LockEntry>& lock_registry() { return table(); }

void add_lock(const LockEntry& entry) { table().push_back(entry); }

const LockEntry* find_lock(std::string_view name) {
  for (const auto& e : table())
    if (e.meta.name == name) return &e;
  return nullptr;
}

std::string valid_lock_names() {
  std::string names = std::string(kSelectAll) + ", rwlock, semaphore, mutex, " +
                      std::string(kSelectBusted);
  for (const auto& e : table()) names += ", " + std::string(e.meta.name);
  return names;
}

std::vector<const LockMeta*> select_locks(std::string_view spec, std::string* error) {
  const std::deque<LockEntry>& locks = table();
  std::vector<bool> chosen(locks.size(), false);
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string_view name = spec.substr(pos, comma == std::string_view::npos ? spec.npos : comma - pos);
    bool matched = false;
    for (size_t i = 0; i < locks.size(); ++i) {
      const LockMeta& m = locks[i].meta;
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
  std::vector<const LockMeta*> out;
  for (size_t i = 0; i < locks.size(); ++i)
    if (chosen[i]) out.push_back(&locks[i].meta);
  return out;
}

const LockEntry& entry_of(const LockMeta& meta) {
  for (const LockEntry& e : table())
    if (&e.meta == &meta) return e;
  std::abort();
}

}  // namespace rwstress
