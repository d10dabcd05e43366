// The FIFO wait list shared by the queueing rwsems of the 2.4 era
// (rwsem-aa, rwsem-xadd, rwsem-spinlock), as the kernel's struct
// rwsem_waiter on a list_head.
//
// A waiter lives on its sleeper's stack. The waker unlinks it under the wait
// lock, then grants it by clearing `waiting` (release) and waking the futex
// on that word. Once `waiting` is 0 the sleeper may return and reuse its
// stack, so the waker must read everything it needs from the record before
// granting; the futex_wake on a reused word is harmless (every sleeper in
// this tree re-checks its word).
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "platform/futex.h"

namespace rwstress {

struct RwsemWaiter {
  RwsemWaiter* prev = nullptr;
  RwsemWaiter* next = nullptr;
  bool wants_write = false;
  std::atomic<std::uint32_t> waiting{1};  // futex word: 1 = queued, 0 = granted

  explicit RwsemWaiter(bool write) noexcept : wants_write(write) {}
};

// Circular doubly linked list with a sentinel; callers hold the wait lock.
class RwsemWaitList {
 public:
  RwsemWaitList() noexcept { head_.prev = head_.next = &head_; }
  RwsemWaitList(const RwsemWaitList&) = delete;
  RwsemWaitList& operator=(const RwsemWaitList&) = delete;

  bool empty() const noexcept { return head_.next == &head_; }
  RwsemWaiter* front() noexcept { return empty() ? nullptr : head_.next; }
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
inline void rwsem_grant(RwsemWaiter* w) noexcept {
  w->waiting.store(0, std::memory_order_release);
  futex_wake(w->waiting);
}

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

// Grants every waiter of a batch. Reads each link before the grant frees it.
inline void rwsem_grant_batch(const GrantBatch& batch) noexcept {
  for (RwsemWaiter* w = batch.first; w;) {
    RwsemWaiter* next = w->next;
    rwsem_grant(w);
    w = next;
  }
}

}  // namespace rwstress
