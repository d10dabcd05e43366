// Per-thread queue nodes for the queued spinlocks (MCS, CLH, qspinlock), in
// the role of the kernel's per-CPU qnodes.
//
// A thread waits in at most one queue per lock it is acquiring or holding;
// kNodesPerThread bounds how many queued locks one thread may hold at once:
// the lock under test and up to 8 --nested-locks instances of it (the
// kernel's per-CPU nodes need four: task, softirq, hardirq, NMI, since a
// kernel queued lock keeps its node only while it waits). A node is taken
// on lock and returned on unlock (MCS) or at the end of the slow path
// (qspinlock).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>

#include "locks/hooks.h"

namespace rwstress {

inline constexpr int kNodesPerThread = 16;

// One queue node, its words through the lock's atomic seam (hooks.h).
template <class Hooks>
struct alignas(64) QueueNodeOf {
  Atomic<Hooks, QueueNodeOf*> next{nullptr};
  Atomic<Hooks, std::uint32_t> locked{0};
};

template <class Node>
class ThreadNodes {
 public:
  static Node* take() noexcept {
    Pool& p = pool();
    for (int i = 0; i < kNodesPerThread; ++i)
      if (!(p.used & (1u << i))) {
        p.used |= 1u << i;
        return &p.nodes[i];
      }
    std::abort();  // more nested queued locks than contexts: a harness bug
  }
  static void give_back(Node* n) noexcept { pool().used &= ~(1u << (n - pool().nodes)); }

 private:
  struct Pool {
    Node nodes[kNodesPerThread]{};
    std::uint32_t used = 0;
  };
  // Constant-initialised: no first-use guard to test in every lock().
  static Pool& pool() noexcept {
    static thread_local constinit Pool p;
    return p;
  }
};

// The CLH locks' per-thread spare node. A CLH thread leaves its own node in
// the queue on unlock and keeps its predecessor's instead, so nodes migrate
// between threads. Taking the spare empties the slot, so a thread holding
// two CLH locks allocates a second node; giving one back when the slot is
// full frees it (nobody else refers to a predecessor's node once it is
// handed back).
template <class Node>
class SpareNode {
 public:
  static Node* take() {
    Node* n = spare_;
    spare_ = nullptr;
    return n ? n : fresh();
  }
  static void keep(Node* n) noexcept {
    if (spare_)
      delete n;
    else
      spare_ = n;
  }

 private:
  // Frees the thread's spare when the thread exits. A thread's first take()
  // finds the slot empty and comes here, before it can keep any node, so
  // every thread that ever holds a spare has its reaper.
  struct Reaper {
    ~Reaper() {
      delete spare_;
      spare_ = nullptr;
    }
  };
  static Node* fresh() {
    static thread_local Reaper reaper;  // registered here, off the lock's path
    return new Node;
  }
  // Constant-initialised and trivially destructible: no first-use guard to
  // test in every lock() (a thread_local with a destructor has one).
  static inline constinit thread_local Node* spare_ = nullptr;
};

}  // namespace rwstress
