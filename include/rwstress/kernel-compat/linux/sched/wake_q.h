/* The kernel-compat layer's <linux/sched/wake_q.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
