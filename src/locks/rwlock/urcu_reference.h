// UrcuReference: the ideal read side on the same table -- read-copy-update
// with liburcu's membarrier flavour (urcu-memb, Desnoyers et al.).
//
// Not a lock: readers never wait and never exclude writers. A reader enters
// an RCU read-side section and reads the version that is current; a writer
// (writers serialise on a mutex) copies, publishes the new version with a
// release store (rcu_assign_pointer), and frees the old one only after a
// grace period: synchronize_rcu, or, one retirement in kAsyncEvery,
// call_rcu. The harness checks what RCU promises instead of exclusion: a
// reader sees one whole version, never a torn or freed one (freed versions
// are poisoned first). Fairness: readers never wait; writers wait only for
// pre-existing readers (no starvation of either).
#pragma once

#include <urcu/urcu-memb.h>

#include "locks/urcu_thread.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace rwstress {

// One published version of the protected data: kWords words, one value.
struct RcuVersion {
  static constexpr int kWords = 32;
  static constexpr std::uint64_t kPoison = 0xdeaddeaddeaddeadULL;

  explicit RcuVersion(std::uint64_t value) {
    for (auto& w : words) w.store(value, std::memory_order_relaxed);
  }
  void poison() {
    for (auto& w : words) w.store(kPoison, std::memory_order_relaxed);
  }

  rcu_head head{};  // first for call_rcu's container_of
  std::array<std::atomic<std::uint64_t>, kWords> words;
};

class UrcuReference {
 public:
  static constexpr bool kSnapshotReads = true;
  using Version = RcuVersion;
  static constexpr unsigned kAsyncEvery = 16;

  UrcuReference() : current_(new RcuVersion(0)) {}
  ~UrcuReference() {
    urcu_memb_barrier();  // wait for pending call_rcu callbacks
    delete current_.load();
  }
  UrcuReference(const UrcuReference&) = delete;
  UrcuReference& operator=(const UrcuReference&) = delete;

  // Called by the harness on each worker before the start flag: liburcu
  // wants a thread registered before its first read-side section, and
  // registration takes the registry mutex that synchronize_rcu holds, so
  // done lazily inside the timed loop it can leave a reader asleep behind
  // a preempted writer's grace period (the likely cause of a reader with 1
  // operation in 100 ms, seen once in 945 runs beside four busy loops).
  static void thread_enter() { register_this_thread(); }

  void down_read() {
    register_this_thread();
    urcu_memb_read_lock();
  }
  void up_read() { urcu_memb_read_unlock(); }
  const RcuVersion* read_current() const { return current_.load(std::memory_order_acquire); }

  void down_write() { writer_mutex_.lock(); }
  void up_write() { writer_mutex_.unlock(); }

  // Under the write side: installs `next`, returns the version it replaced.
  RcuVersion* publish(RcuVersion* next) {
    return current_.exchange(next, std::memory_order_acq_rel);
  }

  // After up_write: frees `old` once no reader can still see it.
  void retire(RcuVersion* old, std::uint64_t seq) {
    register_this_thread();
    if (seq % kAsyncEvery == 0) {
      urcu_memb_call_rcu(&old->head, &free_version);
    } else {
      urcu_memb_synchronize_rcu();
      free_version(&old->head);
    }
  }

 private:
  static void free_version(rcu_head* h) {
    auto* v = reinterpret_cast<RcuVersion*>(reinterpret_cast<char*>(h) - offsetof(RcuVersion, head));
    v->poison();
    delete v;
  }

  // Every thread that enters a read-side section must be registered.
  static void register_this_thread() { urcu_register_this_thread(); }

  std::atomic<RcuVersion*> current_;
  std::mutex writer_mutex_;
};

}  // namespace rwstress
