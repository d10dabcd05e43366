// Trylock truth and downgrade semantics, probed deterministically before the
// stress phase of every run on a fresh instance of the lock.
//
// One thread holds the lock in a known mode while a second thread tries it;
// every expectation is part of the rwlock contract (docs/architecture.md):
//   - a successful trylock holds: a second writer's trylock then fails;
//   - a failed trylock changed nothing: the lock is free again afterwards;
//   - a reader's trylock succeeds while only readers hold the lock;
//   - after downgrade_write readers may enter and writers may not.
// "Should succeed" expectations are retried for a while: a trylock may fail
// spuriously (C++ allows it), it may never succeed falsely.
#pragma once

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "model/lock_traits.h"
#include "model/run_result.h"

namespace rwstress {

namespace probe_detail {

template <class Fn>
bool in_other_thread(Fn fn) {
  bool result = false;
  std::thread t([&] { result = fn(); });
  t.join();
  return result;
}

template <class Fn>
bool eventually_in_other_thread(Fn fn) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    if (in_other_thread(fn)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// Only called where the lock has the trylock.
template <class Lock>
bool try_write_and_release(Lock& lock) {
  if (!try_down_write(lock)) return false;
  lock.up_write();
  return true;
}

template <class Lock>
bool try_read_and_release(Lock& lock) {
  if (!try_down_read(lock)) return false;
  lock.up_read();
  return true;
}

}  // namespace probe_detail

template <class Lock>
std::vector<Violation> probe_rwlock_semantics(Lock& lock) {
  using namespace probe_detail;
  std::vector<Violation> found;
  auto fail = [&](ViolationKind kind, const char* what) { found.push_back({kind, -1, what}); };
  auto other_writes = [&] { return in_other_thread([&] { return try_write_and_release(lock); }); };
  auto other_reads = [&] { return in_other_thread([&] { return try_read_and_release(lock); }); };
  auto free_for_writer = [&] {
    return eventually_in_other_thread([&] { return try_write_and_release(lock); });
  };
  auto free_for_reader = [&] {
    return eventually_in_other_thread([&] { return try_read_and_release(lock); });
  };

  if constexpr (HasWriteTrylock<Lock>) {
    if (!free_for_writer()) {
      fail(ViolationKind::kTrylockTruth, "down_write_trylock never succeeded on a free lock");
      return found;
    }
    lock.down_write();
    if (other_writes())
      fail(ViolationKind::kTrylockTruth,
           "down_write_trylock succeeded while another thread held the write lock");
    if constexpr (HasReadTrylock<Lock>) {
      if (other_reads())
        fail(ViolationKind::kTrylockTruth,
             "down_read_trylock succeeded while another thread held the write lock");
    }
    lock.up_write();
    if (!free_for_writer())
      fail(ViolationKind::kTrylockTruth,
           "after failed trylocks and up_write the lock was not free for a writer");
  }

  if constexpr (HasReadTrylock<Lock>) {
    lock.down_read();
    if (!free_for_reader())
      fail(ViolationKind::kTrylockTruth,
           "down_read_trylock kept failing while only one reader held the lock");
    if constexpr (HasWriteTrylock<Lock>) {
      if (other_writes())
        fail(ViolationKind::kTrylockTruth,
             "down_write_trylock succeeded while another thread held a read lock");
    }
    lock.up_read();
  }

  if constexpr (HasDowngrade<Lock>) {
    lock.down_write();
    lock.downgrade_write();
    if constexpr (HasReadTrylock<Lock>) {
      if (!free_for_reader())
        fail(ViolationKind::kDowngrade, "after downgrade_write a reader could not enter");
    }
    if constexpr (HasWriteTrylock<Lock>) {
      if (other_writes())
        fail(ViolationKind::kDowngrade, "after downgrade_write a writer got in");
    }
    lock.up_read();
    if constexpr (HasWriteTrylock<Lock>) {
      if (!free_for_writer())
        fail(ViolationKind::kDowngrade,
             "after downgrade_write and up_read the lock was not free for a writer");
    }
  }
  return found;
}

}  // namespace rwstress
