// The verdict of one run: PASS, FAIL, HANG or STARVED, from its violations,
// its hang report and who got how little (docs/checkers.md). The statistics
// it uses are model/stats.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "model/run_result.h"

namespace rwstress {

// A thread is starved when it completed fewer than 1/kStarvedShare of the
// mean per-thread operations of the run (counting every thread), in a run
// long enough to judge: at least kStarvationMinOps operations in all.
inline constexpr double kStarvedShare = 1000.0;
inline constexpr std::uint64_t kStarvationMinOps = 10000;

// Why a thread got so little. Only kLock can break a fairness promise: a
// thread the OS did not run cannot be blamed on the lock.
enum class StarvationCause {
  kLock,        // it was blocked or spinning in the lock while others ran
  kScheduler,   // runnable but not running (another thread had its CPU): see below
  kNeverRan,    // it never entered its loop between the start and the stop flag
  kBehindHeldBack,  // waiting in the lock, but within one operation of a thread
                    // the scheduler held back: a fair lock queues it behind that one
};
inline constexpr int kStarvationCauseCount = 4;
// Held back by the scheduler, either way:
//  - at least kRunqShare of its time in a run queue and under kCpuShare on
//    a CPU;
//  - at least kRunqShareWhenGranted in a run queue, and each time it ran
//    the lock let it in promptly: its time outside a run queue (on a CPU
//    or asleep in the lock) came to at most kPromptGrantS per operation
//    (less its time taking --nested-locks, which is another writer's).
//    Traced on 2 vCPUs (xadd, 2 readers and 1 writer, --no-check, 100 ms):
//    13-19 times a run the writer waited 0.7-5.4 ms in a run queue while
//    the readers ran their fast path (after a reader it woke preempted it,
//    or after it yielded spinning for the wait-list spinlock), and got
//    under 0.1% of the mean; whenever it ran, it was granted within tens of
//    microseconds. A lock that starves a thread keeps it asleep or spinning
//    for each operation: milliseconds to the whole run (docs/checkers.md).
inline constexpr double kRunqShare = 0.5;
inline constexpr double kCpuShare = 0.25;
inline constexpr double kRunqShareWhenGranted = 0.25;
inline constexpr double kPromptGrantS = 1e-3;
// When other programs took at least this share of the run's CPU time, a
// thread's few operations say more about the machine than about the lock:
// a granted waiter waits for a CPU while the others run, and a preempted
// holder keeps every waiter asleep. Starvation is then reported but not
// judged. Measured on 2 vCPUs with four busy loops beside 100 ms runs
// (others took 74-97%): correct FIFO rwsems (xadd, aa-rwsem-fair,
// generic-spin) showed a writer or a reader at 0.01-0.1% of the mean in at
// least 6 of 120 lock runs (docs/checkers.md). One busy loop at nice -15
// takes one of 2 CPUs whole, which /proc/stat shows as 45-48% of the run's
// CPU time: beside it the same three rwsems at 2R+1W, 200 ms, were STARVED
// in 4 of 12 sessions at f858843 (and 6 of 12 with this rule at 0.5), so
// the bound is 0.4, under a whole CPU of two.
inline constexpr double kOthersShare = 0.4;
// A share is judged over a run of at least this long: a shorter one is
// under three scheduler rounds of a loaded machine (ten runnable threads on
// two CPUs: ~30 ms a round), and a thread's few operations in it say how
// it was scheduled, not what the lock did (xadd, 20 ms runs under a load
// of ten: STARVED in 2 of 4 sessions of 60 runs, in the audit of 5ed15d9).
// 100 ms runs stay judged: the injected-pause rule was measured on them.
// Hand-off waits are judged apart (their bound is long past this).
inline constexpr double kShareMinRunS = 0.1;
// When the injector's pauses in lock holders (--inject at in-cs,
// before-release, mid-release or before-wake) add up to at least this share
// of the run, a thread's few operations may be the injector's doing: a
// fair rwsem's queued writer waits out each injected sleep of a reader,
// while the other readers share the lock with the sleeper and keep going.
// Starvation is then reported but not judged. Measured on 2 vCPUs (xadd
// and linux-rwsem, 2R+1W and 4R+2W, 500 ms, in-cs sleeps and stalls of
// 5-50 ms at p = 1e-6 to 3e-4; 190 runs): a thread at under 0.1% of the
// mean in 33 runs, all at a summed holding pause of 1.0 run or more; none
// in the 70 runs at 0.0-0.9 (docs/checkers.md).
inline constexpr double kInjectedHoldingShare = 0.5;
// A hand-off lock (Fairness::kHandoff) promises a bounded wait, not a share:
// the kernel's rwsem hands the lock to a waiter that has waited 4 ms
// (RWSEM_WAIT_TIMEOUT), its mutex to a top waiter woken once for nothing,
// and the waiter then waits only for the holders inside to leave. One wait
// breaks the promise when, from a mark taken at the watchdog's first look
// at it, it lasted handoff_wait_bound_s() not counting the waiter's own time
// in a run queue, while the others completed kHandoffWaitOthers operations
// or more: the lock kept changing hands over it. The bound is
// kHandoffWaitS (250 times the rwsem's), or kHandoffWaitPerThreadS per
// thread per CPU when that is more: each holder the waiter waits for may
// itself wait a turn behind every other thread of its CPU. Measured on 2
// vCPUs (linux-rwsem, 1R+1W to 32R+2W, with and without --sched): the
// writer of 8R+1W completes one write per 4.4 ms, the longest wait seen
// in 40 runs was 0.89 s, in a run queue for most of it, at 200R+1W
// (docs/checkers.md). Not judged, as a share is not: on a machine busy
// with other programs, for a spinning lock on more threads than CPUs, and
// when injected pauses in holders add up to kInjectedHoldingShare of the
// wait or more.
inline constexpr double kHandoffWaitS = 1.0;
// The shortest run in which that judgment can see a wait outlast the bound:
// validate's wait-judging scenarios and fuzz trials of a hand-off lock run
// at least this long.
inline constexpr std::chrono::milliseconds kHandoffMinRun{2000};
inline constexpr double kHandoffWaitPerThreadS = 0.02;
inline constexpr std::uint64_t kHandoffWaitOthers = 100;
double handoff_wait_bound_s(int threads, int cpus);
const char* starvation_cause_text(StarvationCause c);

struct StarvedThread {
  int thread;
  Role role;
  std::uint64_t ops;
  double share_of_mean;  // ops / mean ops per thread
  StarvationCause cause;
  int behind = -1;  // kBehindHeldBack: the held-back thread
};

// kLock unless schedstat says the OS held the thread back (see above).
StarvationCause starvation_cause(const ThreadResult& t);

std::vector<StarvedThread> find_starved_threads(const std::vector<ThreadResult>& threads);

// Fills the totals, fairness, starvation and the verdict of a run whose
// threads, violations and hang report are already in.
void summarize_run(RunResult& r);

}  // namespace rwstress
