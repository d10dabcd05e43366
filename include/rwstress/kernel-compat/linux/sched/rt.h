/* The kernel-compat layer's <linux/sched/rt.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
