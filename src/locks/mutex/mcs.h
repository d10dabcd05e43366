// McsSpinlock: the MCS queue lock (Mellor-Crummey & Scott, "Algorithms for
// scalable synchronization on shared-memory multiprocessors", 1991).
//
// Lock word: a pointer to the queue's tail node, nullptr when free. A waiter
// swaps its node into the tail, links itself behind its predecessor and
// spins on its own node's `locked` flag: every waiter spins on its own cache
// line. unlock hands over to the successor, or swings the tail back to
// nullptr when there is none. Fairness: strict FIFO (task-fair).
#pragma once

#include <atomic>

#include "locks/hooks.h"
#include "locks/mutex/queue_node.h"
#include "locks/spin_wait.h"

namespace rwstress {

template <class Hooks = NoHooks>
class McsSpinlock {
 public:
  template <class H>
  using WithHooks = McsSpinlock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  using Node = QueueNodeOf<Hooks>;
  void lock() noexcept {
    Node* me = ThreadNodes<Node>::take();
    me->next.store(nullptr, std::memory_order_relaxed);
    me->locked.store(1, std::memory_order_relaxed);
    Node* prev = tail_.exchange(me, std::memory_order_acq_rel);
    if (prev) {
      prev->next.store(me, std::memory_order_release);
      Hooks::at(HookPoint::kAfterEnqueue);
      spin_until<Hooks>([&] { return !me->locked.load(std::memory_order_acquire); });
    }
    holder_ = me;
  }

  bool trylock() noexcept {
    Node* me = ThreadNodes<Node>::take();
    me->next.store(nullptr, std::memory_order_relaxed);
    Node* expected = nullptr;
    if (!tail_.compare_exchange_strong(expected, me, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
      ThreadNodes<Node>::give_back(me);
      return false;
    }
    holder_ = me;
    return true;
  }

  void unlock() noexcept {
    Node* me = holder_;
    Node* next = me->next.load(std::memory_order_acquire);
    if (!next) {
      Node* expected = me;
      if (tail_.compare_exchange_strong(expected, nullptr, std::memory_order_release,
                                        std::memory_order_relaxed)) {
        ThreadNodes<Node>::give_back(me);
        return;
      }
      // A successor swapped itself in but has not linked yet.
      Hooks::at(HookPoint::kMidRelease);
      spin_until<Hooks>([&] { return (next = me->next.load(std::memory_order_acquire)); });
    }
    Hooks::at(HookPoint::kBeforeWake);
    next->locked.store(0, std::memory_order_release);
    ThreadNodes<Node>::give_back(me);
  }

 private:
  Atomic<Hooks, Node*> tail_{nullptr};
  Node* holder_ = nullptr;  // written and read only by the holder
};

}  // namespace rwstress
