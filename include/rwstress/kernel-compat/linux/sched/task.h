/* The kernel-compat layer's <linux/sched/task.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
