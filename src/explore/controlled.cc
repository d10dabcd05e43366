// The controlled scheduler: one baton (a mutex and a futex word a thread) passed
// between real threads at their scheduling points (controlled.h).
#include "explore/controlled.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "explore/fiber.h"
#include "explore/memory_model.h"

namespace rwstress::controlled {

namespace {

enum class State : std::uint8_t { kRunnable, kBlocked, kDone };

// A plain C access told before it is made, settled at the thread's next
// step or model event: a store (model_plain_store) goes to the model with
// the bytes the word held before it; a load that read an older value
// (model_plain_load) gives memory its latest bytes back.
struct PlainAccess {
  const void* word = nullptr;
  std::size_t size = 0;
  std::uint64_t bytes = 0;  // a store: the word's bytes before it; a load: the latest
};
thread_local PlainAccess tl_plain_store;
thread_local PlainAccess tl_plain_load;

struct Run {
  Run(int threads, const Options& o)
      : n(threads), options(o), bell(new std::atomic<std::uint32_t>[std::size_t(threads)]()), rng(o.seed) {
    static std::atomic<std::uint64_t> serial{0};
    id = serial.fetch_add(1, std::memory_order_relaxed) + 1;
    state.assign(std::size_t(n), State::kRunnable);
    blocked_on.assign(std::size_t(n), nullptr);
    blocked_since.assign(std::size_t(n), 0);
    blocked_until.assign(std::size_t(n), 0);
    spinning.assign(std::size_t(n), false);
    unplaced.assign(std::size_t(n), false);
    spurious.assign(std::size_t(n), false);
    expired.assign(std::size_t(n), false);
    woke_spuriously.assign(std::size_t(n), false);
    gone.assign(std::size_t(n), false);
    checking.assign(std::size_t(n), false);
    signal_now.assign(std::size_t(n), false);
    signal_left = o.signals ? o.signal_checks : 0;
    tick_left = o.ticks;
    jump_left = o.time_jumps;
    interrupt_left = o.interrupts;
    if (o.memory != Memory::kSc)
      memory = std::make_unique<MemoryModel>(
          n, o.memory == Memory::kTso ? MemoryModel::Kind::kTso : MemoryModel::Kind::kC11);
    stale_left = o.stale_reads;
    times_away.assign(std::size_t(n), 0);
    times_expired.assign(std::size_t(n), 0);
    times_slept.assign(std::size_t(n), 0);
    ready_from.assign(std::size_t(n), 0);
    spurious_left = o.spurious_wakes;
    expiry_left = o.expiries;
    at.assign(std::size_t(n), "start");
    held.assign(std::size_t(n), 0);
    waiting.assign(std::size_t(n), false);
    arrived_now.assign(std::size_t(n), false);
    if (o.virtual_cpus > 0) last_on.assign(std::size_t(o.virtual_cpus), -1);
    // A real-time thread sharing a CPU arrives when it wakes, at a step
    // of the schedule (sampling: drawn among the first k, as PCT's change
    // points are; a replay and the exhaustive search's extension: where
    // the recorded choice wakes it, or once nobody else can run), and
    // then preempts: had it run from the start, it would always be ahead
    // of the threads of its CPU.
    arrive_at.assign(std::size_t(n), 0);
    if (o.virtual_cpus > 0)
      for (int i = 0; i < n; ++i)
        if (rt_of(i) > 0) {
          state[std::size_t(i)] = State::kBlocked;
          blocked_on[std::size_t(i)] = &arrival_word;
          arrive_at[std::size_t(i)] =
              o.replay.empty() && o.strategy != Strategy::kFirst
                  ? 1 + rng() % std::max<std::uint64_t>(1, o.pct_steps)
                  : UINT64_MAX;
        }
    ready.reserve(std::size_t(n));
    moving.reserve(std::size_t(n));
    if (options.strategy == Strategy::kPct) {
      // Initial priorities depth .. depth+n-1, a random permutation; the
      // i-th change point (i = 1 .. depth-1) drops the running thread to i.
      priority.resize(std::size_t(n));
      for (int i = 0; i < n; ++i) priority[std::size_t(i)] = options.pct_depth + i;
      std::shuffle(priority.begin(), priority.end(), rng);
      const std::uint64_t k = std::max<std::uint64_t>(1, options.pct_steps);
      for (int i = 1; i < options.pct_depth; ++i)
        change_at.push_back(1 + rng() % k);
    }
    if (options.strategy == Strategy::kBounded) {
      const std::uint64_t k = std::max<std::uint64_t>(1, options.pct_steps);
      for (int i = 0; i < options.preemptions; ++i) change_at.push_back(1 + rng() % k);
    }
  }

  const int n;
  const Options options;
  std::uint64_t id = 0;  // run_id()
  std::mutex mutex;
  // Each thread waits for its turn on its own futex word (a doorbell
  // rung, under `mutex`, when it is handed the CPU), so a switch wakes the
  // one thread that runs next and nothing else: no condition variable's
  // bookkeeping, and the mutex is free before the wake (the woken thread,
  // on the same CPU: run(), does not wake only to wait for it). The caller
  // of run() and the threads that finished wait on `over`.
  std::unique_ptr<std::atomic<std::uint32_t>[]> bell;
  std::condition_variable over;
  // fiber::available(): the threads are user-level contexts on the
  // caller's OS thread (contexts[n] the caller's own), each with the
  // thread-local storage of a parked thread of its own (donors).
  bool fibers = false;
  std::vector<fiber::Context> contexts;
  std::vector<std::unique_ptr<fiber::Donor>> donors;
  std::vector<std::unique_ptr<fiber::Stack>> stacks;
  int current = -1;      // the one thread allowed to run
  bool stopped = false;  // the schedule ended early: nobody runs again
  bool ended = false;    // every body returned, or stopped
  int finished = 0;
  std::uint64_t waits = 0;       // futex_wait calls that blocked, for FIFO wakes
  std::uint64_t skipped_ns = 0;  // time jumped over: only timed sleepers left, or read_clock()
  std::uint64_t spin_streak = 0;  // steps in a row with every runnable thread spinning
  std::uint64_t steps = 0;        // points reached (decisions taken)
  std::vector<State> state;
  std::vector<const void*> blocked_on;
  std::vector<std::uint64_t> blocked_since;
  std::vector<std::uint64_t> blocked_until;  // a timed wait's deadline (run time); 0: none
  std::vector<bool> spinning;
  std::vector<bool> unplaced;   // its last spin turn came before it took its place (spin_unplaced)
  std::vector<bool> spurious;   // woken for no reason: its next step says so
  std::vector<bool> expired;    // its timeout was chosen to expire: its next step says so
  std::vector<bool> woke_spuriously;  // and then: until the thread asks (woke_spuriously())
  std::vector<bool> gone;             // set_away(): away now
  std::vector<int> times_away;        // set_away(true) calls
  std::vector<int> times_expired;     // timed waits ended by their timeout
  std::vector<int> times_slept;       // futex waits that blocked
  std::vector<std::uint64_t> ready_from;  // the step it last ran or was woken at (fair_turns)
  int spurious_left = 0;
  int expiry_left = 0;  // timeouts a sampled schedule may still make expire
  std::vector<bool> checking;    // at a signal check (signal_check())
  std::vector<bool> signal_now;  // a signal arrives as it goes on from there
  int signal_left = 0;
  bool signalled = false;        // the last choose() delivered one: recorded with the thread
  std::size_t signal_at = SIZE_MAX;  // the step (choice index) of the last signal check
  int tick_left = 0;                 // ticks a sampled schedule may still deliver (tick())
  int jump_left = 0;                 // time jumps it may still make (read_clock())
  int interrupt_left = 0;            // interrupts it may still choose (interrupt())
  std::deque<void*> interrupt_work;  // posted, not yet taken (post_interrupt())
  std::size_t event_at = SIZE_MAX;   // the step whose event (step_event) was decided last
  std::size_t step_trace = SIZE_MAX;  // the trace index of the running thread's step
  std::vector<const char*> at;  // where each thread last stopped
  std::vector<int> held;        // preempt_hold(): preemption or interrupts off, nesting
  std::vector<bool> waiting;    // at a harness_wait() turn: as if asleep, for its CPU
  std::vector<int> last_on;     // Options::virtual_cpus: the thread that ran last on each
  char arrival_word = 0;        // what a real-time thread not yet arrived is blocked on
  std::vector<bool> arrived_now;  // ... and one that arrived: its next step says so
  std::vector<std::uint64_t> arrive_at;  // ... and the step it arrives at (sampling)
  std::vector<int> priority;    // PCT
  std::vector<std::uint64_t> change_at;  // PCT: steps whose runner drops; kBounded: may switch
  std::unordered_map<const void*, std::uint64_t> touched;  // pct_conflicts: by which threads
  std::vector<int> ready, moving;        // choose()'s scratch
  std::mt19937_64 rng;
  Schedule schedule;
  std::unique_ptr<MemoryModel> memory;  // Options::memory
  std::size_t weak_at = SIZE_MAX;       // the step whose weak choice was decided last
  int stale_left = 0;                   // older values loads may still read (Options::stale_reads)

  std::uint64_t now() const { return steps * options.step_ns + skipped_ns; }

  // A blocked thread chosen to run: a timed sleeper's timeout expires
  // (the clock jumps to its deadline), any other is woken for no reason.
  int wake_chosen(int i) {
    const std::size_t u = std::size_t(i);
    if (not_arrived(i)) {  // a real-time thread arrives
      unblock(u);
      arrived_now[u] = true;
      return i;
    }
    if (blocked_until[u] != 0) {
      if (blocked_until[u] > now()) skipped_ns += blocked_until[u] - now();
      expired[u] = true;
      ++times_expired[u];
    } else {
      spurious[u] = true;
    }
    unblock(u);
    return i;
  }

  void unblock(std::size_t u) {
    state[u] = State::kRunnable;
    ready_from[u] = steps;
    blocked_on[u] = nullptr;
    blocked_until[u] = 0;
  }

  // Timed sleepers whose deadline passed wake as timed out; with nobody
  // else able to run, time jumps to the earliest deadline.
  void wake_timed_out() {
    std::uint64_t earliest = 0;
    bool any_runnable = false;
    for (int i = 0; i < n; ++i) {
      const std::size_t u = std::size_t(i);
      if (state[u] == State::kRunnable) any_runnable = true;
      if (state[u] != State::kBlocked || blocked_until[u] == 0) continue;
      if (blocked_until[u] <= now())
        unblock(u), ++times_expired[u], any_runnable = true;
      else if (earliest == 0 || blocked_until[u] < earliest)
        earliest = blocked_until[u];
    }
    if (any_runnable || earliest == 0) return;
    skipped_ns += earliest - now();
    wake_timed_out();
  }

  // The last choose()'s pick as the schedule records it.
  int code(int next) const { return next + (signalled ? kSignalChoice : 0); }

  // Picks who runs the next step, or -1 (nobody can, or a replay diverged:
  // `schedule.outcome` says which); a thread at a signal check may get a
  // signal with it (code()). Under the mutex.
  int choose(int me) {
    signalled = false;
    const int next = choose_thread(me);
    if (next >= 0) ready_from[std::size_t(next)] = steps;
    if (next >= 0 && options.virtual_cpus > 0 && !waiting[std::size_t(next)])
      last_on[std::size_t(cpu_of(next))] = next;
    const bool sampling = options.replay.empty() && options.strategy != Strategy::kFirst;
    if (next >= 0 && sampling && signal_left > 0 && checking[std::size_t(next)] &&
        rng() % 4 == 0) {
      --signal_left;
      signal_now[std::size_t(next)] = signalled = true;
    }
    return next;
  }

  // Options::virtual_cpus: thread i's CPU. Options::rt_threads: its
  // real-time priority (the last rt_threads threads; 0: a normal one).
  // Whether it is a real-time thread not yet arrived.
  int cpu_of(int i) const { return i % options.virtual_cpus; }
  int rt_of(int i) const { return i >= n - options.rt_threads ? 1 : 0; }
  bool not_arrived(int i) const { return blocked_on[std::size_t(i)] == &arrival_word; }

  // Whether runnable thread i is kept off its virtual CPU: another
  // runnable thread holds the CPU (it ran there last, with preemption or
  // interrupts off), or one of higher priority is runnable there.
  // (A thread at a harness_wait() turn competes for nothing.) Of two
  // holders (one held its CPU as it went to sleep, and another took the
  // CPU meanwhile) the one that ran there last goes on.
  bool holds_cpu(int j) const {
    const std::size_t u = std::size_t(j);
    return state[u] == State::kRunnable && !waiting[u] && held[u] > 0;
  }
  bool held_off(int i) const {
    if (options.virtual_cpus <= 0 || waiting[std::size_t(i)]) return false;
    const int cpu = cpu_of(i);
    int holder = last_on[std::size_t(cpu)];
    if (holder < 0 || !holds_cpu(holder)) {
      holder = -1;
      for (int j = cpu; j < n && holder < 0; j += options.virtual_cpus)
        if (holds_cpu(j)) holder = j;
    }
    if (holder >= 0) return holder != i;
    for (int j = cpu; j < n; j += options.virtual_cpus)
      if (state[std::size_t(j)] == State::kRunnable && !waiting[std::size_t(j)] &&
          rt_of(j) > rt_of(i))
        return true;
    return false;
  }

  int choose_thread(int me) {
    wake_timed_out();
    ready.clear();
    moving.clear();
    for (int i = 0; i < n; ++i)
      if (state[std::size_t(i)] == State::kRunnable && !held_off(i)) {
        ready.push_back(i);
        if (!spinning[std::size_t(i)]) moving.push_back(i);
      }
    // Nobody else can move: a real-time thread not yet arrived arrives now
    // (below, once the decision is recorded: a replay takes its choice).
    int arriving = -1;
    if (moving.empty())
      for (int i = 0; i < n && arriving < 0; ++i)
        if (not_arrived(i) && !held_off(i)) arriving = i;
    if (ready.empty() && arriving < 0) {
      schedule.outcome = Outcome::kDeadlock;
      return -1;
    }
    spin_streak = moving.empty() ? spin_streak + 1 : 0;
    // A spinner waits for someone else to move: it runs only when every
    // runnable thread spins, and then the spinners take turns (the next
    // after the one that ran): their turns only read, so their order
    // changes nothing until one of them writes, and no strategy may keep
    // one spinner running while another could end the wait.
    if (moving.empty() && !ready.empty()) {
      int next = ready.front();
      for (int i : ready)
        if (i > me) {
          next = i;
          break;
        }
      moving.push_back(next);
    }
    const std::vector<int>& pool = moving;
    const bool me_in_pool = me >= 0 && std::find(pool.begin(), pool.end(), me) != pool.end();
    Decision d{0, me >= 0 && state[std::size_t(me)] == State::kRunnable &&
                      !spinning[std::size_t(me)] && !held_off(me), me};
    for (int i : pool) d.eligible |= std::uint64_t(1) << (i & 63);
    for (int i = 0; i < n; ++i) {
      const std::uint64_t bit = std::uint64_t(1) << (i & 63);
      // (a sleeper woken by a choice runs next: only one its CPU would let run)
      if (state[std::size_t(i)] == State::kBlocked && !held_off(i))
        (blocked_until[std::size_t(i)] != 0 ? d.timed : d.sleeping) |= bit;
      else if (checking[std::size_t(i)] && (d.eligible & bit)) d.checking |= bit;
    }
    if (options.footprints) d.state = state_digest();
    schedule.decisions.push_back(d);
    const std::size_t step = schedule.choices.size();
    // From Options::fair_from() on a schedule is fair: the runnable
    // threads take turns. A strategy that keeps one thread running (PCT's
    // priorities, an exhaustive search going on without preemption) would
    // otherwise starve a thread the others wait for in a loop that writes
    // (the kernel's rwsem.c writer retrying while the new owner, its lock
    // taken, has not yet set sem->owner): not a livelock of the lock, and
    // a schedule that reaches max_steps only so is never called one. What
    // is still stuck when every thread gets its turns is.
    const bool fair = steps >= options.fair_from();
    const auto in_turn = [&] {
      for (int i : pool)
        if (i > me) return i;
      return pool.front();
    };
    if (arriving >= 0 && step >= options.replay.size()) return wake_chosen(arriving);
    if (!options.replay.empty() || options.strategy == Strategy::kFirst) {
      if (step >= options.replay.size()) return fair ? in_turn() : me_in_pool ? me : pool.front();
      const int want = chosen_thread(options.replay[step]);
      const bool signal = signal_chosen(options.replay[step]);
      if (want >= 0 && want < n && state[std::size_t(want)] == State::kBlocked)
        return wake_chosen(want);  // the recording woke it here (timed out, or for no reason)
      if (std::find(ready.begin(), ready.end(), want) == ready.end()) {
        schedule.outcome = Outcome::kReplayDiverged;
        return -1;
      }
      // At a signal check the bit is a signal; elsewhere it is a tick at
      // the step's need_resched() check, which tick() reads.
      if (signal && checking[std::size_t(want)]) signal_now[std::size_t(want)] = signalled = true;
      return want;
    }
    for (int i = 0; i < n; ++i)  // a real-time thread whose step came, where its CPU lets it
      if (not_arrived(i) && arrive_at[std::size_t(i)] <= steps && !held_off(i))
        return wake_chosen(i);
    if (expiry_left > 0 && d.timed != 0 && rng() % 8 == 0) {
      --expiry_left;
      return wake_chosen(pick_bit(d.timed));
    }
    if (spurious_left > 0 && rng() % 16 == 0 && d.sleeping != 0) {
      --spurious_left;
      return wake_chosen(pick_bit(d.sleeping));
    }
    if (fair) return in_turn();
    if (options.fair_turns > 0) {  // the longest kept from running, once past the bound
      const std::uint64_t bound = std::uint64_t(options.fair_turns) * std::uint64_t(n);
      int due = -1;
      for (int i : pool) {
        const std::uint64_t from = ready_from[std::size_t(i)];
        if (steps - from >= bound &&
            (due < 0 || from < ready_from[std::size_t(due)]))
          due = i;
      }
      if (due >= 0) return due;
    }
    switch (options.strategy) {
      case Strategy::kRandom:
        return pool[rng() % pool.size()];
      case Strategy::kBounded: {
        const bool may_switch =
            std::find(change_at.begin(), change_at.end(), steps) != change_at.end();
        if (me_in_pool && !(may_switch && pool.size() > 1)) return me;
        if (!me_in_pool) return pool[rng() % pool.size()];
        const int other = int(rng() % (pool.size() - 1));
        int seen = 0;
        for (int i : pool)
          if (i != me && seen++ == other) return i;
        return me;
      }
      case Strategy::kPct:
      case Strategy::kFirst:
        break;
    }
    return *std::max_element(pool.begin(), pool.end(), [&](int a, int b) {
      return priority[std::size_t(a)] < priority[std::size_t(b)];
    });
  }

  // A uniformly random thread among the bits of `set` (not empty).
  int pick_bit(std::uint64_t set) {
    int pick = int(rng() % std::uint64_t(__builtin_popcountll(set)));
    for (int i = 0; i < 64; ++i)
      if ((set >> i & 1) && pick-- == 0) return i;
    return -1;
  }

  std::vector<Schedule::ThreadState> states() const {
    std::vector<Schedule::ThreadState> out;
    for (int i = 0; i < n; ++i) {
      const std::size_t u = std::size_t(i);
      if (state[u] == State::kDone) continue;
      const char* kind = not_arrived(i)              ? "not arrived"
                         : state[u] == State::kBlocked ? "blocked"
                         : held_off(i)               ? "preempted"
                         : spinning[u]               ? "spinning"
                                                     : "runnable";
      out.push_back({i, kind, state[u] == State::kBlocked ? blocked_on[u] : nullptr, at[u]});
    }
    return out;
  }

  // Ends the schedule early; the caller parks.
  void stop(Outcome why) {
    schedule.outcome = why;
    schedule.states = states();
    stopped = true;
    ended = true;
    over.notify_all();
  }

  // Hands the CPU to `next` (chosen by the caller) and waits for the turn
  // of `me` again; parks for good once the schedule is stopped.
  void pass_and_wait(std::unique_lock<std::mutex>& lock, int me, int next) {
    current = next;
    schedule.choices.push_back(code(next));
    ring(lock, next);
    wait_turn(lock, me);
    park_if_stopped(lock, me);
  }

  // Tells `next` (current already) that it runs; returns with `lock` held.
  void ring(std::unique_lock<std::mutex>& lock, int next) {
    if (fibers) return;  // (the switch is its waiting: sleep_once)
    std::atomic<std::uint32_t>& word = bell[std::size_t(next)];
    word.fetch_add(1, std::memory_order_relaxed);
    lock.unlock();
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr,
            nullptr, 0);
    lock.lock();
  }

  // Until `me` runs or the schedule stopped.
  void wait_turn(std::unique_lock<std::mutex>& lock, int me) {
    while (!stopped && current != me) sleep_once(lock, me);
  }

  // A thread of a stopped schedule never runs again: it waits here for
  // good (its process ends, or run() detached it).
  void park_if_stopped(std::unique_lock<std::mutex>& lock, int me) {
    while (stopped) sleep_once(lock, me);
  }

  // Sleeps until the bell of `me` rings (or the futex returns early). The
  // bell is read under the lock and rung under it, so a ring between the
  // unlock and the sleep has changed the word: the sleep returns at once.
  // With fibers it switches to the context that runs now (the caller of
  // run() once the schedule has ended), and returns when switched back.
  void sleep_once(std::unique_lock<std::mutex>& lock, int me) {
    if (fibers) {
      const int to = stopped || ended ? n : current;
      if (to == me) return;
      lock.unlock();
      fiber::switch_to(contexts[std::size_t(me)], contexts[std::size_t(to)]);
      lock.lock();
      return;
    }
    std::atomic<std::uint32_t>& word = bell[std::size_t(me)];
    const std::uint32_t seen = word.load(std::memory_order_relaxed);
    lock.unlock();
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, seen, nullptr,
            nullptr, 0);
    lock.lock();
  }

  void moved() { std::fill(spinning.begin(), spinning.end(), false); }

  // Options::footprints: the running thread's step did more than its own
  // access (the choice that runs it is the latest), or touched `word`.
  void opaque_step() {
    if (options.footprints && !schedule.choices.empty())
      schedule.decisions[schedule.choices.size() - 1].opaque = true;
  }
  void touch(const void* word, bool write) {
    if (options.footprints && !schedule.choices.empty())
      schedule.touches.push_back({std::uint32_t(schedule.choices.size() - 1), word, write});
  }

  // shared_state()'s word: the harness's bookkeeping, as one word.
  char harness_word = 0;

  // Options::footprints: what the scheduler keeps of the threads (and the
  // harness beside the lock) at a decision, as one number.
  std::uint64_t state_digest() const {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    const auto mix = [&h](std::uint64_t v) {
      h = (h ^ v) * 0x100000001b3ULL;
      h ^= h >> 31;
    };
    for (int i = 0; i < n; ++i) {
      const std::size_t u = std::size_t(i);
      mix(std::uint64_t(state[u]) | std::uint64_t(spinning[u]) << 8 |
          std::uint64_t(unplaced[u]) << 9 | std::uint64_t(checking[u]) << 10 |
          std::uint64_t(spurious[u]) << 11 | std::uint64_t(expired[u]) << 12 |
          std::uint64_t(woke_spuriously[u]) << 13 | std::uint64_t(gone[u]) << 14 |
          std::uint64_t(blocked_until[u] != 0) << 15);
      mix(std::uint64_t(times_away[u]) << 32 | std::uint64_t(times_expired[u]) << 16 |
          std::uint64_t(times_slept[u]));
      mix(std::uint64_t(held[u]));
    }
    for (int t : last_on) mix(std::uint64_t(t + 1));
    mix(spin_streak);
    mix(now());
    if (options.harness_state) mix(options.harness_state());
    return h;
  }

  // The calling thread's plain access told before it was made, now made
  // (`me`: the thread): a load's older value out of memory, a store into
  // the model.
  void settle_plain(int me) {
    if (tl_plain_load.word) {
      const PlainAccess p = std::exchange(tl_plain_load, PlainAccess{});
      std::memcpy(const_cast<void*>(p.word), &p.bytes, p.size);
    }
    if (tl_plain_store.word && memory) {
      const PlainAccess p = std::exchange(tl_plain_store, PlainAccess{});
      memory->store(me, p.word, p.size, kRelaxed, &p.bytes);
    }
  }

  // Whether `me`'s step at `word` touches a word another thread of the
  // schedule touched before (pct_conflicts); notes that `me` touched it.
  bool conflicting(int me, const void* word) {
    if (!word) return false;
    std::uint64_t& by = touched[word];
    const std::uint64_t mine = std::uint64_t(1) << me;
    const bool others = (by & ~mine) != 0;
    if (others && (by & mine) == 0 && __builtin_popcountll(by) == 1)
      schedule.shared.push_back(options.word_key(word));  // (its second thread)
    by |= mine;
    return others ||
           (options.shared_words && options.shared_words->count(options.word_key(word)) > 0);
  }

  // `me` reached a point: apply PCT's change point, let the strategy pick
  // the next runner, and once `me` runs again record its step (the trace
  // is in the order the steps were carried out). Returns the step's index.
  // `shared`: a point with no word that stands for shared state all the
  // same (shared_point()): conflict-guided PCT counts it.
  std::size_t step(std::unique_lock<std::mutex>& lock, int me, const char* what,
                   const void* word = nullptr, bool shared = false) {
    settle_plain(me);
    if (options.between_steps) options.between_steps();
    if (state[std::size_t(me)] != State::kBlocked) at[std::size_t(me)] = what;  // asleep: the wait's
    ++steps;
    // The step PCT counts: every one, or (pct_conflicts) the conflicting.
    std::uint64_t counted = steps;
    if (options.pct_conflicts)
      counted = shared || conflicting(me, word) ? ++schedule.conflicts : 0;
    if (options.strategy == Strategy::kPct && counted > 0)
      for (std::size_t i = 0; i < change_at.size(); ++i)
        if (change_at[i] == counted) priority[std::size_t(me)] = int(i) + 1;
    if (steps >= options.max_steps) {
      stop(Outcome::kLivelock);
      park_if_stopped(lock, me);
    }
    const int next = choose(me);
    if (next < 0) {
      stop(schedule.outcome);
      park_if_stopped(lock, me);
    }
    if (spin_streak >= options.spin_bound) {
      stop(Outcome::kLivelock);
      park_if_stopped(lock, me);
    }
    if (next != me && state[std::size_t(me)] == State::kRunnable && !spinning[std::size_t(me)] &&
        !held_off(me))
      ++schedule.preemptions;
    if (next != me) pass_and_wait(lock, me, next);
    else schedule.choices.push_back(code(me));
    if (spurious[std::size_t(me)]) {
      spurious[std::size_t(me)] = false;
      woke_spuriously[std::size_t(me)] = true;
      what = "woken spuriously";
    }
    if (expired[std::size_t(me)]) {
      expired[std::size_t(me)] = false;
      what = "its timeout expires";
    }
    if (signal_now[std::size_t(me)]) what = "a signal arrives";
    const std::size_t index = step_trace = schedule.trace.size();
    schedule.trace.push_back({me, what, word});
    schedule.trace.back().at = std::uint32_t(schedule.choices.size() - 1);
    if (arrived_now[std::size_t(me)]) {
      arrived_now[std::size_t(me)] = false;
      schedule.trace.back().arrived = true;
    }
    schedule.digest = (schedule.digest ^ std::hash<std::string_view>{}(what)) * 0x100000001b3ULL +
                      std::uint64_t(me) + 1;
    return index;
  }
};

thread_local Run* tl_run = nullptr;
thread_local int tl_index = -1;
thread_local std::size_t tl_access = 0;  // the trace index of this thread's last access
thread_local bool tl_next_spin_unplaced = false;  // spin_unplaced() was called
thread_local int tl_tid = 0;  // with fibers: the donor's thread id (thread_tid())
// A store told to the model before its step has its value (the kernel
// layer's accesses tell the model inside the access, before accessed()):
// the model takes it once accessed() says what the word held before it.
struct Pending {
  const void* word = nullptr;
  std::size_t size = 0;
  AccessKind kind = AccessKind::kStore;
  int order = 0;
};
thread_local Pending tl_pending;

}  // namespace

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kDone: return "done";
    case Outcome::kDeadlock: return "deadlock";
    case Outcome::kLivelock: return "livelock";
    case Outcome::kReplayDiverged: return "replay diverged";
  }
  return "?";
}

const Schedule* schedule_so_far() { return tl_run ? &tl_run->schedule : nullptr; }

std::vector<int> essential_choices(const Schedule& s) {
  std::size_t keep = 0;
  for (std::size_t i = 0; i < s.choices.size() && i < s.decisions.size(); ++i) {
    const Decision& d = s.decisions[i];
    int by_itself = -1;
    if (d.from >= 0 && (d.eligible >> d.from & 1)) by_itself = d.from;
    else if (d.eligible != 0) by_itself = __builtin_ctzll(d.eligible);
    if (s.choices[i] != by_itself) keep = i + 1;
  }
  return {s.choices.begin(), s.choices.begin() + std::ptrdiff_t(keep)};
}

double pct_bound(int n, std::uint64_t k, int depth) {
  return 1.0 / (double(std::max(1, n)) * std::pow(double(std::max<std::uint64_t>(1, k)),
                                                   double(std::max(0, depth - 1))));
}

bool active() { return tl_run != nullptr; }

int thread_index() { return tl_run ? tl_index : -1; }

std::uint64_t run_id() { return tl_run ? tl_run->id : 0; }

bool asleep(int i) {
  Run* r = tl_run;
  if (!r || i < 0 || i >= r->n) return false;
  std::lock_guard lock(r->mutex);
  r->opaque_step();
  return r->state[std::size_t(i)] == State::kBlocked;
}

bool spinning_in_place(int i) {
  Run* r = tl_run;
  if (!r || i < 0 || i >= r->n) return false;
  std::lock_guard lock(r->mutex);
  r->opaque_step();
  const std::size_t u = std::size_t(i);
  return r->state[u] == State::kRunnable && r->spinning[u] && !r->unplaced[u];
}

void spin_unplaced() { tl_next_spin_unplaced = true; }

bool finished(int i) {
  Run* r = tl_run;
  if (!r || i < 0 || i >= r->n) return false;
  std::lock_guard lock(r->mutex);
  r->opaque_step();
  return r->state[std::size_t(i)] == State::kDone;
}

int thread_count() { return tl_run ? tl_run->n : 0; }

std::uint64_t all_spinning_for() {
  Run* r = tl_run;
  if (!r) return 0;
  std::lock_guard lock(r->mutex);
  r->opaque_step();
  return r->spin_streak;
}

void set_away(bool is_away) {
  Run* r = tl_run;
  if (!r) return;
  std::lock_guard lock(r->mutex);
  r->opaque_step();
  r->gone[std::size_t(tl_index)] = is_away;
  if (is_away) ++r->times_away[std::size_t(tl_index)];
}

bool away(int i) {
  Run* r = tl_run;
  if (!r || i < 0 || i >= r->n) return false;
  std::lock_guard lock(r->mutex);
  r->opaque_step();
  return r->gone[std::size_t(i)];
}

int times_away(int i) {
  Run* r = tl_run;
  if (!r || i < 0 || i >= r->n) return 0;
  std::lock_guard lock(r->mutex);
  r->opaque_step();
  return r->times_away[std::size_t(i)];
}

void signalled() {
  Run* r = tl_run;
  if (!r) return;
  std::lock_guard lock(r->mutex);
  r->opaque_step();
  ++r->times_away[std::size_t(tl_index)];
}

int times_expired(int i) {
  Run* r = tl_run;
  if (!r || i < 0 || i >= r->n) return 0;
  std::lock_guard lock(r->mutex);
  r->opaque_step();
  return r->times_expired[std::size_t(i)];
}

int times_slept(int i) {
  Run* r = tl_run;
  if (!r || i < 0 || i >= r->n) return 0;
  std::lock_guard lock(r->mutex);
  r->opaque_step();
  return r->times_slept[std::size_t(i)];
}

bool judges_fairness() { return tl_run && tl_run->options.fair_turns > 0; }

bool signals() { return tl_run && tl_run->options.signals; }

bool woke_spuriously() {
  Run* r = tl_run;
  if (!r) return false;
  std::lock_guard lock(r->mutex);
  const bool was = r->woke_spuriously[std::size_t(tl_index)];
  r->woke_spuriously[std::size_t(tl_index)] = false;
  return was;
}

namespace {

// point() and shared_point(): `shared`, the step stands for shared state.
void point_of(const char* what, bool shared) {
  Run* r = tl_run;
  if (!r) return;
  std::unique_lock lock(r->mutex);
  r->moved();  // someone may have changed something: spinners look again
  r->step(lock, tl_index, what, nullptr, shared);
  if (shared) r->touch(&r->harness_word, true);  // (what the harness checks there)
}

}  // namespace

void point(const char* what) { point_of(what, false); }

void shared_point(const char* what) { point_of(what, true); }

void shared_state() {
  if (Run* r = tl_run) r->touch(&r->harness_word, true);
}

void mark(const char* what) {
  Run* r = tl_run;
  if (!r) return;
  std::lock_guard lock(r->mutex);
  r->schedule.marks.push_back({r->schedule.trace.size(), tl_index, what});
}

bool signal_check(const char* what) {
  Run* r = tl_run;
  if (!r) return false;
  std::unique_lock lock(r->mutex);
  const std::size_t u = std::size_t(tl_index);
  r->moved();
  r->checking[u] = true;
  r->step(lock, tl_index, what);
  r->checking[u] = false;
  r->signal_at = r->schedule.choices.size() - 1;
  const bool arrived = r->signal_now[u];
  r->signal_now[u] = false;
  if (arrived) ++r->times_away[u];  // on its way out: given up its place (times_away())
  return arrived;
}

namespace {

enum class StepEvent { kTick, kJump, kForeignWake, kInterrupt };

// A tick, a time jump, a wake-up from another wake_q or an interrupt
// offered at the calling thread's step: whether it comes. The step's first offer decides (a replay makes the same one
// come, from the step's kSignalChoice); never at a signal check's step.
// `left` is the sampled schedule's budget, one in `odds` offers taken.
bool step_event(Run* r, StepEvent kind, int& left, unsigned odds) {
  // Only the thread holding the baton runs: no lock (as for weak choices).
  std::vector<int>& choices = r->schedule.choices;
  if (choices.empty()) return false;
  const std::size_t at = choices.size() - 1;  // the caller's step
  if (r->event_at == at || r->signal_at == at) return false;
  r->event_at = at;
  if (at < r->schedule.decisions.size()) {  // (offered)
    Decision& d = r->schedule.decisions[at];
    (kind == StepEvent::kTick         ? d.tick
     : kind == StepEvent::kJump        ? d.jump
     : kind == StepEvent::kForeignWake ? d.foreign_wake
                                       : d.interrupt) = true;
  }
  const Options& o = r->options;
  if (!o.replay.empty() || o.strategy == Strategy::kFirst) {
    if (at >= o.replay.size() || !signal_chosen(o.replay[at])) return false;
  } else if (left <= 0 || r->rng() % odds != 0) {
    return false;
  } else {
    --left;
  }
  choices[at] += kSignalChoice;
  if (r->step_trace < r->schedule.trace.size()) {
    Step& s = r->schedule.trace[r->step_trace];
    if (kind == StepEvent::kTick)
      s.tick = true;
    else if (kind == StepEvent::kJump)
      s.jump_ns = o.time_jump_ns;
    else if (kind == StepEvent::kForeignWake)
      s.foreign_wake = true;
    else
      s.interrupt = true;
  }
  return true;
}

}  // namespace

bool tick() {
  Run* r = tl_run;
  return r && step_event(r, StepEvent::kTick, r->tick_left, 32);
}

bool foreign_wake() {
  Run* r = tl_run;
  if (!r || r->options.spurious_wakes <= 0) return false;  // (offers nothing without the budget)
  // The wake-up touches the woken task's state, which the step's own
  // accesses (the layer's try_to_wake_up) show.
  return step_event(r, StepEvent::kForeignWake, r->spurious_left, 4);
}

bool post_interrupt(void* work) {
  Run* r = tl_run;
  if (!r || r->options.interrupts <= 0) return false;
  if (!work) return true;  // (only asked)
  // Only the thread holding the baton runs: no lock. The queue is shared
  // by every thread's interrupts (a reduced search sees it as the
  // harness's word).
  r->interrupt_work.push_back(work);
  r->touch(&r->harness_word, true);
  return true;
}

void* interrupt(bool force) {
  Run* r = tl_run;
  if (!r || r->interrupt_work.empty()) return nullptr;
  if (!force && !step_event(r, StepEvent::kInterrupt, r->interrupt_left, 2)) return nullptr;
  if (force && r->step_trace < r->schedule.trace.size())
    r->schedule.trace[r->step_trace].interrupt = true;
  void* work = r->interrupt_work.front();
  r->interrupt_work.pop_front();
  r->touch(&r->harness_word, true);
  return work;
}

std::uint64_t read_clock() {
  Run* r = tl_run;
  if (!r) return now_ns();
  r->opaque_step();
  // Without jumps a clock read offers nothing, and leaves its step's event
  // to a tick (the schedules are the ones made before time could jump).
  if (r->options.time_jumps <= 0) return now_ns();
  if (step_event(r, StepEvent::kJump, r->jump_left, 16)) {
    std::lock_guard lock(r->mutex);  // now() is read under it by the scheduler
    r->skipped_ns += r->options.time_jump_ns;
  }
  return now_ns();
}

namespace {

// spin() and harness_wait(): a busy-wait turn; `harness`, the harness's
// (as if asleep for its CPU while it waits for its turn).
void spin_turn(const char* what, bool harness) {
  Run* r = tl_run;
  if (!r) return;
  std::unique_lock lock(r->mutex);
  const std::size_t me = std::size_t(tl_index);
  r->spinning[me] = true;
  r->unplaced[me] = !harness && std::exchange(tl_next_spin_unplaced, false);
  r->waiting[me] = harness;
  r->step(lock, tl_index, what);
  r->waiting[me] = false;
}

}  // namespace

void spin(const char* what) { spin_turn(what, false); }

void harness_wait(const char* what) { spin_turn(what, true); }

void access(const void* word, const char* what) {
  Run* r = tl_run;
  if (!r) return;
  std::unique_lock lock(r->mutex);
  tl_access = r->step(lock, tl_index, what, word);
}

void accessed(std::uint64_t before, std::uint64_t after) {
  Run* r = tl_run;
  if (!r) return;
  // Only the thread holding the baton runs: its step is not being touched.
  Step& s = r->schedule.trace[tl_access];
  s.has_value = true;
  s.before = before;
  if (s.older == 0) s.after = after;  // (a load that read an older value shows that one)
  if (tl_pending.word) {
    const Pending p = std::exchange(tl_pending, Pending{});
    model_access(p.word, p.size, p.kind, p.order);
  }
  if (before != after) {
    std::lock_guard lock(r->mutex);
    r->moved();  // the word changed: whoever spins on it may look again
  }
}

namespace {

// The calling thread's current trace step, when it is an access to `word`.
Step* step_at(Run* r, const void* word) {
  if (tl_access >= r->schedule.trace.size()) return nullptr;
  Step& s = r->schedule.trace[tl_access];
  return s.thread == tl_index && s.word == word ? &s : nullptr;
}

// The value the calling thread's current step found at `word` (its trace
// step, when it recorded one for that word).
const std::uint64_t* found_at(Run* r, const void* word) {
  const Step* s = step_at(r, word);
  return s && s->has_value ? &s->before : nullptr;
}

// A weak choice (a load's older value, a store placed early) at the step
// whose choice is choices[at]: a replay or an exhaustive search takes the
// rank the step's code gives (0: none); random, pct and bounded schedules
// take one within the --stale-reads budget, one time in four where one is
// offered (kSampled: the caller draws which). `offered`: how many there
// are, recorded on the step's decision for the exhaustive search.
constexpr int kSampled = -1;
int weak_choice(Run* r, std::size_t at, int offered) {
  // One weak choice a step: the first access offered one decides it (a
  // step's plain loads come after its own access).
  if (r->weak_at == at) return 0;
  r->weak_at = at;
  if (at < r->schedule.decisions.size()) r->schedule.decisions[at].weak = offered;
  const Options& o = r->options;
  if (!o.replay.empty() || o.strategy == Strategy::kFirst)
    return at < o.replay.size() ? read_chosen(o.replay[at]) : 0;
  if (r->stale_left <= 0 || r->rng() % 4 != 0) return 0;
  --r->stale_left;
  return kSampled;
}

// Whether the calling thread's store is placed before the latest store to
// its word (one it has not seen; --memory c11): a choice as a load's older
// value is, within the same budget, recorded as rank 1 on the step's choice.
bool store_early(Run* r, const void* word, std::size_t size, int order,
                 const std::uint64_t* found) {
  const int t = tl_index;
  std::vector<int>& choices = r->schedule.choices;
  if (choices.empty() || !r->memory->place_early(t, word, size, order, found)) return false;
  const std::size_t at = choices.size() - 1;
  const int rank = weak_choice(r, at, 1);
  if (rank != kSampled && rank != 1) return false;
  choices[at] += kReadChoice;
  if (Step* s = step_at(r, word)) s->early = true, s->early_of = r->memory->missed(t, word);
  return true;
}

}  // namespace

// The model is touched only by the thread holding the baton (and the
// baton's hand-over orders it): no lock.
void model_access(const void* word, std::size_t size, AccessKind kind, int order) {
  Run* r = tl_run;
  if (!r || !r->memory) return;
  const int t = tl_index;
  r->touch(word, kind != AccessKind::kLoad);
  r->settle_plain(t);
  if (kind != AccessKind::kLoad) {
    if (const Step* s = step_at(r, word); s && !s->has_value) {
      tl_pending = {word, size, kind, order};  // until accessed()
      return;
    }
  }
  switch (kind) {
    case AccessKind::kLoad: r->memory->load(t, word, size, order, 0); break;
    case AccessKind::kStore: {
      const std::uint64_t* found = found_at(r, word);
      r->memory->store(t, word, size, order, found, store_early(r, word, size, order, found));
      break;
    }
    case AccessKind::kRmw: r->memory->rmw(t, word, size, order, found_at(r, word)); break;
    case AccessKind::kLocalRmw: r->memory->local_rmw(t, word, size, found_at(r, word)); break;
  }
}

void model_load(const void* word, std::size_t size, int order, void* value) {
  Run* r = tl_run;
  if (!r || !r->memory) return;
  const int t = tl_index;
  r->touch(word, false);
  r->settle_plain(t);
  std::uint64_t older[MemoryModel::kMaxOlder];
  const int offered = size <= 8 ? r->memory->older(t, word, size, order, older) : 0;
  int pick = 0;
  // The choice belongs to the step that let this thread run its load: the
  // latest choice recorded (nobody else ran since).
  std::vector<int>& choices = r->schedule.choices;
  const std::size_t at = choices.empty() ? 0 : choices.size() - 1;
  if (offered > 0 && !choices.empty()) {
    const int rank = weak_choice(r, at, offered);
    pick = rank == kSampled ? 1 + int(r->rng() % std::uint64_t(offered)) : std::min(rank, offered);
  }
  r->memory->load(t, word, size, order, pick);
  if (pick == 0) return;
  choices[at] += pick * kReadChoice;
  std::memcpy(value, &older[pick - 1], size);
  if (Step* s = step_at(r, word)) s->older = pick, s->after = older[pick - 1];
}

void model_fence(int order) {
  if (Run* r = tl_run; r && r->memory) {
    r->opaque_step();
    r->settle_plain(tl_index);
    r->memory->fence(tl_index, order);
  }
}

void model_fence_everyone() {
  if (Run* r = tl_run; r && r->memory) {
    r->opaque_step();
    r->settle_plain(tl_index);
    r->memory->fence_everyone();
  }
}

namespace {

// Whether the calling thread's plain access of `size` bytes at `word` goes
// to the model: at most a word, not inside the layer's own access of the
// same word (which reports itself), to a word the model follows.
bool plain_followed(Run* r, const void* word, std::size_t size) {
  if (size == 0 || size > 8) return false;
  if (const Step* s = step_at(r, word); s && !s->has_value) return false;
  return r->memory->follows(word, size);
}

}  // namespace

void model_plain_store(const void* word, std::size_t size) {
  Run* r = tl_run;
  if (r) r->touch(word, true);
  if (!r || !r->memory) return;
  r->settle_plain(tl_index);
  if (!plain_followed(r, word, size)) return;
  tl_plain_store = {word, size, 0};
  std::memcpy(&tl_plain_store.bytes, word, size);
}

void model_plain_load(const void* word, std::size_t size) {
  Run* r = tl_run;
  if (r) r->touch(word, false);
  if (!r || !r->memory) return;
  const int t = tl_index;
  r->settle_plain(t);
  if (!plain_followed(r, word, size)) return;
  std::uint64_t older[MemoryModel::kMaxOlder];
  const int offered = r->memory->older(t, word, size, kRelaxed, older);
  std::vector<int>& choices = r->schedule.choices;
  int pick = 0;
  if (offered > 0 && !choices.empty()) {
    const std::size_t at = choices.size() - 1;
    const int rank = weak_choice(r, at, offered);
    pick = rank == kSampled ? 1 + int(r->rng() % std::uint64_t(offered)) : std::min(rank, offered);
    if (pick > 0) {
      choices[at] += pick * kReadChoice;
      // The older value in memory for this one load; the latest back at
      // the thread's next step or model event.
      tl_plain_load = {word, size, 0};
      std::memcpy(&tl_plain_load.bytes, word, size);
      std::memcpy(const_cast<void*>(word), &older[pick - 1], size);
      Step st{t, "plain load", word};
      st.has_value = true;
      st.before = tl_plain_load.bytes;
      st.after = older[pick - 1];
      st.older = pick;
      st.at = std::uint32_t(at);
      r->schedule.trace.push_back(st);
    }
  }
  r->memory->load(t, word, size, kRelaxed, pick);
}

bool models_memory() { return tl_run && tl_run->memory; }

int model_missed(const void* word) {
  Run* r = tl_run;
  if (!r || !r->memory) return -1;
  r->touch(word, false);
  r->settle_plain(tl_index);
  return r->memory->missed(tl_index, word);
}

namespace {

// The sleep of futex_wait and futex_wait_for: a point first (the word may
// change before the thread looks), then, if it still holds `expected`,
// blocked until a wake (or the deadline, run time; 0 none).
void wait_on(const std::atomic<std::uint32_t>* word, std::uint32_t expected,
             std::uint64_t deadline_from_now, bool timed, const char* what) {
  Run* r = tl_run;
  if (!r) return;
  std::unique_lock lock(r->mutex);
  const int me = tl_index;
  r->step(lock, me, what, word);
  if (timed) r->opaque_step();  // (its deadline: the clock now)
  if (r->memory) r->memory->settle(me, word, sizeof *word);  // the system call reads memory
  if (word->load(std::memory_order_relaxed) != expected) return;  // as FUTEX_WAIT: EAGAIN
  if (timed && deadline_from_now == 0) return;
  const std::size_t u = std::size_t(me);
  r->state[u] = State::kBlocked;
  r->blocked_on[u] = word;
  r->blocked_since[u] = ++r->waits;
  ++r->times_slept[u];
  r->blocked_until[u] = timed ? r->now() + deadline_from_now : 0;
  r->step(lock, me, "woken", word);
}

}  // namespace

void futex_wait(const std::atomic<std::uint32_t>* word, std::uint32_t expected, const char* what) {
  wait_on(word, expected, 0, false, what);
}

void futex_wait_for(const std::atomic<std::uint32_t>* word, std::uint32_t expected,
                    std::uint64_t timeout_ns, const char* what) {
  wait_on(word, expected, timeout_ns, true, what);
}

int futex_wake(const void* word, int n) {
  Run* r = tl_run;
  if (!r) return 0;
  std::unique_lock lock(r->mutex);
  r->touch(word, true);
  if (r->memory) r->memory->settle(tl_index, word, 4);
  // The longest blocked first, as the kernel's futex hash bucket queue.
  std::vector<int> waiters;
  for (int i = 0; i < r->n; ++i)
    if (r->state[std::size_t(i)] == State::kBlocked && r->blocked_on[std::size_t(i)] == word)
      waiters.push_back(i);
  std::sort(waiters.begin(), waiters.end(), [&](int a, int b) {
    return r->blocked_since[std::size_t(a)] < r->blocked_since[std::size_t(b)];
  });
  int woken = 0;
  for (int i : waiters) {
    if (woken == n) break;
    r->unblock(std::size_t(i));
    if (r->memory) r->memory->wake(tl_index, i);
    if (!r->schedule.trace.empty() && r->schedule.trace.back().thread == tl_index)
      r->schedule.trace.back().woke |= std::uint64_t(1) << i;  // (the waker's latest step)
    ++woken;
  }
  if (woken > 0) r->moved();
  return woken;
}

std::uint64_t now_ns() {
  if (Run* r = tl_run) {
    r->opaque_step();
    return r->now();
  }
  return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count());
}

int thread_tid() { return tl_run && tl_tid > 0 ? tl_tid : int(gettid()); }

int current_cpu() { return tl_run ? tl_index : sched_getcpu(); }

void preempt_hold(int delta) {
  Run* r = tl_run;
  if (!r || r->options.virtual_cpus <= 0) return;
  std::lock_guard lock(r->mutex);
  r->opaque_step();
  int& held = r->held[std::size_t(tl_index)];
  held = std::max(0, held + delta);
}

int rt_priority(int i) {
  Run* r = tl_run;
  if (!r || i < 0 || i >= r->n) return 0;
  return r->rt_of(i);  // (fixed for the run: no lock needed)
}

bool preempted(int i) {
  Run* r = tl_run;
  if (!r || i < 0 || i >= r->n || r->options.virtual_cpus <= 0) return false;
  std::lock_guard lock(r->mutex);
  r->opaque_step();
  return r->state[std::size_t(i)] == State::kRunnable && r->held_off(i);
}

void name_object(const void* begin, std::size_t size, const char* what) {
  Run* r = tl_run;
  if (!r) return;
  std::lock_guard lock(r->mutex);
  r->schedule.objects.push_back({begin, size, tl_index, what, false});
}

const NamedObject* object_of(const Schedule& s, const void* word) {
  const NamedObject* best = nullptr;
  const auto* w = static_cast<const char*>(word);
  for (const NamedObject& o : s.objects) {
    const auto* b = static_cast<const char*>(o.begin);
    if (w >= b && w < b + o.size && (!best || o.size <= best->size)) best = &o;  // the latest
  }
  return best;
}

// One schedule's threads run one at a time, so they share one CPU: the
// one the caller is on as the schedule starts (chosen again for every
// schedule, so the kernel still balances a search among CPUs). A hand-over
// is then a wake and a switch on that CPU, with no cross-CPU wake-up, and
// searches side by side (--jobs) do not take each other's CPUs. The caller
// is kept there too while the schedule runs (the threads it starts take
// its CPUs), then gets its own CPUs back.
class OnOneCpu {
 public:
  OnOneCpu() {
    const int cpu = sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE) return;
    if (pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) != 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pinned_ = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;  // refused: runs unpinned
  }
  ~OnOneCpu() {
    if (pinned_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
  }
  OnOneCpu(const OnOneCpu&) = delete;
  OnOneCpu& operator=(const OnOneCpu&) = delete;

 private:
  cpu_set_t saved_{};
  bool pinned_ = false;
};

bool keep_process_on_nth_cpu(int nth) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) == 0) return false;
  int left = nth % CPU_COUNT(&allowed);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed) || left-- > 0) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0;
  }
  return false;
}

namespace {

// A thread of the schedule, from its first turn to its end: returns once
// it finished (or the schedule was stopped at its end) and the next runs.
void run_thread(Run* r, const std::function<void(int)>& task, int i, const void* stack,
                std::size_t stack_size) {
  {
    std::unique_lock lock(r->mutex);
    if (stack) r->schedule.objects.push_back({stack, stack_size, i, "stack", true});
    r->wait_turn(lock, i);
    r->park_if_stopped(lock, i);
    r->opaque_step();  // (what the body does before its first point)
  }
  task(i);
  std::unique_lock lock(r->mutex);
  r->settle_plain(i);
  r->state[std::size_t(i)] = State::kDone;
  r->at[std::size_t(i)] = "done";
  if (++r->finished == r->n) {
    r->ended = true;
    r->over.notify_all();
    return;
  }
  r->moved();
  const int next = r->choose(-1);
  if (next < 0) {
    r->stop(r->schedule.outcome);
    return;
  }
  r->current = next;
  r->schedule.choices.push_back(r->code(next));
  r->ring(lock, next);
}

struct FiberStart {
  Run* run;
  const std::function<void(int)>* task;
  int index;
};

// A context's entry: the thread, then its CPU handed on for good (a
// finished thread is never chosen; once the schedule has ended the caller
// of run() takes it back).
void fiber_main(void* arg) {
  const FiberStart start = *static_cast<FiberStart*>(arg);
  Run* r = start.run;
  const auto u = std::size_t(start.index);
  tl_run = r;
  tl_index = start.index;
  tl_tid = r->donors[u]->tid();
  run_thread(r, *start.task, start.index, r->stacks[u]->base(), r->stacks[u]->size());
  // Outside the run from here, as an OS thread is once it left it: its
  // thread-local destructors run once the schedule has ended (give_back).
  tl_run = nullptr;
  tl_index = -1;
  tl_tid = 0;
  std::unique_lock lock(r->mutex);
  for (;;) r->sleep_once(lock, start.index);
}

}  // namespace

Schedule run(int n, const Options& options, const std::function<void(int)>& body) {
  auto r = std::make_shared<Run>(n, options);
  auto task = std::make_shared<std::function<void(int)>>(body);
  const OnOneCpu pinned;
  r->fibers = !options.os_threads && fiber::available();
  std::vector<std::thread> threads;
  std::vector<FiberStart> starts;
  if (r->fibers) {
    r->contexts.resize(std::size_t(n) + 1);
    r->contexts[std::size_t(n)].fs = fiber::current_fs();
    starts.reserve(std::size_t(n));
    for (int i = 0; i < n; ++i) {
      r->donors.push_back(fiber::take_donor());
      r->stacks.push_back(std::make_unique<fiber::Stack>());
      starts.push_back({r.get(), task.get(), i});
    }
    for (int i = 0; i < n; ++i) {
      const auto u = std::size_t(i);
      r->contexts[u] = fiber::prepare(*r->stacks[u], r->donors[u]->fs(), &fiber_main, &starts[u]);
    }
  } else {
    threads.reserve(std::size_t(n));
    for (int i = 0; i < n; ++i)
      threads.emplace_back([r, task, i] {
        tl_run = r.get();
        tl_index = i;
        pthread_attr_t attr;
        void* stack = nullptr;
        std::size_t stack_size = 0;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
          pthread_attr_getstack(&attr, &stack, &stack_size);
          pthread_attr_destroy(&attr);
        }
        run_thread(r.get(), *task, i, stack, stack_size);
        // Exits (its thread-local destructors run) only once the schedule
        // has ended: what they free or give back (a kernel task, its CPU
        // slot) is not taken by a thread still running, at a moment the
        // schedule does not decide.
        std::unique_lock lock(r->mutex);
        r->over.wait(lock, [&] { return r->ended; });
        tl_run = nullptr;
      });
  }
  Schedule result;
  {
    std::unique_lock lock(r->mutex);
    const int first = r->choose(-1);
    r->current = first;
    r->schedule.choices.push_back(r->code(first));
    r->ring(lock, first);
    if (r->fibers)
      while (!r->ended) r->sleep_once(lock, n);
    else
      r->over.wait(lock, [&] { return r->ended; });
    result = r->schedule;
  }
  const bool all_done = result.outcome == Outcome::kDone;
  if (r->fibers) {
    if (all_done) {
      for (auto& d : r->donors) fiber::give_back(std::move(d));  // (thread-local destructors run)
      r->donors.clear();
      r->stacks.clear();
    } else {
      // Stopped in the middle: the contexts keep their stacks and the
      // donors their thread-local state, parked for good, as a stopped
      // schedule's OS threads are (what the lock keeps may point there).
      // (A context copies its FiberStart as it starts; one never started
      // is never switched to.)
      new std::shared_ptr<Run>(r);
      new std::shared_ptr<std::function<void(int)>>(task);
    }
  }
  for (std::thread& t : threads) {
    if (all_done)
      t.join();
    else
      t.detach();  // parked for good, holding `r`
  }
  return result;
}

}  // namespace rwstress::controlled
