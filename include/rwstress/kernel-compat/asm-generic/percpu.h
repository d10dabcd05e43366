/* The kernel-compat layer's <asm-generic/percpu.h>: per-CPU data is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
