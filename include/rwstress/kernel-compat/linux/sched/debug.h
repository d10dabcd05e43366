/* The kernel-compat layer's <linux/sched/debug.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
