// QSpinlock: the Linux queued spinlock (kernel/locking/qspinlock.c, Waiman
// Long and Peter Zijlstra, Linux 4.2+), without the paravirt hooks.
//
// Lock word, 32 bits:
//   bits  0-7   locked byte
//   bit   8     pending: the first waiter spins here without a queue node
//   bits 16-17  tail index: which of the tail thread's nodes (nesting level)
//   bits 18-31  tail thread + 1 (0: no queue)
// Fast path: cmpxchg 0 -> locked. The first contender sets pending and spins
// on the word; later ones queue MCS-style on per-thread nodes, and only the
// queue head spins on the lock word. Userspace has no CPU numbers that stay
// put, so the "CPU" in the tail is a small per-thread index handed out on a
// thread's first slow path and returned when the thread exits.
// Fairness: FIFO for queued waiters; the pending waiter and a fast-path
// arrival may get in ahead of the queue (unfair at the margin, as in Linux).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "locks/hooks.h"
#include "locks/mutex/queue_node.h"
#include "locks/spin_wait.h"

namespace rwstress {

namespace qspinlock_detail {

inline constexpr std::uint32_t kLocked = 1u;
inline constexpr std::uint32_t kLockedMask = 0xffu;
inline constexpr std::uint32_t kPending = 1u << 8;
inline constexpr std::uint32_t kTailIdxShift = 16;
inline constexpr std::uint32_t kTailCpuShift = 18;
inline constexpr std::uint32_t kTailMask = 0xffff0000u;
inline constexpr int kNodes = 4;  // the kernel's MAX_NODES
inline constexpr int kMaxThreads = (1 << 14) - 1;

template <class Node>
struct ThreadQnodes {
  Node nodes[kNodes];
  int count = 0;
};

// Thread index -> that thread's nodes, for decoding a tail (one table per
// node type: the plain and the controlled instantiations do not mix).
template <class Node>
inline std::atomic<ThreadQnodes<Node>*> g_table[kMaxThreads + 1];

struct IndexAllocator {
  std::mutex mutex;
  std::vector<int> free;
  int next = 1;
};
inline IndexAllocator& allocator() {
  static IndexAllocator a;
  return a;
}

template <class Node>
struct ThreadSlot {
  ThreadQnodes<Node> qnodes;
  int index = 0;  // 1-based

  ThreadSlot() {
    IndexAllocator& a = allocator();
    std::lock_guard guard(a.mutex);
    if (!a.free.empty()) {
      // The lowest free index: which threads exited last does not decide
      // a thread's tail (explore's traces show the same values each run).
      const auto lowest = std::min_element(a.free.begin(), a.free.end());
      index = *lowest;
      a.free.erase(lowest);
    } else if (a.next <= kMaxThreads) {
      index = a.next++;
    } else {
      std::abort();  // 16383 threads queued on qspinlocks at once
    }
    g_table<Node>[index].store(&qnodes, std::memory_order_release);
  }
  ~ThreadSlot() {
    g_table<Node>[index].store(nullptr, std::memory_order_relaxed);
    IndexAllocator& a = allocator();
    std::lock_guard guard(a.mutex);
    a.free.push_back(index);
  }
};

template <class Node>
inline ThreadSlot<Node>& this_thread_slot() {
  static thread_local ThreadSlot<Node> slot;
  return slot;
}

inline std::uint32_t encode_tail(int index, int idx) {
  return (std::uint32_t(index) << kTailCpuShift) | (std::uint32_t(idx) << kTailIdxShift);
}

template <class Node>
inline Node* decode_tail(std::uint32_t tail) {
  int index = int(tail >> kTailCpuShift);
  int idx = int((tail >> kTailIdxShift) & 3);
  return &g_table<Node>[index].load(std::memory_order_acquire)->nodes[idx];
}

}  // namespace qspinlock_detail

template <class Hooks = NoHooks>
class QSpinlock {
 public:
  template <class H>
  using WithHooks = QSpinlock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  using Node = QueueNodeOf<Hooks>;
  void lock() noexcept {
    std::uint32_t val = 0;
    if (word_.compare_exchange_strong(val, qspinlock_detail::kLocked, std::memory_order_acquire,
                                      std::memory_order_relaxed))
      return;
    slowpath(val);
  }

  bool trylock() noexcept {
    std::uint32_t val = word_.load(std::memory_order_relaxed);
    return val == 0 && word_.compare_exchange_strong(val, qspinlock_detail::kLocked,
                                                     std::memory_order_acquire,
                                                     std::memory_order_relaxed);
  }

  void unlock() noexcept { word_.fetch_sub(qspinlock_detail::kLocked, std::memory_order_release); }

  std::uint32_t word_for_test() const { return word_.load(); }

  // The idle check (lock_traits.h, HasIdleCheck): after every thread left.
  const char* not_idle() const noexcept {
    const std::uint32_t v = word_.load(std::memory_order_relaxed);
    if (v & qspinlock_detail::kLockedMask) return "the qspinlock's locked byte is set";
    if (v & qspinlock_detail::kPending) return "the qspinlock's pending bit is set";
    if (v != 0) return "the qspinlock's tail is set (a queue node left linked)";
    return nullptr;
  }

 private:
  void slowpath(std::uint32_t val) noexcept {
    using namespace qspinlock_detail;
    // A pending -> locked hand-over is in progress: wait a turn for it.
    if (val == kPending) {
      cpu_relax();
      val = word_.load(std::memory_order_relaxed);
    }
    if (!(val & ~kLockedMask)) {
      // Uncontended but held: try to become the pending waiter.
      val = word_.fetch_or(kPending, std::memory_order_acquire);
      if (!(val & ~kLockedMask)) {
        if (val & kLockedMask)
          spin_until<Hooks>([&] { return !(word_.load(std::memory_order_acquire) & kLockedMask); });
        word_.fetch_add(kLocked - kPending, std::memory_order_relaxed);  // clear pending, set locked
        return;
      }
      // Lost the race for pending; undo our bit if we set it, and queue.
      if (!(val & kPending)) word_.fetch_and(~kPending, std::memory_order_relaxed);
    }
    queue();
  }

  void queue() noexcept {
    using namespace qspinlock_detail;
    ThreadSlot<Node>& self = this_thread_slot<Node>();
    const int idx = self.qnodes.count++;
    if (idx >= kNodes) {  // nested deeper than the nodes we have: spin on trylock
      spin_until<Hooks>([&] { return trylock(); });
      --self.qnodes.count;
      return;
    }
    Node* node = &self.qnodes.nodes[idx];
    const std::uint32_t tail = encode_tail(self.index, idx);
    node->locked.store(0, std::memory_order_relaxed);
    node->next.store(nullptr, std::memory_order_relaxed);
    if (trylock()) {
      --self.qnodes.count;
      return;
    }

    // Publish ourselves as the tail; link behind the previous tail.
    std::uint32_t old = word_.load(std::memory_order_relaxed);
    while (!word_.compare_exchange_weak(old, (old & ~kTailMask) | tail, std::memory_order_acq_rel,
                                        std::memory_order_relaxed)) {
    }
    if (old & kTailMask) {
      Node* prev = decode_tail<Node>(old & kTailMask);
      prev->next.store(node, std::memory_order_release);
      Hooks::at(HookPoint::kAfterEnqueue);
      spin_until<Hooks>([&] { return node->locked.load(std::memory_order_acquire) != 0; });
    }

    // Queue head: wait for the owner and the pending waiter to leave.
    std::uint32_t val;
    spin_until<Hooks>([&] {
      val = word_.load(std::memory_order_acquire);
      return !(val & (kLockedMask | kPending));
    });
    // Last in the queue: take the lock and clear the tail in one step.
    if ((val & kTailMask) == tail &&
        word_.compare_exchange_strong(val, kLocked, std::memory_order_acquire,
                                      std::memory_order_relaxed)) {
      --self.qnodes.count;
      return;
    }
    word_.fetch_or(kLocked, std::memory_order_relaxed);
    Node* next;
    spin_until<Hooks>([&] { return (next = node->next.load(std::memory_order_acquire)); });
    Hooks::at(HookPoint::kBeforeWake);
    next->locked.store(1, std::memory_order_release);
    --self.qnodes.count;
  }

  Atomic<Hooks, std::uint32_t> word_{0};
};

}  // namespace rwstress
