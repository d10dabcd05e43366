// QRwlock: the Linux queued rwlock (kernel/locking/qrwlock.c, Waiman Long,
// Linux 3.16+), the arch rwlock_t on x86 and arm64.
//
// Count word, 32 bits:
//   bits 0-7   writer byte: 0xff = a writer holds (_QW_LOCKED)
//   bit  8     _QW_WAITING: a writer waits for the readers to drain
//   bits 9-31  reader count (_QR_BIAS = 1 << 9)
// Fast paths: a reader adds _QR_BIAS and is in unless the writer bits were
// set; a writer cmpxchg's 0 -> _QW_LOCKED. Everybody else goes through
// wait_lock, a fair queued spinlock (our qspinlock), so contended readers
// and writers are served in arrival order. Fairness: task-fair (FIFO through
// wait_lock; uncontended readers may join readers that hold it).
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/mutex/qspinlock.h"
#include "locks/spin_wait.h"

namespace rwstress {

template <class Hooks = NoHooks>
class QRwlock {
 public:
  template <class H>
  using WithHooks = QRwlock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  void down_read() noexcept {
    std::uint32_t c = cnts_.fetch_add(kReaderBias, std::memory_order_acquire);
    if (!(c & kWriterMask)) return;
    read_slowpath();
  }
  bool down_read_trylock() noexcept {
    std::uint32_t c = cnts_.load(std::memory_order_relaxed);
    if (c & kWriterMask) return false;
    c = cnts_.fetch_add(kReaderBias, std::memory_order_acquire);
    if (!(c & kWriterMask)) return true;
    cnts_.fetch_sub(kReaderBias, std::memory_order_relaxed);
    return false;
  }
  void up_read() noexcept { cnts_.fetch_sub(kReaderBias, std::memory_order_release); }

  void down_write() noexcept {
    std::uint32_t expected = 0;
    if (cnts_.compare_exchange_strong(expected, kLocked, std::memory_order_acquire,
                                      std::memory_order_relaxed))
      return;
    write_slowpath();
  }
  bool down_write_trylock() noexcept {
    std::uint32_t expected = 0;
    return cnts_.compare_exchange_strong(expected, kLocked, std::memory_order_acquire,
                                         std::memory_order_relaxed);
  }
  void up_write() noexcept { cnts_.fetch_sub(kLocked, std::memory_order_release); }

  // The idle check (lock_traits.h, HasIdleCheck): after every thread left.
  const char* not_idle() const noexcept {
    if (cnts_.load(std::memory_order_relaxed) != 0)
      return "cnts is not 0 (a reader count, _QW_WAITING or _QW_LOCKED left)";
    if (const char* q = wait_lock_.not_idle()) return q;
    return nullptr;
  }

 private:
  static constexpr std::uint32_t kLocked = 0xff;
  static constexpr std::uint32_t kWaiting = 0x100;
  static constexpr std::uint32_t kWriterMask = 0x1ff;
  static constexpr std::uint32_t kReaderBias = 1u << 9;

  void read_slowpath() noexcept {
    cnts_.fetch_sub(kReaderBias, std::memory_order_relaxed);
    wait_lock_.lock();
    Hooks::at(HookPoint::kAfterEnqueue);
    cnts_.fetch_add(kReaderBias, std::memory_order_acquire);
    // Only a holding writer stops us now: a waiting one is behind us in
    // wait_lock's queue.
    spin_until<Hooks>([&] { return !(cnts_.load(std::memory_order_acquire) & kLocked); });
    wait_lock_.unlock();
  }

  void write_slowpath() noexcept {
    wait_lock_.lock();
    Hooks::at(HookPoint::kAfterEnqueue);
    std::uint32_t expected = 0;
    if (!cnts_.compare_exchange_strong(expected, kLocked, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
      cnts_.fetch_or(kWaiting, std::memory_order_relaxed);  // no new fast-path readers
      SpinWait<Hooks> wait;
      for (;;) {
        std::uint32_t c = kWaiting;
        if (cnts_.compare_exchange_weak(c, kLocked, std::memory_order_acquire,
                                        std::memory_order_relaxed))
          break;
        wait.once();
      }
    }
    wait_lock_.unlock();
  }

  Atomic<Hooks, std::uint32_t> cnts_{0};
  QSpinlock<Hooks> wait_lock_;
};

}  // namespace rwstress
