/* The kernel-compat layer's <linux/sched/clock.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
