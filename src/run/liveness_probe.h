// Liveness promises, probed deterministically on fresh instances before the
// stress phase (the semantics probe checks what an operation forbids; this
// checks what it promises):
//   - a thread waiting for exclusive access (lock, down, down_write) is
//     admitted when the holder releases (for a semaphore: by one up);
//   - rwlocks: a reader already waiting is admitted after downgrade_write,
//     while the downgraded holder still holds its read lock;
//   - rwlocks that let readers share at all: two readers queued behind a
//     writer are admitted together when it releases (a release that wakes
//     one reader and leaves the other asleep until the first leaves is a
//     lost wake-up).
// A lock that forgets such a wake-up runs on without a verdict in the
// stress loop as long as some later operation happens to wake the waiter;
// here nothing else does, so the missing wake-up shows in milliseconds.
//
// Each waiter runs on a detached thread, and each probe uses its own
// instance, allocated and freed only if every waiter got out: a lock that
// never admits a waiter leaks that instance and one thread, never hangs or
// crashes the probe.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <memory>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "model/lock_traits.h"
#include "model/run_result.h"
#include "model/scenario.h"
#include "platform/sched_stat.h"

namespace rwstress {

namespace liveness_detail {

using namespace std::chrono_literals;

// Long enough for a waiter to reach its blocking wait on an idle CPU; a
// waiter that is slower only makes the probe less sharp, never wrong.
inline constexpr auto kQueueTime = 5ms;

struct Waiters {
  static constexpr int kWatched = 8;  // the probes spawn at most two waiters
  std::atomic<int> started{0};
  std::atomic<int> entered{0};
  std::atomic<int> left{0};
  std::atomic<bool> may_leave{false};
  std::atomic<int> tid[kWatched] = {};  // kernel thread ids, for the CPU-aware wait
  std::atomic<int> tids{0};
};

// Whether a waiter sat runnable without a CPU since the last look
// (`ran`: each waiter's CPU time then, updated here).
inline bool kept_off_cpu(const Waiters& w, std::uint64_t (&ran)[Waiters::kWatched]) {
  bool kept = false;
  for (int i = 0; i < std::min(w.tids.load(), Waiters::kWatched); ++i)
    if (const int tid = w.tid[i].load()) kept |= rwstress::kept_off_cpu(tid, &ran[i]);
  return kept;
}

// Time the probes' waits were not charged because a waiter was kept off its
// CPU, summed over the process: the probe's own watchdog leaves it out too.
inline std::atomic<std::int64_t>& waited_for_cpu_ns() {
  static std::atomic<std::int64_t> ns{0};
  return ns;
}

// Waits until v >= at_least, charging `limit` only for the time in which
// no waiter of `w` sat runnable without a CPU (an overloaded machine delays
// a wake-up without the lock losing it), up to ten limits and a second.
inline bool wait_until(const std::atomic<int>& v, int at_least, std::chrono::nanoseconds limit,
                       const Waiters* w = nullptr) {
  constexpr auto kSlice = 1ms;
  const auto cap = std::chrono::steady_clock::now() + 10 * limit + 1s;
  std::uint64_t ran[Waiters::kWatched] = {};
  std::chrono::nanoseconds charged{0};
  while (v.load(std::memory_order_acquire) < at_least) {
    if (charged >= limit || std::chrono::steady_clock::now() >= cap) return false;
    const auto t0 = std::chrono::steady_clock::now();
    while (v.load(std::memory_order_acquire) < at_least && std::chrono::steady_clock::now() - t0 < kSlice)
      std::this_thread::sleep_for(100us);
    if (!w || !kept_off_cpu(*w, ran))
      charged += kSlice;
    else
      waited_for_cpu_ns().fetch_add(std::chrono::nanoseconds(kSlice).count());
  }
  return true;
}

inline void wait_flag(const std::atomic<bool>& f) {
  while (!f.load(std::memory_order_acquire)) std::this_thread::sleep_for(100us);
}

// How long a waiter may take to be admitted: a wake-up on a loaded,
// oversubscribed machine can wait out a time slice or two, and the whole
// probe must stay well inside the watchdog that bounds it.
inline std::chrono::nanoseconds admit_limit(const Scenario& sc) {
  return std::min<std::chrono::nanoseconds>(500ms, sc.watchdog / 8);
}

// A fresh instance for one probe, and the waiters that use it.
template <class Lock>
struct Trial {
  explicit Trial(const Scenario& sc) : box(new LockBox<Lock>(sc)), waiters(std::make_shared<Waiters>()) {}
  Lock& lock() { return box->lock; }

  // Starts a waiter that runs take(lock), says it entered, holds until
  // told, and releases with give(lock).
  template <class Take, class Give>
  void spawn(Take take, Give give) {
    ++spawned;
    std::thread([l = box, w = waiters, take, give] {
      if (const int slot = w->tids.fetch_add(1); slot < Waiters::kWatched)
        w->tid[slot].store(int(syscall(SYS_gettid)));
      w->started.fetch_add(1, std::memory_order_release);
      take(l->lock);
      w->entered.fetch_add(1, std::memory_order_release);
      wait_flag(w->may_leave);
      give(l->lock);
      w->left.fetch_add(1, std::memory_order_release);
    }).detach();
  }

  // Lets the waiters go and frees the instance once all are out (else it
  // leaks: a stuck waiter still uses it). Returns whether all got out.
  bool finish(std::chrono::nanoseconds limit) {
    waiters->may_leave.store(true, std::memory_order_release);
    if (!wait_until(waiters->left, spawned, limit, waiters.get())) return false;
    delete box;
    return true;
  }

  // Until every waiter is about to block (a loaded machine may start a
  // thread late), then kQueueTime for it to get there.
  void let_waiters_queue(std::chrono::nanoseconds limit) {
    wait_until(waiters->started, spawned, limit, waiters.get());
    std::this_thread::sleep_for(kQueueTime);
  }

  LockBox<Lock>* box;
  std::shared_ptr<Waiters> waiters;
  int spawned = 0;
};

}  // namespace liveness_detail

template <class Lock>
std::vector<Violation> probe_liveness(const Scenario& sc) {
  using namespace liveness_detail;
  std::vector<Violation> found;
  auto fail = [&](const std::string& what) {
    found.push_back({ViolationKind::kLostWakeup, kProbeThread, what});
  };
  const auto limit = admit_limit(sc);
  const int units = CountingSemaphore<Lock> ? sc.count : 1;
  constexpr const char* kTake = RwLock<Lock> ? "down_write" : CountingSemaphore<Lock> ? "down" : "lock";

  {  // An exclusive waiter is admitted when the holder releases (one up).
    Trial<Lock> t(sc);
    for (int i = 0; i < units; ++i) acquire_as<false>(t.lock());
    t.spawn([](Lock& l) { acquire_as<false>(l); }, [](Lock& l) { release_as<false>(l); });
    t.let_waiters_queue(limit);
    release_as<false>(t.lock());
    if (!wait_until(t.waiters->entered, 1, limit, t.waiters.get()))
      fail(fmt::format("a thread waiting in {} was not admitted when the holder released{}",
                       kTake, CountingSemaphore<Lock> ? " one unit" : ""));
    for (int i = 1; i < units; ++i) release_as<false>(t.lock());  // before finish() frees it
    t.finish(limit);
  }

  if constexpr (RwLock<Lock> && !SnapshotReads<Lock>) {
    // A lock that serialises readers is reported by the overlap note, not
    // failed: the "admitted together" promise is only checked where two
    // readers can share the lock when no writer is involved.
    bool shares = false;
    {
      Trial<Lock> t(sc);
      t.lock().down_read();
      t.spawn([](Lock& l) { l.down_read(); }, [](Lock& l) { l.up_read(); });
      shares = wait_until(t.waiters->entered, 1, limit, t.waiters.get());
      t.lock().up_read();
      t.finish(limit);
    }
    if (shares) {  // Two readers queued behind a writer are admitted together.
      Trial<Lock> t(sc);
      t.lock().down_write();
      for (int i = 0; i < 2; ++i)
        t.spawn([](Lock& l) { l.down_read(); }, [](Lock& l) { l.up_read(); });
      t.let_waiters_queue(limit);
      t.lock().up_write();
      if (!wait_until(t.waiters->entered, 2, limit, t.waiters.get()))
        fail("two readers waiting behind a writer were not both admitted when it released");
      t.finish(limit);
    }
    if constexpr (HasDowngrade<Lock>) {
      // A waiting reader is admitted by downgrade_write itself.
      Trial<Lock> t(sc);
      t.lock().down_write();
      t.spawn([](Lock& l) { l.down_read(); }, [](Lock& l) { l.up_read(); });
      t.let_waiters_queue(limit);
      t.lock().downgrade_write();
      if (!wait_until(t.waiters->entered, 1, limit, t.waiters.get()))
        fail("a reader waiting in down_read was not admitted after downgrade_write (the "
             "downgraded holder still held its read lock)");
      t.lock().up_read();
      t.finish(limit);
    }
  }
  return found;
}

}  // namespace rwstress
