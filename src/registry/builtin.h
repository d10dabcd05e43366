// The built-in lock table, in four parts compiled apart (builtin_*.cc);
// registry.cc joins them, in this order, ahead of any --plugin lock.
#pragma once

#include <span>

#include "registry/registry.h"

namespace rwstress {

std::span<const LockEntry> kernel_style_rwlocks();
std::span<const LockEntry> library_rwlocks();
std::span<const LockEntry> semaphores_and_mutexes();
std::span<const LockEntry> busted_locks();

}  // namespace rwstress
