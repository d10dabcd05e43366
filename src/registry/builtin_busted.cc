// The busted zoo: locks broken on purpose, each where a checker must catch it
// (docs/locks.md, rwstress selftest).
// The table is split in four files so that its template instances (every
// runner of every lock) compile side by side; registry.cc joins them in
// this order.
#include "registry/builtin.h"

#include "locks/busted/busted_mutexes.h"
#include "locks/busted/busted_noop.h"
#include "locks/busted/busted_rwlocks.h"
#include "locks/mutex/mcs.h"
#include "locks/rwlock/percpu_rwsem.h"
#include "registry/lock_entry.h"

namespace rwstress {

namespace {

using namespace lock_entry;  // rwlock<L>(...), semaphore<L>(...), mutex<L>(...)

constexpr LockEntry kLocks[] = {
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

}  // namespace

std::span<const LockEntry> busted_locks() { return kLocks; }

}  // namespace rwstress
