// The controlled scheduler (issue: rwstress explore): a run's threads are
// real threads, but exactly one of them runs at a time, and it gives up the
// CPU only at a scheduling point, where a strategy picks the next one.
//
// Code under test marks its points with point(), its busy-wait turns with
// spin() (a spinner that makes no progress yields its turn instead of
// livelocking the scheduler), and models its sleeps with futex_wait() and
// futex_wake(): a wait marks the thread blocked on the word and passes the
// CPU, a wake makes waiters runnable. Outside a controlled run every one of
// them is a no-op (futex_wait returns at once), so code may call them
// unconditionally from an instantiation meant for control.
//
// Liveness is exact: every unfinished thread blocked at once is a
// deadlock, reported at that step with each thread's state; a step bound
// with no thread finishing its body is a livelock. Neither needs a clock.
//
// Strategies: a uniformly random runnable thread at each point, and PCT
// (Burckhardt et al., ASPLOS 2010): random distinct thread priorities,
// D-1 priority-change points drawn among the first k steps; the highest
// priority runnable thread runs, and at the i-th change point the running
// thread drops to priority i. Every schedule records the thread chosen at
// each step; given back as `replay`, the same choices are made step for
// step and the trace digest is the same.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <vector>

namespace rwstress::controlled {

// kRandom: a uniformly random eligible thread at each point. kPct: PCT.
// kBounded: the running thread goes on while it can, except at
// `preemptions` steps drawn among 1..pct_steps, where another eligible
// thread is drawn (random schedules with a preemption bound: shrinking).
// Replay (Options::replay) overrides each: past its end the running
// thread goes on while it can, else the lowest eligible index
// (exhaustive search extends prefixes that way).
// kFirst: the running thread goes on while it can, else the lowest
// eligible index: one schedule, no draw (exhaustive search's extension).
enum class Strategy : std::uint8_t { kRandom, kPct, kBounded, kFirst };

// --memory: none (every access sequentially consistent, as the run
// makes them), c11's release/acquire, x86's store buffers.
enum class Memory : std::uint8_t { kSc, kC11, kTso };

struct Options {
  Strategy strategy = Strategy::kRandom;
  std::uint64_t seed = 0;
  int pct_depth = 2;               // D: finds bugs of depth D (D-1 change points)
  std::uint64_t pct_steps = 1000;  // k: change points are drawn among steps 1..k
  // Conflict-guided PCT: the steps PCT counts (its change points, its k)
  // are only the conflicting ones: an access to a word another thread of
  // the schedule accessed before it, or to one of `shared_words` (words
  // two threads touched in the search's earlier schedules: a thread's
  // first access to a shared word, before the others came, is one too). A
  // change point then falls just before a shared access, not on a
  // thread's private work or a hook point. Counted in any strategy where
  // set (Schedule::conflicts, Schedule::shared), so that schedule 1
  // measures k. A word is known from schedule to schedule by its offset
  // in the lock object (lock_begin, lock_size: a new one every schedule),
  // else by its address (word_key()).
  bool pct_conflicts = false;
  const std::unordered_set<std::uint64_t>* shared_words = nullptr;
  const void* lock_begin = nullptr;
  std::size_t lock_size = 0;
  std::uint64_t word_key(const void* word) const {
    const auto w = reinterpret_cast<std::uintptr_t>(word);
    const auto b = reinterpret_cast<std::uintptr_t>(lock_begin);
    if (lock_begin && w >= b && w - b < lock_size) return (std::uint64_t(1) << 63) | (w - b);
    return std::uint64_t(w);
  }
  int preemptions = 0;             // kBounded: how many steps may switch a thread out
  // random, pct, bounded: up to this many spurious wake-ups a schedule, each
  // a choice (at a decision with a sleeper, one time in 16, a sleeper is
  // woken for no reason and runs next). A replay makes the same ones.
  int spurious_wakes = 0;
  // random, pct and bounded: up to this many timed waits a schedule end
  // by their timeout expiring, each a choice (at a decision with a timed
  // sleeper, one time in 8, one of them is chosen): the run's clock jumps
  // to its deadline, it is woken timed out and runs next. A replay makes
  // the same ones. (Time also passes by steps, step_ns each, and jumps to
  // the earliest deadline when only timed sleepers are left.)
  int expiries = 2;
  // Fatal signals: a spurious wake-up of a killable or interruptible sleep
  // in the kernel-compat layer delivers a fatal signal too (the layer's
  // acquisitions under control are killable or interruptible one time in
  // two, with or without signals: registry/kernel_host.cc),
  // and at a signal check (signal_check(), the layer's
  // signal_pending_state() of such a sleep) random, pct and bounded
  // schedules may choose that a signal arrives: up to signal_checks a
  // schedule, one time in four at a check.
  bool signals = false;
  int signal_checks = 2;
  // Ticks: at a need_resched() check of the kernel-compat layer (a spinner
  // asking whether to stop: rwsem.c's and mutex.c's optimistic spinning,
  // osq_lock.c's queue), random, pct and bounded schedules may choose that
  // the scheduler tick set TIF_NEED_RESCHED just before it: up to ticks a
  // schedule, one time in 32 at a check (tick()). The spinner then gives
  // up while the owner still runs, as it does when a kernel's tick comes.
  int ticks = 2;
  // Time jumps: at a read of the clock a lock's logic makes (the
  // kernel-compat layer's jiffies, sched_clock(), local_clock(),
  // ktime_get_ns(); an in-tree lock's lock_clock_now(): read_clock()), random, pct and bounded schedules may
  // choose that time_jump_ns passed just before it: up to time_jumps a
  // schedule, one time in 16 at a read. Code that waits for time (rwsem.c
  // sets HANDOFF only after RWSEM_WAIT_TIMEOUT, 4 jiffies, of waiting) gets
  // there, which steps of a microsecond never do. The clock stays one for
  // every thread and monotonic; timed sleepers whose deadline the jump
  // passed wake as timed out. 0 by default: an explore run opts in
  // (--time-jumps; rwstress kernel --explore does in some shapes); at 0 a
  // clock read offers nothing. A replay or the exhaustive search's
  // extension (kFirst) needs it above 0 for the jumps its choices take.
  int time_jumps = 0;
  // Interrupts (the kernel-compat layer's explore build; docs/explore.md,
  // "Interrupts"): at 0 nothing is posted and the layer runs what a glue
  // would give an interrupt handler in task context, at once. Above 0
  // the layer posts such work (post_interrupt(): a read hold released by
  // a completion, as file_end_write() releases sb_start_write()'s from an
  // AIO completion) and it runs on the CPU where an interrupt arrives: at
  // an offer (interrupt(): the middle of a per-CPU read-modify-write that
  // is not interrupt-safe, __this_cpu_inc()) random, pct and bounded
  // schedules may choose that one arrives, up to `interrupts` a schedule,
  // one offer in two; the exhaustive search enumerates them within its
  // bound. Work no chosen interrupt took arrives on the posting thread's
  // own CPU after a few of its spin turns (no choice). A replay or the
  // exhaustive search's extension (kFirst) needs it above 0 for the
  // schedules that posted work.
  int interrupts = 0;
  std::uint64_t time_jump_ns = 20'000'000;
  // Virtual CPUs and priorities (explore --virtual-cpus K, --rt-threads
  // N; docs/explore.md, "Priorities"): thread i runs on CPU i mod K (0:
  // every thread on a CPU of its own), and the last N threads are
  // real-time (SCHED_FIFO, one priority above the others'). On a CPU, a
  // runnable thread that holds it (preemption or interrupts off:
  // preempt_hold(), and it ran there last) is the only one that may run;
  // else only its highest-priority runnable threads may. A real-time
  // spinner that waits for a lower-priority thread of its own CPU then
  // spins for good, as on a kernel without RT throttling: a livelock,
  // whose states name the thread kept off its CPU ("preempted"). What a
  // thread is asked about (rt_priority(), preempted()) is exact. A
  // real-time thread that shares a CPU starts asleep and arrives at a step
  // (random, pct, bounded: drawn among the first pct_steps; a replay: its
  // recorded choice; any strategy: as soon as nobody else can move).
  int virtual_cpus = 0;
  int rt_threads = 0;
  std::uint64_t max_steps = 1'000'000;  // a longer schedule is a livelock
  // From this step on a schedule is fair whatever the strategy: the
  // runnable threads take turns (controlled.cc choose_thread), so that a
  // livelock at max_steps is one under every fair scheduler, never a
  // thread a strategy kept from running.
  std::uint64_t fair_from() const { return max_steps / 8; }
  // random and pct (explore --fair): a runnable thread that has not run
  // for fair_turns steps per thread of the run (since it last ran or was
  // woken) runs next, the longest waiting first, so that every schedule
  // is fair within that bound while the strategy still chooses everything
  // else. The harness judges a hand-off lock's waiters for starvation
  // only in such schedules (fair_turns > 0; a replay of one sets it too,
  // and its choices already hold every forced turn). 0: off.
  int fair_turns = 0;
  // Called at every step with every thread stopped at its point (on the
  // thread that reached it, before the strategy picks the next): a
  // harness's look at the lock's state between steps (explore_run.h, the
  // hand-off a lock says it owes). It must not reach a point, sleep, or
  // call back into this scheduler. Empty: none.
  std::function<void()> between_steps;
  // Every runnable thread spinning, this many steps in a row with no write
  // by anyone (a spinner's own loads do not count): a livelock, said early.
  std::uint64_t spin_bound = 5'000;
  // Time does not exist in a controlled run: the clock a lock reads
  // (now_ns) advances by this much per step, so timeouts are reached by
  // steps, and a timed wait whose deadline passes is woken as timed out.
  std::uint64_t step_ns = 1000;
  // The choice at each step: the thread, plus kSignalChoice where a signal
  // arrived at its check, a tick at its need_resched() check or time
  // jumped at its clock read, plus kReadChoice times the older value its load
  // read (or once, a store placed early); empty: the strategy's.
  std::vector<int> replay;
  // --memory c11 or tso: the run keeps a memory model
  // (explore/memory_model.h) that model_access(), model_load() and
  // model_fence() feed and model_missed() asks.
  Memory memory = Memory::kSc;
  // Under a model, random, pct and bounded schedules may let a load read
  // an older value the model allows, or (c11) place a store before the
  // latest one its thread has not seen: up to stale_reads such choices a
  // schedule, one time in four where one is offered. The exhaustive
  // search takes each one offered in turn (Decision::weak), at most
  // stale_reads along a schedule (explore.cc).
  int stale_reads = 4;
  // Partial-order reduction (the exhaustive search's): record what each
  // step touched (Decision::opaque, Schedule::touches, Step::at) and the
  // state at each decision (Decision::state, with `harness_state`'s
  // digest of what the harness keeps beside the lock), so that the search
  // can tell two prefixes that reached the same state. Off: nothing kept.
  bool footprints = false;
  std::function<std::uint64_t()> harness_state;
  // The threads are OS threads handing one CPU between them, even where
  // user-level contexts could run them (fiber.h): for code that may tell
  // its threads apart by gettid() (a plugin not built on the kernel-compat
  // layer), and for the test that both run the same schedules.
  bool os_threads = false;
};

// A choice that also delivered a signal at the chosen thread's check (at a
// signal check), or a tick at its step's first need_resched() check, or a
// time jump at its clock read (one event a step: its first offer).
inline constexpr int kSignalChoice = 64;
// A choice whose step's load read the k-th older value: + k * kReadChoice.
inline constexpr int kReadChoice = 128;
inline int chosen_thread(int choice) { return choice % kSignalChoice; }
inline bool signal_chosen(int choice) { return choice / kSignalChoice % 2 != 0; }
inline int read_chosen(int choice) { return choice / kReadChoice; }

enum class Outcome : std::uint8_t {
  kDone,            // every body returned
  kDeadlock,        // every unfinished thread blocked at once
  kLivelock,        // max_steps with bodies unfinished
  kReplayDiverged,  // a replayed choice named a thread that could not run
};
const char* outcome_name(Outcome o);

// One step: the thread that ran, and the point it ran on from. An atomic
// access (Atomic<T> below) also names its word and the value before and
// after the thread performed it.
struct Step {
  int thread;
  const char* what;
  const void* word = nullptr;
  bool has_value = false;
  std::uint64_t before = 0;
  std::uint64_t after = 0;
  int older = 0;  // a load that read the k-th older value the memory model allowed (after: it)
  bool early = false;  // a store placed before the latest one (memory kept `before`)
  int early_of = -1;   // that latest store's thread (which may have made it with a plain C store)
  bool tick = false;   // a tick came at the step's need_resched() check (tick())
  bool foreign_wake = false;  // its wake_q_add() found the task on another wake_q (foreign_wake())
  bool interrupt = false;     // an interrupt arrived after it, and its handler ran (interrupt())
  bool arrived = false;       // a real-time thread's first step (Options::rt_threads)
  std::uint64_t jump_ns = 0;  // time jumped by at the step's clock read (read_clock())
  std::uint64_t woke = 0;     // the threads a futex_wake() after the step woke (bit per thread)
  std::uint32_t at = 0;       // Options::footprints: the index of the choice that ran it
};

// At one decision: the threads the strategy could pick (bit per thread),
// and whether picking another than the one that ran is a preemption (it
// could go on: runnable and not spinning).
struct Decision {
  std::uint64_t eligible;
  bool preemptible;
  int from = -1;  // the thread at the point (-1: none, at the start or after one finished)
  // Under a memory model: the weak choices the step's access was offered
  // (older values its load could read, or 1: its store could be placed
  // early); 0: none. The exhaustive search takes each in turn.
  int weak = 0;
  // The events the exhaustive search may branch on here: the threads at
  // a signal check (a signal may arrive as one is chosen), the blocked
  // threads (one may be woken spuriously and run), and whether the step
  // met a need_resched() check where a tick could come (known once the
  // step ran, as weak is); and the timed sleepers (one may be chosen: its
  // timeout expires, Options::expiries).
  std::uint64_t checking = 0;
  std::uint64_t sleeping = 0;  // blocked with no deadline
  std::uint64_t timed = 0;     // blocked in a timed wait: its timeout may expire here
  bool tick = false;
  // The step met a clock read where time could jump instead (the first
  // offer of the step claims it: never two), or a wake_q_add() where the
  // task could be on another waker's wake_q (foreign_wake()).
  bool jump = false;
  bool foreign_wake = false;
  bool interrupt = false;  // an interrupt could arrive after the step (interrupt())
  // Options::footprints: the step this choice ran did more than its own
  // access (read the clock or the scheduler's view of other threads, a
  // fence, the harness's bookkeeping: shared_state()), so it is ordered
  // with every other step; and a digest of the scheduler's and the
  // harness's state at the decision (threads' states, the clock).
  bool opaque = false;
  std::uint64_t state = 0;
};

// An object a thread of the run owns, named for traces (a word in it is
// shown as "T1:task.__state+0x0" or "T1:stack-0x6d0" rather than as an
// address that differs from run to run). Its stack is named for every thread.
struct NamedObject {
  const void* begin;
  std::size_t size;
  int thread;
  const char* what;
  bool from_end;  // offsets from the end (a stack grows down)
};

struct Schedule {
  Outcome outcome = Outcome::kDone;
  std::vector<int> choices;  // the thread that ran at each step: replay input
  std::vector<Decision> decisions;  // one per choice (at most 64 threads)
  // The steps in the order they were carried out: a thread's step is
  // recorded when it runs on from its point (an access is done then), so
  // the steps of threads still stopped at a deadlock are not in it.
  std::vector<Step> trace;
  std::uint64_t digest = 0;  // of the trace (thread and point of every step)
  int preemptions = 0;       // steps where a thread that could go on was switched out
  std::uint64_t conflicts = 0;  // Options::pct_conflicts: its conflicting steps
  std::vector<std::uint64_t> shared;  // ... and the words two of its threads touched (word_key)
  // A deadlock or livelock: each unfinished thread's state.
  struct ThreadState {
    int thread;
    const char* kind;  // "blocked", "spinning", "runnable" or "preempted" (kept off its CPU)
    const void* word;  // blocked: the word it sleeps on
    const char* at;    // the point it stopped at (blocked: the sleep's)
  };
  std::vector<ThreadState> states;
  std::vector<NamedObject> objects;  // name_object() and the threads' stacks
  // What a thread told with mark(): after step `after` steps of the trace.
  struct Mark {
    std::size_t after;
    int thread;
    const char* what;
  };
  std::vector<Mark> marks;
  // Options::footprints: the words a step touched as the model or the
  // scheduler saw it (a futex wake, a plain access, an access the model
  // was told of), and whether it wrote them.
  struct Touch {
    std::uint32_t at;  // the choice whose step it was
    const void* word;
    bool write;
  };
  std::vector<Touch> touches;
};

// For a crash handler: the calling thread's run's schedule so far (its
// choices, its digest), read without locking (the crashing thread holds
// the baton); nullptr outside a controlled run.
const Schedule* schedule_so_far();

// The choices a replay needs: `choices` up to the last one a replay past
// its end would not make by itself (it goes on with the thread at the
// point while that can, else the lowest eligible one), so that a
// livelock's round-robin spin turns do not lengthen a replay line.
std::vector<int> essential_choices(const Schedule& s);

// Runs body(i), i in [0, n), on n real threads, one at a time, under the
// strategy. Threads left blocked by a deadlock (or stopped by a livelock or
// a diverged replay) are parked for good and detached: they keep the state
// they use alive, and never run again. The threads share one CPU, the one
// the caller is on as the schedule starts (a hand-over is then a switch on
// that CPU, with no wake-up across CPUs); the caller is kept there until
// it returns.
Schedule run(int n, const Options& options, const std::function<void(int)>& body);

// Keeps the calling process on the nth of the CPUs it may use (round
// robin past the last), so that searches side by side (explore --jobs:
// each shard's schedules on one CPU) do not share a CPU while another is
// idle. False where the process may not be moved (it runs on as it was).
bool keep_process_on_nth_cpu(int nth);

// The probability PCT finds a given bug of depth D in one schedule is at
// least 1 / (n * k^(D-1)) (n threads, k steps): the figure for a run.
double pct_bound(int n, std::uint64_t k, int depth);

// Scheduling points, for the calling thread of a controlled run; no-ops
// on any other thread.
bool active();
// The calling thread's index in its controlled run; -1 outside one.
int thread_index();
// A number of the calling thread's controlled run, different for every run
// of the process; 0 outside one. State kept per run is keyed by it.
std::uint64_t run_id();
// Whether thread `i` of the caller's controlled run is asleep (blocked on
// a word), or has returned from its body; false outside one.
bool asleep(int i);
// Whether thread `i` stopped at a spin point (a busy-wait turn) last, and
// that turn was not one the lock took before its waiter had taken its
// place in the lock's order (spin_unplaced(): a writer's spin for its turn
// among writers, before it tells the readers it waits).
bool spinning_in_place(int i);
// The calling thread's next spin turn comes before its place is taken.
void spin_unplaced();
bool finished(int i);
// The number of threads of the caller's controlled run; 0 outside one.
int thread_count();
// How many steps in a row every runnable thread of the caller's run has
// been spinning (a tick would come: the kernel layer's need_resched()).
std::uint64_t all_spinning_for();
// A thread that went away (a killed task of the kernel layer, waiting
// for the others' progress) until set_away(false): harness checks do not
// wait for it. Whether thread i is away now, and how many times it went
// or was sent a fatal signal (signal_check() true, or signalled(): from
// there it leaves the lock's queue on its way out, before its call
// returns and it goes away, and a check must not wait for it meanwhile).
void set_away(bool away);
bool away(int i);
int times_away(int i);
// The calling thread was sent a fatal signal by other means than a
// signal_check() (the kernel layer's spurious wake of a killable sleep):
// counted in times_away().
void signalled();
// How many of thread i's timed waits have ended by their timeout (chosen,
// or the clock passing the deadline): a waiter whose time ran out gave up
// its place in the lock.
int times_expired(int i);
// How many times thread i went to sleep (a futex wait that blocked).
int times_slept(int i);
// Whether the caller's run is fair within a bound (Options::fair_turns),
// so that a waiter overtaken without end is starved, not unscheduled.
bool judges_fairness();
// Whether the caller's run delivers fatal signals (Options::signals).
bool signals();
// Whether the calling thread's last futex wait ended in a spurious wake-up
// (the scheduler's choice); the answer is given once.
bool woke_spuriously();
// A step that may have changed shared state: spinners may look again.
void point(const char* what);
// A point that stands for state every thread shares though it names no
// word (the harness's hold, where each holder checks the shared record):
// the same point for every strategy, and a conflicting step for
// conflict-guided PCT (Options::pct_conflicts).
void shared_point(const char* what);
// Notes `what` for the calling thread where the trace stands (after its
// latest step), with no scheduling point: the schedule, its choices and
// its digest are the same with or without it. A trace's picture reads it
// (explore --trace-json ends a hold at the harness's "released").
void mark(const char* what);
// The calling thread's step reads or writes state other threads see that
// is no word a point names (a harness's bookkeeping beside the lock): for
// partial-order reduction the step touches one word that stands for all of
// it (as does the step after a shared_point()). Not a scheduling point;
// nothing unless the run keeps footprints.
void shared_state();
// A point where a signal may arrive (a killable or interruptible sleep's
// signal check): with Options::signals, the scheduler may choose that one
// does as it picks the thread to go on (the choice is recorded with the
// thread, kSignalChoice, and replayed); 1 when it did.
bool signal_check(const char* what);
// A need_resched() check (the kernel-compat layer's, an in-tree spinner's
// spinner_told_to_stop()): whether the scheduler
// chose that a tick arrived just before it (Options::ticks; replayed from
// the step's choice, kSignalChoice). Decided once a step, by its first
// check; never at a signal check's step. Not a scheduling point.
bool tick();
// The kernel-compat layer's wake_q_add(): whether the scheduler chose
// that the task is already on another waker's wake_q, whose owner wakes
// it at once (the add fails and the wake-up comes now, before the
// caller goes on: kernel/sched/core.c allows it, "the wakeup can come
// instantly"). A spurious wake-up of Options::spurious_wakes' budget, one
// offer in 4; replayed from the step's choice (kSignalChoice). Decided
// once a step, by its first offer, as tick() is. Not a scheduling point.
bool foreign_wake();
// The kernel-compat layer's work for an interrupt handler (Options::
// interrupts): queued, true, when the run takes interrupts; false
// otherwise (the caller runs it now, in task context). The work is the
// layer's; the queue is the schedule's, oldest first. nullptr: only
// whether the run takes interrupts.
bool post_interrupt(void* work);
// An interrupt offer at the calling thread's step (work is queued and the
// thread's interrupts are on): the oldest work when the scheduler chose
// that an interrupt arrives now (Options::interrupts' budget, one offer
// in 2; replayed from the step's choice, kSignalChoice; decided once a
// step, as tick() is), which the caller runs as its handler; nullptr
// otherwise. `force`: it arrives, no choice (a posting thread that waited
// its turns). Not a scheduling point.
void* interrupt(bool force);
// A read of the clock by a lock's logic (the kernel-compat layer's
// jiffies, sched_clock(); an in-tree lock's lock_clock_now()): the run's clock, after the scheduler chose
// whether Options::time_jump_ns passed just before it (Options::time_jumps;
// replayed from the step's choice, kSignalChoice). Decided once a step,
// by its first offer, as tick() is. Not a scheduling point. Outside a
// controlled run: the steady clock.
std::uint64_t read_clock();
// One busy-wait turn: the spinner runs again only when nobody else can.
void spin(const char* what);
// A busy-wait turn of the harness, not of the lock's code (a check that
// waits for other threads' progress): as spin(), and under
// Options::virtual_cpus the thread counts as asleep meanwhile: it keeps
// no thread of its CPU off it, and none keeps it off.
void harness_wait(const char* what);
// An atomic access about to happen on `word`: the step is recorded; the
// values follow with accessed() once the access is done. Only an access
// that changed the word lets spinners look again (a failed cmpxchg or a
// load changes nothing, so a spin loop of them stays a spin).
void access(const void* word, const char* what);
void accessed(std::uint64_t before, std::uint64_t after);
// Blocks (in the model) while *word == expected, until a futex_wake on the
// same word; returns at once if the value differs. A spurious return is
// allowed to the caller, as with a real futex. The timed form also returns
// once `timeout_ns` of the run's time passed (see Options::step_ns).
void futex_wait(const std::atomic<std::uint32_t>* word, std::uint32_t expected, const char* what);
void futex_wait_for(const std::atomic<std::uint32_t>* word, std::uint32_t expected,
                    std::uint64_t timeout_ns, const char* what);
// Makes up to n threads blocked on `word` runnable; returns how many.
int futex_wake(const void* word, int n);
// The run's clock (nanoseconds since it began, step_ns per step); the
// steady clock outside a controlled run.
std::uint64_t now_ns();
// Names an object the calling thread owns for traces (see NamedObject);
// nothing outside a controlled run.
void name_object(const void* begin, std::size_t size, const char* what);
// The innermost named object holding `word`, or nullptr.
const NamedObject* object_of(const Schedule& s, const void* word);
// The CPU a lock thinks it runs on: its thread index in a controlled run
// (every thread on its own CPU), sched_getcpu() outside one.
int current_cpu();
// The calling thread's kernel thread id (gettid()): in a run on user-level
// contexts (fiber.h) its own donor thread's, so that every thread of the
// schedule has its own, as a lock that records who waits expects.
int thread_tid();
// Options::virtual_cpus: the calling thread's preemption or interrupts
// turned off (delta +1) or back on (-1), nesting; while the count is
// above 0 and the thread runnable, no other thread of its virtual CPU
// runs. Not a scheduling point; nothing without virtual CPUs.
void preempt_hold(int delta);
// Thread i's real-time priority (Options::rt_threads): 0 for a normal
// thread, 0 outside a controlled run.
int rt_priority(int i);
// Whether thread i is runnable but kept off its virtual CPU (by a thread
// of higher priority, or one that holds the CPU): the kernel's view of a
// preempted task (not on a CPU). False without virtual CPUs.
bool preempted(int i);

// The memory model of a run with Options::model_memory (memory_model.h):
// the calling thread's access to `size` bytes at `word`, once done, with its order (as
// std::memory_order numbers it); a fence; every thread at a fence at once
// (membarrier(), an RCU grace period). No-ops on any other run or thread.
// kLocalRmw: a non-atomic read-modify-write of this CPU's own copy of a
// per-CPU variable (this_cpu_inc). A load told with model_access() reads
// the latest store; model_load() lets the model choose an older one: it
// may replace the `size` bytes at `value` (the value the load got).
enum class AccessKind : std::uint8_t { kLoad, kStore, kRmw, kLocalRmw };
void model_access(const void* word, std::size_t size, AccessKind kind, int order);
void model_load(const void* word, std::size_t size, int order, void* value);
void model_fence(int order);
void model_fence_everyone();
// Whether the caller's run keeps a memory model.
bool models_memory();
// The thread that made the latest store to `word`, when the calling thread
// is not sure to see it (no release/acquire path from that store to here);
// -1 when it is, or without a model.
int model_missed(const void* word);
// A plain (non-atomic) C store of `size` bytes at `word` about to be made
// (the kernel explore build's compiler instrumentation: include/rwstress/
// kernel_plain.h): where the model already follows the word, it takes the
// store as a relaxed one once made (at the thread's next step or model
// event), so that a node's plain initialisation is in its history and
// may be ordered after another thread's store. Not a scheduling point.
// Ignored inside an access of the same word (the kernel layer's own
// per-CPU add), for words the model does not follow, and off a model.
void model_plain_store(const void* word, std::size_t size);
// A plain C load of `size` bytes at `word` about to be made (the same
// instrumentation): where the model follows the word, a relaxed load that
// may read an older store (a weak choice, as model_load's, recorded on the
// thread's current step; the trace gets a "plain load" line for it): memory
// holds that value for this one load and gets the latest back at the
// thread's next step or model event. Not a scheduling point.
void model_plain_load(const void* word, std::size_t size);

// The operations a thread performs, in order, for the test that a lock's
// ordinary and controlled instantiations perform the same ones
// (run/op_sequence.h): every Atomic<T> operation below and every fence of
// the hooks seam (locks/hooks.h) that records (kRecordsOps), with its
// memory orders (std::memory_order numbers; a compare-exchange has a
// success and a failure order, else `order2` is -1) and its word.
struct OpRecord {
  const char* op;
  int order;
  int order2;
  const void* word;
};
// Records the calling thread's operations into `into` until called with
// nullptr. Costs a thread-local test per operation when off.
inline thread_local std::vector<OpRecord>* tl_op_record = nullptr;
inline void record_ops(std::vector<OpRecord>* into) noexcept { tl_op_record = into; }
inline void note_op(const char* op, int order, int order2, const void* word) {
  if (tl_op_record) tl_op_record->push_back({op, order, order2, word});
}

// The atomic a lock's controlled instantiation uses (locks/hooks.h,
// Atomic<Hooks, T>): std::atomic<T>'s operations, each one a scheduling
// point before it happens, recorded with its word and values. One thread
// runs at a time, so accesses are sequentially consistent at this
// granularity whatever order they name; with --memory c11 the memory
// model follows each one with its order (docs/explore.md, "Memory models").
template <class T>
class Atomic {
 public:
  constexpr Atomic() noexcept = default;
  constexpr Atomic(T v) noexcept : v_(v) {}  // NOLINT: as std::atomic<T>
  Atomic(const Atomic&) = delete;
  Atomic& operator=(const Atomic&) = delete;

  T load(std::memory_order o = std::memory_order_seq_cst) const noexcept {
    note_op("load", int(o), -1, this);
    access(this, "load");
    T x = v_.load(o);
    accessed(bits(x), bits(x));
    model_load(this, sizeof(T), int(o), &x);
    return x;
  }
  void store(T x, std::memory_order o = std::memory_order_seq_cst) noexcept {
    note_op("store", int(o), -1, this);
    access(this, "store");
    const T before = v_.load(std::memory_order_relaxed);
    v_.store(x, o);
    accessed(bits(before), bits(x));
    model_access(this, sizeof(T), AccessKind::kStore, int(o));
  }
  T exchange(T x, std::memory_order o = std::memory_order_seq_cst) noexcept {
    note_op("xchg", int(o), -1, this);
    access(this, "xchg");
    const T before = v_.exchange(x, o);
    accessed(bits(before), bits(x));
    model_access(this, sizeof(T), AccessKind::kRmw, int(o));
    return before;
  }
  // Weak never fails spuriously here: one outcome per interleaving.
  bool compare_exchange_strong(T& expected, T desired, std::memory_order s,
                               std::memory_order f) noexcept {
    note_op("cmpxchg", int(s), int(f), this);
    access(this, "cmpxchg");
    const T before = v_.load(std::memory_order_relaxed);
    const bool ok = v_.compare_exchange_strong(expected, desired, s, f);
    accessed(bits(before), bits(ok ? desired : before));
    model_access(this, sizeof(T), ok ? AccessKind::kRmw : AccessKind::kLoad, int(ok ? s : f));
    return ok;
  }
  bool compare_exchange_strong(T& expected, T desired,
                               std::memory_order o = std::memory_order_seq_cst) noexcept {
    return compare_exchange_strong(expected, desired, o, failure_order(o));
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order s,
                             std::memory_order f) noexcept {
    return compare_exchange_strong(expected, desired, s, f);
  }
  bool compare_exchange_weak(T& expected, T desired,
                             std::memory_order o = std::memory_order_seq_cst) noexcept {
    return compare_exchange_strong(expected, desired, o, failure_order(o));
  }
  template <class D>
  T fetch_add(D d, std::memory_order o = std::memory_order_seq_cst) noexcept {
    return rmw("fetch_add", o, [&] { return v_.fetch_add(d, o); });
  }
  template <class D>
  T fetch_sub(D d, std::memory_order o = std::memory_order_seq_cst) noexcept {
    return rmw("fetch_sub", o, [&] { return v_.fetch_sub(d, o); });
  }
  T fetch_or(T d, std::memory_order o = std::memory_order_seq_cst) noexcept {
    return rmw("fetch_or", o, [&] { return v_.fetch_or(d, o); });
  }
  T fetch_and(T d, std::memory_order o = std::memory_order_seq_cst) noexcept {
    return rmw("fetch_and", o, [&] { return v_.fetch_and(d, o); });
  }
  T fetch_xor(T d, std::memory_order o = std::memory_order_seq_cst) noexcept {
    return rmw("fetch_xor", o, [&] { return v_.fetch_xor(d, o); });
  }

  // The word itself, for the futex wrapper (which makes its own points).
  std::atomic<T>& raw() noexcept { return v_; }
  const std::atomic<T>& raw() const noexcept { return v_; }

 private:
  static std::uint64_t bits(T x) noexcept {
    if constexpr (std::is_pointer_v<T>)
      return std::uint64_t(reinterpret_cast<std::uintptr_t>(x));
    else
      return std::uint64_t(x);
  }
  static constexpr std::memory_order failure_order(std::memory_order o) noexcept {
    if (o == std::memory_order_acq_rel) return std::memory_order_acquire;
    if (o == std::memory_order_release) return std::memory_order_relaxed;
    return o;
  }
  template <class Op>
  T rmw(const char* what, std::memory_order o, Op op,
        AccessKind kind = AccessKind::kRmw) noexcept {
    note_op(what, int(o), -1, this);
    access(this, what);
    const T before = op();
    accessed(bits(before), bits(v_.load(std::memory_order_relaxed)));
    model_access(this, sizeof(T), kind, int(o));
    return before;
  }

  std::atomic<T> v_{};
};

}  // namespace rwstress::controlled
