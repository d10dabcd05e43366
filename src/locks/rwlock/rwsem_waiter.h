// The FIFO wait list shared by the queueing rwsems of the 2.4 era
// (rwsem-aa, rwsem-xadd, rwsem-spinlock), as the kernel's struct
// rwsem_waiter on a list_head.
//
// A waiter lives on its sleeper's stack. The waker unlinks it under the wait
// lock, then grants it by clearing `waiting` and waking the futex on that
// word, in one system call (futex_set_and_wake). Once `waiting` is 0 the
// sleeper may return and reuse its stack, so the waker must read everything
// it needs from the record before granting.
#pragma once

#include <sched.h>

#include <atomic>
#include <cstdint>

#include "locks/futex.h"
#include "locks/hooks.h"

namespace rwstress {

struct RwsemWaiter {
  RwsemWaiter* prev = nullptr;
  RwsemWaiter* next = nullptr;
  bool wants_write = false;
  int cpu = -1;  // where the sleeper queued: see rwsem_grant_batch()
  // Futex word: 1 = queued, 0 = granted. A controlled word in every build
  // (futex.h): a record lives on slow paths that sleep anyway, and the
  // controlled instantiations of the rwsems share it.
  controlled::Atomic<std::uint32_t> waiting{1};

  explicit RwsemWaiter(bool write) noexcept : wants_write(write), cpu(controlled::current_cpu()) {}
};

// Circular doubly linked list with a sentinel; callers hold the wait lock.
class RwsemWaitList {
 public:
  RwsemWaitList() noexcept { head_.prev = head_.next = &head_; }
  RwsemWaitList(const RwsemWaitList&) = delete;
  RwsemWaitList& operator=(const RwsemWaitList&) = delete;

  bool empty() const noexcept { return head_.next == &head_; }
  RwsemWaiter* front() noexcept { return empty() ? nullptr : head_.next; }
  const RwsemWaiter* front() const noexcept { return empty() ? nullptr : head_.next; }
  RwsemWaiter* next_of(RwsemWaiter* w) noexcept { return w->next == &head_ ? nullptr : w->next; }

  void push_back(RwsemWaiter* w) noexcept {
    w->prev = head_.prev;
    w->next = &head_;
    head_.prev->next = w;
    head_.prev = w;
  }

  void remove(RwsemWaiter* w) noexcept {
    w->prev->next = w->next;
    w->next->prev = w->prev;
  }

 private:
  RwsemWaiter head_{false};
};

// Hands the lock to a waiter that has already been unlinked.
inline void rwsem_grant(RwsemWaiter* w) noexcept { futex_set_and_wake(w->waiting, 0); }

// Sleeps until a waker grants the lock. Spurious futex returns are expected.
template <class Hooks>
inline void rwsem_wait_for_grant(RwsemWaiter& w) noexcept {
  while (w.waiting.load(std::memory_order_acquire)) {
    Hooks::at(HookPoint::kBeforeSleep);
    futex_wait<Hooks>(w.waiting, 1);
    Hooks::at(HookPoint::kAfterWake);
  }
}

}  // namespace rwstress

namespace rwstress {

// Which readers a reader grant takes.
enum class ReaderBatch {
  kHeadRun,    // the readers at the head, up to the first queued writer (FIFO)
  kAllQueued,  // every queued reader, overtaking queued writers
};

// Waiters unlinked for one grant, chained through `next` in queue order.
struct GrantBatch {
  RwsemWaiter* first = nullptr;
  int readers = 0;
  bool writer = false;
};

// Unlinks whom the next grant goes to: the writer at the head alone, or a
// batch of readers chosen by `policy`. With readers_only (a downgrade, where
// the caller still holds a read lock), a writer at the head gets nothing.
// The caller holds the wait lock and the list is not empty.
inline GrantBatch rwsem_take_grant_batch(RwsemWaitList& q, ReaderBatch policy,
                                         bool readers_only) noexcept {
  GrantBatch batch;
  RwsemWaiter* w = q.front();
  if (w->wants_write) {
    if (readers_only) return batch;
    q.remove(w);
    w->next = nullptr;
    batch.first = w;
    batch.writer = true;
    return batch;
  }
  RwsemWaiter* tail = nullptr;
  while (w) {
    RwsemWaiter* after = q.next_of(w);
    if (w->wants_write) {
      if (policy == ReaderBatch::kHeadRun) break;
    } else {
      q.remove(w);
      w->next = nullptr;
      (tail ? tail->next : batch.first) = w;
      tail = w;
      ++batch.readers;
    }
    w = after;
  }
  return batch;
}

// Grants every waiter of a batch: first those that queued on other CPUs,
// then those that queued on the waker's own CPU. Reads each link before the
// grant frees it.
//
// The order matters in userspace, where the waker can be preempted. A
// sleeper on the waker's CPU preempts the waker as soon as it is woken, and
// the waker may not run again for a whole time slice. Any waiter not yet
// woken by then is granted (its bias is already in the count) but still
// asleep. The 2.4 kernel did these wake-ups with preemption off, so this did
// not happen there. Measured before this ordering, on 2 CPUs with xadd,
// 2 readers and 1 writer: a reader granted in the same batch as a reader on
// the waker's CPU slept on for 4 ms (one tick), and the writer got 0.01% of
// the operations.
inline void rwsem_grant_batch(const GrantBatch& batch) noexcept {
  const int here = controlled::current_cpu();
  RwsemWaiter* local = nullptr;  // not yet granted: their links are still ours
  for (RwsemWaiter *w = batch.first, *next; w; w = next) {
    next = w->next;  // read before the grant: a granted waiter may be gone
    if (w->cpu == here) {
      w->next = local;
      local = w;
    } else {
      rwsem_grant(w);
    }
  }
  for (RwsemWaiter *w = local, *next; w; w = next) {
    next = w->next;
    rwsem_grant(w);
  }
}

// The same order for waiters collected in an array (which is consumed).
inline void rwsem_grant_all(RwsemWaiter** waiters, int n) noexcept {
  const int here = controlled::current_cpu();
  for (int i = 0; i < n; ++i) {
    if (waiters[i]->cpu != here) {
      rwsem_grant(waiters[i]);
      waiters[i] = nullptr;
    }
  }
  for (int i = 0; i < n; ++i)
    if (waiters[i]) rwsem_grant(waiters[i]);
}

}  // namespace rwstress
