// The controlled scheduler: one baton (mutex + condition variable) passed
// between real threads at their scheduling points (controlled.h).
#include "platform/controlled.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <random>
#include <string_view>
#include <thread>

#include <fmt/format.h>

namespace rwstress::controlled {

namespace {

enum class State : std::uint8_t { kRunnable, kBlocked, kDone };

struct Run {
  Run(int threads, const Options& o) : n(threads), options(o), rng(o.seed) {
    state.assign(std::size_t(n), State::kRunnable);
    blocked_on.assign(std::size_t(n), nullptr);
    blocked_since.assign(std::size_t(n), 0);
    spinning.assign(std::size_t(n), false);
    at.assign(std::size_t(n), "start");
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
  }

  const int n;
  const Options options;
  std::mutex mutex;
  std::condition_variable cv;
  int current = -1;      // the one thread allowed to run
  bool stopped = false;  // the schedule ended early: nobody runs again
  bool ended = false;    // every body returned, or stopped
  int finished = 0;
  std::uint64_t waits = 0;  // futex_wait calls that blocked, for FIFO wakes
  std::vector<State> state;
  std::vector<const void*> blocked_on;
  std::vector<std::uint64_t> blocked_since;
  std::vector<bool> spinning;
  std::vector<const char*> at;  // where each thread last stopped
  std::vector<int> priority;    // PCT
  std::vector<std::uint64_t> change_at;  // PCT: steps whose runner drops
  std::mt19937_64 rng;
  Schedule schedule;

  // Picks who runs the next step, or -1 (nobody can, or a replay diverged:
  // `schedule.outcome` says which). Under the mutex.
  int choose() {
    std::vector<int> ready, moving;
    for (int i = 0; i < n; ++i)
      if (state[std::size_t(i)] == State::kRunnable) {
        ready.push_back(i);
        if (!spinning[std::size_t(i)]) moving.push_back(i);
      }
    if (ready.empty()) {
      schedule.outcome = Outcome::kDeadlock;
      return -1;
    }
    const std::size_t step = schedule.choices.size();
    if (!options.replay.empty()) {
      if (step >= options.replay.size()) return ready.front();  // past the recording
      const int want = options.replay[step];
      if (std::find(ready.begin(), ready.end(), want) == ready.end()) {
        schedule.outcome = Outcome::kReplayDiverged;
        return -1;
      }
      return want;
    }
    // A spinner waits for someone else to move: it runs only when every
    // runnable thread spins.
    const std::vector<int>& pool = moving.empty() ? ready : moving;
    if (options.strategy == Strategy::kRandom) return pool[rng() % pool.size()];
    return *std::max_element(pool.begin(), pool.end(), [&](int a, int b) {
      return priority[std::size_t(a)] < priority[std::size_t(b)];
    });
  }

  std::vector<std::string> states() const {
    std::vector<std::string> lines;
    for (int i = 0; i < n; ++i) {
      const std::size_t u = std::size_t(i);
      if (state[u] == State::kDone) continue;
      lines.push_back(state[u] == State::kBlocked
                          ? fmt::format("thread {}: blocked on {} at {}", i, blocked_on[u], at[u])
                          : fmt::format("thread {}: {} at {}", i,
                                        spinning[u] ? "spinning" : "runnable", at[u]));
    }
    return lines;
  }

  // Ends the schedule early; the caller parks.
  void stop(Outcome why) {
    schedule.outcome = why;
    schedule.states = states();
    stopped = true;
    ended = true;
    cv.notify_all();
  }

  // Hands the CPU to `next` (chosen by the caller) and waits for the turn
  // of `me` again; parks for good once the schedule is stopped.
  void pass_and_wait(std::unique_lock<std::mutex>& lock, int me, int next) {
    current = next;
    schedule.choices.push_back(next);
    cv.notify_all();
    cv.wait(lock, [&] { return stopped || current == me; });
    while (stopped) cv.wait(lock);  // parked: never runs again
  }

  // `me` reached a point: record the step, apply PCT's change point, and
  // let the strategy pick the next runner.
  void step(std::unique_lock<std::mutex>& lock, int me, const char* what) {
    at[std::size_t(me)] = what;
    schedule.trace.push_back({me, what});
    schedule.digest = (schedule.digest ^ std::hash<std::string_view>{}(what)) * 0x100000001b3ULL +
                      std::uint64_t(me) + 1;
    const std::uint64_t s = schedule.trace.size();
    for (std::size_t i = 0; i < change_at.size(); ++i)
      if (change_at[i] == s) priority[std::size_t(me)] = int(i) + 1;
    if (s >= options.max_steps) {
      stop(Outcome::kLivelock);
      while (true) cv.wait(lock);
    }
    const int next = choose();
    if (next < 0) {
      stop(schedule.outcome);
      while (true) cv.wait(lock);
    }
    if (next != me && state[std::size_t(me)] == State::kRunnable && !spinning[std::size_t(me)])
      ++schedule.preemptions;
    if (next != me) pass_and_wait(lock, me, next);
    else schedule.choices.push_back(me);
  }
};

thread_local Run* tl_run = nullptr;
thread_local int tl_index = -1;

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

double pct_bound(int n, std::uint64_t k, int depth) {
  return 1.0 / (double(std::max(1, n)) * std::pow(double(std::max<std::uint64_t>(1, k)),
                                                   double(std::max(0, depth - 1))));
}

bool active() { return tl_run != nullptr; }

void point(const char* what) {
  Run* r = tl_run;
  if (!r) return;
  std::unique_lock lock(r->mutex);
  // Someone moved: whoever spun waiting for it may look again.
  std::fill(r->spinning.begin(), r->spinning.end(), false);
  r->step(lock, tl_index, what);
}

void spin(const char* what) {
  Run* r = tl_run;
  if (!r) return;
  std::unique_lock lock(r->mutex);
  r->spinning[std::size_t(tl_index)] = true;
  r->step(lock, tl_index, what);
}

void futex_wait(const std::atomic<std::uint32_t>* word, std::uint32_t expected, const char* what) {
  Run* r = tl_run;
  if (!r) return;
  std::unique_lock lock(r->mutex);
  if (word->load(std::memory_order_relaxed) != expected) return;  // as FUTEX_WAIT: EAGAIN
  const int me = tl_index;
  const std::size_t u = std::size_t(me);
  r->state[u] = State::kBlocked;
  r->blocked_on[u] = word;
  r->blocked_since[u] = ++r->waits;
  std::fill(r->spinning.begin(), r->spinning.end(), false);
  r->step(lock, me, what);
}

int futex_wake(const void* word, int n) {
  Run* r = tl_run;
  if (!r) return 0;
  std::unique_lock lock(r->mutex);
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
    r->state[std::size_t(i)] = State::kRunnable;
    r->blocked_on[std::size_t(i)] = nullptr;
    ++woken;
  }
  return woken;
}

Schedule run(int n, const Options& options, const std::function<void(int)>& body) {
  auto r = std::make_shared<Run>(n, options);
  auto task = std::make_shared<std::function<void(int)>>(body);
  std::vector<std::thread> threads;
  threads.reserve(std::size_t(n));
  for (int i = 0; i < n; ++i)
    threads.emplace_back([r, task, i] {
      tl_run = r.get();
      tl_index = i;
      {
        std::unique_lock lock(r->mutex);
        r->cv.wait(lock, [&] { return r->stopped || r->current == i; });
        while (r->stopped) r->cv.wait(lock);
      }
      (*task)(i);
      std::unique_lock lock(r->mutex);
      r->state[std::size_t(i)] = State::kDone;
      r->at[std::size_t(i)] = "done";
      if (++r->finished == r->n) {
        r->ended = true;
        r->cv.notify_all();
        return;
      }
      std::fill(r->spinning.begin(), r->spinning.end(), false);
      const int next = r->choose();
      if (next < 0) {
        r->stop(r->schedule.outcome);
        return;
      }
      r->current = next;
      r->schedule.choices.push_back(next);
      r->cv.notify_all();
      tl_run = nullptr;
    });
  Schedule result;
  {
    std::unique_lock lock(r->mutex);
    const int first = r->choose();
    r->current = first;
    r->schedule.choices.push_back(first);
    r->cv.notify_all();
    r->cv.wait(lock, [&] { return r->ended; });
    result = r->schedule;
  }
  const bool all_done = result.outcome == Outcome::kDone;
  for (std::thread& t : threads) {
    if (all_done)
      t.join();
    else
      t.detach();  // parked for good, holding `r`
  }
  return result;
}

}  // namespace rwstress::controlled
