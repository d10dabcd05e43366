// Both builds of a lock perform the same operations (docs/explore.md,
// "The same operations in both builds"): explore judges the controlled instantiation of a
// lock, so every verdict it gives is about the ordinary one only if each
// entry point performs, in both, the same atomic operations with the same
// memory orders on the same words, and the same fences.
//
// op_sequences<Lock>() runs every entry point the lock has, one thread,
// uncontended, in the lock over RecordingHooks (the ordinary build's
// branches, its atomics recording themselves) and over ControlledHooks
// (inside a one-thread controlled run), and returns both records as
// lines: "down_read", then "  fetch_add acquire lock+0x8", ... A word
// inside the lock is named by its offset; any other word (a waiter record
// on the stack, a per-thread queue node) by the order it was first met,
// so that the two runs' different addresses compare equal.
//
// What the two builds may differ in, by design, is what no operation
// shows: the clock a lock reads (the run's step clock under control), the
// CPU slot a thread is given (its index under control), and the scheduling
// points, spin turns and modelled sleeps of the hooks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "locks/hooks.h"
#include "model/lock_traits.h"
#include "model/scenario.h"
#include "explore/controlled.h"

namespace rwstress {

struct OpSequences {
  std::vector<std::string> ordinary;
  std::vector<std::string> controlled;
  // A busted lock that emulates in its ordinary build what the memory model
  // makes under explore says why its builds differ (Lock::kBuildsDiffer).
  std::string differ_by_design;
};
using OpSequenceFn = OpSequences (*)();

namespace op_sequence_detail {

inline const char* order_name(int o) {
  switch (o) {
    case int(std::memory_order_relaxed): return "relaxed";
    case int(std::memory_order_consume): return "consume";
    case int(std::memory_order_acquire): return "acquire";
    case int(std::memory_order_release): return "release";
    case int(std::memory_order_acq_rel): return "acq_rel";
    case int(std::memory_order_seq_cst): return "seq_cst";
  }
  return "";
}

// Records each entry point's operations as lines.
class Recorder {
 public:
  Recorder(const void* lock, std::size_t size) : lock_(static_cast<const char*>(lock)), size_(size) {}

  template <class F>
  void entry(const char* name, F&& f) {
    std::vector<controlled::OpRecord> ops;
    controlled::record_ops(&ops);
    f();
    controlled::record_ops(nullptr);
    lines_.emplace_back(name);
    for (const controlled::OpRecord& op : ops) {
      std::string orders = order_name(op.order);
      if (op.order2 >= 0) orders += fmt::format("/{}", order_name(op.order2));
      lines_.push_back(fmt::format("  {} {} {}", op.op, orders, word_name(op.word)));
    }
  }

  std::vector<std::string> take() { return std::move(lines_); }

 private:
  std::string word_name(const void* word) {
    if (!word) return "-";
    const char* w = static_cast<const char*>(word);
    if (w >= lock_ && w < lock_ + size_) return fmt::format("lock+{:#x}", w - lock_);
    const auto [it, added] = others_.try_emplace(word, int(others_.size()));
    return fmt::format("word{}", it->second);
  }

  const char* lock_;
  std::size_t size_;
  std::map<const void*, int> others_;
  std::vector<std::string> lines_;
};

// Every entry point of the lock, in a fixed order, each leaving the lock
// free for the next.
template <class L>
std::vector<std::string> entry_point_ops() {
  Scenario sc;
  sc.readers = 1;
  sc.writers = 1;
  sc.count = 1;
  LockBox<L> box(sc);
  L& l = box.lock;
  Recorder r(&l, sizeof l);
  bool got = false;  // a trylock took the lock (uncontended it must; a failure shows as a missing release)
  if constexpr (RwLock<L>) {
    r.entry("down_read", [&] { l.down_read(); });
    r.entry("up_read", [&] { l.up_read(); });
    r.entry("down_write", [&] { l.down_write(); });
    r.entry("up_write", [&] { l.up_write(); });
    if constexpr (HasReadTrylock<L>) {
      r.entry("down_read_trylock", [&] { got = l.down_read_trylock(); });
      if (got) r.entry("up_read", [&] { l.up_read(); });
    }
    if constexpr (HasWriteTrylock<L>) {
      r.entry("down_write_trylock", [&] { got = l.down_write_trylock(); });
      if (got) r.entry("up_write", [&] { l.up_write(); });
    }
    if constexpr (HasDowngrade<L>) {
      r.entry("down_write", [&] { l.down_write(); });
      r.entry("downgrade_write", [&] { l.downgrade_write(); });
      r.entry("up_read", [&] { l.up_read(); });
    }
    r.entry("down_read", [&] { l.down_read(); });
    r.entry("up_read", [&] { l.up_read(); });
  } else if constexpr (CountingSemaphore<L>) {
    r.entry("down", [&] { l.down(); });
    r.entry("up", [&] { l.up(); });
    if constexpr (HasSemTrylock<L>) {
      r.entry("down_trylock", [&] { got = l.down_trylock(); });
      if (got) r.entry("up", [&] { l.up(); });
    }
    if constexpr (HasDownTimeout<L>) {
      r.entry("down_timeout", [&] { got = l.down_timeout(std::chrono::milliseconds(1)); });
      if (got) r.entry("up", [&] { l.up(); });
    }
  } else {
    r.entry("lock", [&] { l.lock(); });
    if constexpr (Recursive<L>) {
      r.entry("lock (nested)", [&] { l.lock(); });
      r.entry("unlock (nested)", [&] { l.unlock(); });
    }
    r.entry("unlock", [&] { l.unlock(); });
    if constexpr (HasTrylock<L>) {
      r.entry("trylock", [&] { got = l.trylock(); });
      if (got) r.entry("unlock", [&] { l.unlock(); });
    }
  }
  return r.take();
}

}  // namespace op_sequence_detail

// Lock: a lock over hooks (it declares WithHooks).
template <class Lock>
OpSequences op_sequences() {
  using Ordinary = typename Lock::template WithHooks<RecordingHooks>;
  using Controlled = typename Lock::template WithHooks<ControlledHooks>;
  OpSequences out;
  if constexpr (requires { Lock::kBuildsDiffer; }) out.differ_by_design = Lock::kBuildsDiffer;
  out.ordinary = op_sequence_detail::entry_point_ops<Ordinary>();
  controlled::Options o;
  o.strategy = controlled::Strategy::kFirst;
  controlled::run(1, o, [&out](int) {
    out.controlled = op_sequence_detail::entry_point_ops<Controlled>();
  });
  return out;
}

// The lock's op_sequences, where it has a controlled instantiation (a
// lock the scheduler cannot see inside has one build only).
template <class Lock>
constexpr OpSequenceFn op_sequence_fn() {
  if constexpr (requires { typename Lock::template WithHooks<ControlledHooks>; })
    return &op_sequences<Lock>;
  else
    return nullptr;
}

}  // namespace rwstress
