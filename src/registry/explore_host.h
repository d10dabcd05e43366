// The table rwstress hands a plugin that marks its own scheduling points
// (include/rwstress/explore.h): the controlled scheduler's points, spin
// turns and modelled sleeps, reached from C.
#pragma once

#include <rwstress/explore.h>

namespace rwstress {

const rwstress_explore_host& explore_host();

// The end of a thread's lock operation in a controlled run: the kernel
// layer's deferred RCU callbacks run, and the operation is counted (a
// killed thread waits for the others' progress). registry/kernel_host.cc.
void kernel_op_end();
// The calling thread's futex wait ended in a spurious wake-up: with
// --signals, its kernel task gets a fatal signal.
void kernel_woken_spuriously();

}  // namespace rwstress
