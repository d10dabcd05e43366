// The one table of lock implementations: name -> family, fairness,
// capabilities, origin, and the fully templated run function.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "model/lock_traits.h"
#include "model/run_result.h"
#include "model/scenario.h"
#include "run/explore_run.h"
#include "run/fastpath.h"
#include "run/op_sequence.h"

namespace rwstress {

using RunFn = RunResult (*)(const Scenario&, const LockMeta&);

struct LockEntry {
  LockMeta meta;
  RunFn run;           // the plain instantiation: nothing injected anywhere
  RunFn run_instrumented;  // --inject/--lockstat/--hist: hooks routed to the injectors and
                           // the lockstat recorder, worker-loop points and time stamps live
  FastPathFn fastpath;  // uncontended acquire+release pairs (bench/fastpath_bench.cc)
  BareLoopFn bare;      // the bare test_rwlock loop (bench/harness_bench.cc)
  // One controlled schedule (rwstress explore, run/explore_run.h); nullptr
  // for a lock the scheduler cannot see inside (a library's, a plugin's).
  ExploreFn explore = nullptr;
  // Every entry point's operations in the ordinary and the controlled
  // instantiation (run/op_sequence.h); nullptr where explore is.
  OpSequenceFn op_sequences = nullptr;
};

// Every lock: the built-in table, then the locks --plugin added.
const std::deque<LockEntry>& lock_registry();
const LockEntry* find_lock(std::string_view name);

// Group names accepted by --lock besides implementation names.
inline constexpr std::string_view kSelectAll = "all";  // every correct implementation
inline constexpr std::string_view kSelectBusted = "busted";

// Resolves "NAME[,NAME...]" (implementation, family or group names) into
// the entries' metadata, in table order, without duplicates. On an unknown
// name returns {} and sets *error to one line that lists the valid names.
std::vector<const LockMeta*> select_locks(std::string_view spec, std::string* error);

// The entry whose `meta` this is (a LockMeta from select_locks or
// lock_registry(); anything else is a programming error and aborts).
const LockEntry& entry_of(const LockMeta& meta);

std::string valid_lock_names();

// Adds a lock after the others (registry/plugins.cc); its name is new.
void add_lock(const LockEntry& entry);

// Loads a --plugin shared object and adds its locks. "" or one line that
// names the plugin and what is wrong with it (then nothing is added).
std::string load_plugin(const std::string& path);  // "all, rwlock, busted, aa-rwsem, xadd, ..."

}  // namespace rwstress
