/* The kernel-compat layer's <linux/sched/signal.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
