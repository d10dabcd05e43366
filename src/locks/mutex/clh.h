// ClhSpinlock: the CLH queue lock (Craig 1993; Magnusson, Landin & Hagersten
// 1994).
//
// Lock word: a pointer to the tail node, starting at a dummy node that is
// already released. A waiter marks its node locked, swaps it into the tail
// and spins on its predecessor's node. On unlock it releases its own node
// and keeps its predecessor's node as its spare for the next acquisition:
// nodes migrate between threads, which is why CLH needs no `next` pointer.
// Fairness: strict FIFO (task-fair).
//
// No trylock. "Tail's node is released, so CAS the tail from it to mine"
// is ABA-prone: between the check and the CAS the same node can be
// recycled, re-queued and become the tail again while its new owner holds
// the lock, and the CAS then succeeds behind a holder. (An earlier trylock
// here did exactly that; the exclusion checker caught it in the selftest
// controls.) ck's CLH has no trylock either.
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/mutex/queue_node.h"
#include "locks/spin_wait.h"

namespace rwstress {

template <class Hooks>
struct alignas(64) ClhNodeOf {
  Atomic<Hooks, std::uint32_t> locked{0};
};

template <class Hooks = NoHooks>
class ClhSpinlock {
 public:
  template <class H>
  using WithHooks = ClhSpinlock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  static constexpr bool kQueuedBeforeSpinning = true;  // the preference check (lock_traits.h)
  using ClhNode = ClhNodeOf<Hooks>;
  ClhSpinlock() : tail_(new ClhNode) {}
  ~ClhSpinlock() { delete tail_.load(); }  // the last released node belongs to the lock
  ClhSpinlock(const ClhSpinlock&) = delete;
  ClhSpinlock& operator=(const ClhSpinlock&) = delete;

  void lock() noexcept {
    ClhNode* me = SpareNode<ClhNode>::take();
    me->locked.store(1, std::memory_order_relaxed);
    ClhNode* pred = tail_.exchange(me, std::memory_order_acq_rel);
    Hooks::at(HookPoint::kAfterEnqueue);
    spin_until<Hooks>([&] { return !pred->locked.load(std::memory_order_acquire); });
    holder_ = me;
    holder_pred_ = pred;
  }

  void unlock() noexcept {
    ClhNode* me = holder_;
    SpareNode<ClhNode>::keep(holder_pred_);  // nobody else refers to the predecessor's node now
    Hooks::at(HookPoint::kBeforeWake);
    me->locked.store(0, std::memory_order_release);
  }

 private:
  Atomic<Hooks, ClhNode*> tail_;
  ClhNode* holder_ = nullptr;       // written and read only by the holder
  ClhNode* holder_pred_ = nullptr;  // its predecessor's node: becomes the holder's spare
};

}  // namespace rwstress
