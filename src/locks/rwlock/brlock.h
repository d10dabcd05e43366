// BigReaderLock: the big-reader lock (brlock; Linux 2.4 include/linux/
// brlock.h by Ingo Molnar and David Miller, later lglock).
//
// One reader spinlock per CPU slot, each on its own cache line: a reader
// takes only its slot's lock, so readers on different slots never share a
// line; a writer takes every slot's lock in order, which makes writes cost
// O(slots). Slot locks are test-and-test-and-set: a writer that has taken
// some slots is not protected from readers jumping in on the others before
// it gets there, so writers can wait long behind readers. Fairness: unfair.
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/raw_spinlock.h"
#include "locks/rwlock/percpu_slot.h"

namespace rwstress {

template <class Hooks = NoHooks>
class BigReaderLock {
 public:
  template <class H>
  using WithHooks = BigReaderLock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  void down_read() noexcept { slots_[reader_slot<Hooks>()].lock.lock(); }
  bool down_read_trylock() noexcept { return slots_[reader_slot<Hooks>()].lock.trylock(); }
  void up_read() noexcept { slots_[reader_slot<Hooks>()].lock.unlock(); }

  void down_write() noexcept {
    for (auto& s : slots_) s.lock.lock();
  }
  bool down_write_trylock() noexcept {
    for (int i = 0; i < kPercpuSlots; ++i) {
      if (!slots_[i].lock.trylock()) {
        while (--i >= 0) slots_[i].lock.unlock();
        return false;
      }
    }
    return true;
  }
  void up_write() noexcept {
    for (int i = kPercpuSlots - 1; i >= 0; --i) {
      if (i == kPercpuSlots / 2) Hooks::at(HookPoint::kMidRelease);
      slots_[i].lock.unlock();
    }
  }

 private:
  struct alignas(64) Slot {
    RawSpinlock<Hooks> lock;
  };
  Slot slots_[kPercpuSlots];
};

}  // namespace rwstress
