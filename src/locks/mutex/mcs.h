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

// kRelaxedLink: busted-mcs-relaxed-link (the busted zoo): the waiter links
// itself into its predecessor's node with a relaxed store, so nothing
// orders its initialising `locked = 1` before the predecessor's hand-off:
// under C11 the hand-off may come first in the word's modification order,
// the initialisation overwrites it, and the waiter spins for good (the
// class of qspinlock's and osq_lock's node-initialisation bugs). x86
// keeps stores in order, so only explore --memory c11 shows it.
template <class Hooks = NoHooks, bool kRelaxedLink = false>
class McsSpinlock {
 public:
  template <class H>
  using WithHooks = McsSpinlock<H, kRelaxedLink>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  static constexpr bool kQueuedBeforeSpinning = true;  // the preference check (lock_traits.h)
  using Node = QueueNodeOf<Hooks>;
  void lock() noexcept {
    Node* me = ThreadNodes<Node>::take();
    me->next.store(nullptr, std::memory_order_relaxed);
    me->locked.store(1, std::memory_order_relaxed);
    Node* prev = tail_.exchange(me, std::memory_order_acq_rel);
    if (prev) {
      prev->next.store(me, kRelaxedLink ? std::memory_order_relaxed : std::memory_order_release);
      Hooks::at(HookPoint::kAfterEnqueue);
      spin_until<Hooks>([&] { return !me->locked.load(std::memory_order_acquire); });
    }
    holder_ = me;
  }

  bool trylock() noexcept {
    Node* me = ThreadNodes<Node>::take();
    me->next.store(nullptr, std::memory_order_relaxed);
    Node* expected = nullptr;
    // acq_rel, not acquire: a successor swaps in behind us and stores into
    // me->next, which must come after our `next = nullptr` (found by explore
    // --memory c11: with acquire the successor's link could be overwritten
    // by our initialisation, and our unlock would wait for it for good).
    if (!tail_.compare_exchange_strong(expected, me, std::memory_order_acq_rel,
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
