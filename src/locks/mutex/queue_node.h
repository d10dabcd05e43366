// Per-thread queue nodes for the queued spinlocks (MCS, CLH, qspinlock), in
// the role of the kernel's per-CPU qnodes.
//
// A thread waits in at most one queue per lock it is acquiring or holding;
// kNodesPerThread bounds how many queued locks one thread may hold at once
// (the kernel's four contexts: task, softirq, hardirq, NMI). A node is taken
// on lock and returned on unlock (MCS) or at the end of the slow path
// (qspinlock).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>

namespace rwstress {

inline constexpr int kNodesPerThread = 8;

struct alignas(64) QueueNode {
  std::atomic<QueueNode*> next{nullptr};
  std::atomic<std::uint32_t> locked{0};
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
    Node nodes[kNodesPerThread];
    std::uint32_t used = 0;
  };
  static Pool& pool() noexcept {
    static thread_local Pool p;
    return p;
  }
};

}  // namespace rwstress
