// The table rwstress hands a plugin built on the kernel-compat layer when it
// loads it (include/rwstress/kernel_host.h).
#pragma once

#include <cstddef>

#include <rwstress/kernel_host.h>

namespace rwstress {

const rwstress_kernel_host& kernel_host();

// An explore build's per-CPU reset (rwstress_kernel_fresh_cpu_v1 in
// <linux/percpu.h>): called for a controlled thread's slot before it runs;
// returns the slot's static per-CPU data and its size (or nullptr).
using KernelFreshCpuFn = void* (*)(int cpu, std::size_t* size);
void add_kernel_fresh_cpu_hook(KernelFreshCpuFn fresh);

}  // namespace rwstress
