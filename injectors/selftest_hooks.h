// Fixed injecting hooks for `rwstress selftest`, until the seeded
// injectors of the fault-injection issue replace them:
//   WidenSleepWindow: sleeps 200 us at before-sleep, the point between a
//     waiter's last look at its condition and its sleep, where lost
//     wake-ups hide;
//   SpuriousFutexReturns: every fourth futex_wait of a thread returns at
//     once, as futex(2) may on a signal.
#pragma once

#include <chrono>
#include <thread>

#include "locks/hooks.h"

namespace rwstress {

struct WidenSleepWindow {
  static void at(HookPoint p) noexcept {
    if (p == HookPoint::kBeforeSleep) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  static constexpr bool spurious_futex_return() noexcept { return false; }
};

struct SpuriousFutexReturns {
  static constexpr void at(HookPoint) noexcept {}
  static bool spurious_futex_return() noexcept {
    static thread_local unsigned calls = 0;
    return ++calls % 4 == 0;
  }
};

}  // namespace rwstress
