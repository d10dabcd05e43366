// The uncontended fast path of one lock type: `pairs` acquire+release pairs
// on one thread, on a fresh instance, timed as a whole. Registered next to
// each lock's run function, so the fast-path benchmark (bench/) covers every
// implementation in the registry without a list of its own.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "model/lock_traits.h"
#include "model/scenario.h"

namespace rwstress {

// Nanoseconds for `pairs` pairs. `shared`: read pairs for an rwlock; the
// other families have one mode and ignore it.
using FastPathFn = double (*)(std::uint64_t pairs, bool shared);

template <bool kShared, class Lock>
void acquire_release_pairs(Lock& l, std::uint64_t pairs) {
  for (std::uint64_t i = 0; i < pairs; ++i) {
    acquire_as<kShared>(l);
    release_as<kShared>(l);
  }
}

template <class Lock>
double fastpath_pairs(std::uint64_t pairs, bool shared) {
  Scenario sc;
  sc.count = 1;
  auto lock = std::make_unique<LockBox<Lock>>(sc);
  Lock& l = lock->lock;
  const auto t0 = std::chrono::steady_clock::now();
  if (shared)
    acquire_release_pairs<true>(l, pairs);
  else
    acquire_release_pairs<false>(l, pairs);
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}

// The bare loop of liburcu's test_rwlock, as the yardstick of the harness's
// own cost: each thread waits for a start flag, then loops acquire, release,
// count, until a stop flag; nothing else. Threads are pinned as the scenario's
// plan says, and its readers/writers (or writers, for one-mode locks) are the
// threads. Returns operations per second over start flag to stop flag.
using BareLoopFn = double (*)(const Scenario& sc);

template <class Lock>
double bare_loop_ops(const Scenario& sc) {
  auto box = std::make_unique<LockBox<Lock>>(sc);
  Lock& l = box->lock;
  struct alignas(128) Count {
    std::uint64_t n = 0;
  };
  std::vector<Count> counts(std::size_t(sc.threads()));
  std::atomic<bool> go{false}, stop{false};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < sc.threads(); ++i) {
    threads.emplace_back([&, i] {
      if (sc.topology) sc.topology->bind_current_thread(sc.plan.cpu_of_thread[std::size_t(i)]);
      const bool reader = i < sc.readers;
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      std::uint64_t n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        if (reader) {
          acquire_as<true>(l);
          release_as<true>(l);
        } else {
          acquire_as<false>(l);
          release_as<false>(l);
        }
        ++n;
      }
      counts[std::size_t(i)].n = n;
    });
  }
  while (ready.load() < sc.threads()) std::this_thread::yield();
  const auto t0 = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  std::this_thread::sleep_for(sc.duration);
  stop.store(true);
  const auto t1 = std::chrono::steady_clock::now();
  for (auto& t : threads) t.join();
  std::uint64_t total = 0;
  for (const Count& c : counts) total += c.n;
  return double(total) / std::chrono::duration<double>(t1 - t0).count();
}

}  // namespace rwstress
