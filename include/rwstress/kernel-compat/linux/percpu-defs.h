/* The kernel-compat layer's <linux/percpu-defs.h>: per-CPU data is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
