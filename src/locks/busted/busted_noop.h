// busted-noop: a "lock" whose operations do nothing.
//
// The positive control of the checkers, like locktorture's lock_busted:
// every run on it must FAIL. Trylocks always "succeed", downgrade does
// nothing.
#pragma once

#include "locks/hooks.h"

namespace rwstress {

template <class Hooks = NoHooks>
class BustedNoop {
 public:
  template <class H>
  using WithHooks = BustedNoop<H>;  // the same (empty) lock over other hooks
  void down_read() noexcept {}
  void up_read() noexcept {}
  void down_write() noexcept {}
  void up_write() noexcept {}
  bool down_read_trylock() noexcept { return true; }
  bool down_write_trylock() noexcept { return true; }
  void downgrade_write() noexcept {}
};

}  // namespace rwstress
