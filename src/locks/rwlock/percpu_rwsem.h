// PercpuRwsem: the Linux per-CPU rwsem (kernel/locking/percpu-rwsem.c,
// Oleg Nesterov and Peter Zijlstra), with membarrier(2) where the kernel
// uses rcu_sync.
//
// Readers increment a counter in their own slot and check that no writer is
// pending; that is all: no shared cache line is written. A writer first
// announces itself (writers_pending) and forces readers onto the slow path,
// then sets `block`, then waits for the sum of the slot counters to drain.
// The kernel makes the announcement safe with an RCU grace period (every
// reader that missed it has finished its fast path); here the writer issues
// MEMBARRIER_CMD_PRIVATE_EXPEDITED, a full barrier on every thread of the
// process, pairing with the reader's "increment, then read pending" -- the
// asymmetric Dekker pattern liburcu's memb flavour uses. Where membarrier
// is unavailable readers fall back to a seq_cst fence. Slow-path readers
// pair with `block` through full fences, as __percpu_down_read does.
// Writers serialise on a futex mutex and sleep; readers blocked by a writer
// sleep on `block`. Writes are very expensive (a membarrier each): this lock
// is for data read millions of times per write. Fairness: writer-preference
// (a pending writer turns every new reader away).
#pragma once

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/rwlock/percpu_slot.h"
#include "locks/spin_wait.h"
#include "platform/futex.h"

namespace rwstress {

// Registers this process for private expedited membarrier, once per
// process (a fork()ed child is a new process and must register again);
// reports whether it can be used.
inline bool membarrier_ready() noexcept {
  static std::atomic<pid_t> registered_pid{0};
  static std::atomic<bool> ready{false};
  const pid_t me = getpid();
  if (registered_pid.load(std::memory_order_acquire) != me) {
    ready.store(syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0);
    registered_pid.store(me, std::memory_order_release);
  }
  return ready.load(std::memory_order_relaxed);
}

// A full barrier on every running thread of this process. A lock built
// where membarrier was ready relies on it; if it ever fails, abort rather
// than let readers and the writer pass each other unordered.
inline void membarrier_all(bool required) noexcept {
  if (membarrier_ready() &&
      syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
    return;
  if (required) std::abort();
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

template <class Hooks = NoHooks>
class PercpuRwsem {
 public:
  PercpuRwsem() : reader_fence_(!membarrier_ready()) {}

  void down_read() noexcept {
    if (!try_fast_read()) read_slowpath();
  }
  bool down_read_trylock() noexcept {
    if (try_fast_read()) return true;
    return try_slow_read();
  }
  void up_read() noexcept {
    slots_[reader_slot()].count.fetch_sub(1, std::memory_order_release);
  }

  void down_write() noexcept {
    writers_pending_.fetch_add(1, std::memory_order_seq_cst);
    membarrier_all(!reader_fence_);  // every reader now sees writers_pending, or we see its count
    writer_mutex_lock();
    block_.store(1, std::memory_order_seq_cst);
    spin_until<Hooks>([&] { return readers_active() == 0; });
  }
  void up_write() noexcept {
    block_.store(0, std::memory_order_release);
    Hooks::at(HookPoint::kBeforeWake);
    futex_wake_all(block_);
    writer_mutex_unlock();
    writers_pending_.fetch_sub(1, std::memory_order_release);
  }

 private:
  bool try_fast_read() noexcept {
    auto& c = slots_[reader_slot()].count;
    c.fetch_add(1, std::memory_order_relaxed);
    if (reader_fence_)
      std::atomic_thread_fence(std::memory_order_seq_cst);
    else
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the writer's membarrier orders us
    if (!writers_pending_.load(std::memory_order_acquire)) return true;
    c.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }

  // __percpu_down_read: count ourselves, full fence, then look at `block`.
  bool try_slow_read() noexcept {
    auto& c = slots_[reader_slot()].count;
    c.fetch_add(1, std::memory_order_seq_cst);
    if (!block_.load(std::memory_order_seq_cst)) return true;
    c.fetch_sub(1, std::memory_order_release);
    return false;
  }

  void read_slowpath() noexcept {
    while (!try_slow_read()) {
      Hooks::at(HookPoint::kBeforeSleep);
      futex_wait<Hooks>(block_, 1);
      Hooks::at(HookPoint::kAfterWake);
    }
  }

  long readers_active() const noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    long sum = 0;
    for (const auto& s : slots_) sum += s.count.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return sum;
  }

  // Writers among themselves: a futex mutex (0 free, 1 held, 2 contended).
  void writer_mutex_lock() noexcept {
    std::uint32_t c = 0;
    if (wmutex_.compare_exchange_strong(c, 1, std::memory_order_acquire)) return;
    if (c != 2) c = wmutex_.exchange(2, std::memory_order_acquire);
    while (c != 0) {
      futex_wait<Hooks>(wmutex_, 2);
      c = wmutex_.exchange(2, std::memory_order_acquire);
    }
  }
  void writer_mutex_unlock() noexcept {
    if (wmutex_.exchange(0, std::memory_order_release) == 2) futex_wake(wmutex_, 1);
  }

  struct alignas(64) Slot {
    std::atomic<long> count{0};  // may go negative: a reader may release on another slot
  };
  Slot slots_[kPercpuSlots];
  alignas(64) std::atomic<std::uint32_t> writers_pending_{0};
  alignas(64) std::atomic<std::uint32_t> block_{0};
  std::atomic<std::uint32_t> wmutex_{0};
  const bool reader_fence_;
};

}  // namespace rwstress
