// How a registry entry is made from a lock type: its metadata (capabilities
// from the type) and its runners, plain and instrumented. Used by the
// built-in table (registry.cc) and the --plugin loader (plugins.cc).
#pragma once

#include <string_view>

#include "registry/registry.h"
#include "run/mutex_run.h"
#include "run/rwlock_run.h"
#include "run/semaphore_run.h"
#include "run/with_hooks.h"

namespace rwstress::lock_entry {

template <class Lock>
constexpr LockEntry rwlock(std::string_view name, Fairness fairness, std::string_view origin,
                           bool busted = false) {
  return LockEntry{LockMeta{name, Family::kRwlock, fairness, origin, capabilities_of<Lock>(), busted},
                   &run_rwlock<Lock>, &run_rwlock<WithInjectHooks<Lock>, true>,
                   &fastpath_pairs<Lock>, &bare_loop_ops<Lock>, explore_fn<Lock>(), op_sequence_fn<Lock>()};
}

template <class Lock>
constexpr LockEntry semaphore(std::string_view name, Fairness fairness, std::string_view origin,
                              bool busted = false) {
  static_assert(CountingSemaphore<Lock>);
  return LockEntry{
      LockMeta{name, Family::kSemaphore, fairness, origin, capabilities_of<Lock>(), busted},
      &run_semaphore<Lock>, &run_semaphore<WithInjectHooks<Lock>, true>, &fastpath_pairs<Lock>,
      &bare_loop_ops<Lock>, explore_fn<Lock>(), op_sequence_fn<Lock>()};
}

template <class Lock>
constexpr LockEntry mutex(std::string_view name, Fairness fairness, std::string_view origin,
                          bool busted = false) {
  static_assert(MutexLock<Lock>);
  return LockEntry{LockMeta{name, Family::kMutex, fairness, origin, capabilities_of<Lock>(), busted},
                   &run_mutex<Lock>, &run_mutex<WithInjectHooks<Lock>, true>,
                   &fastpath_pairs<Lock>, &bare_loop_ops<Lock>, explore_fn<Lock>(), op_sequence_fn<Lock>()};
}

}  // namespace rwstress::lock_entry
