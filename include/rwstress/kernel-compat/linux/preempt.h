/* The kernel-compat layer's <linux/preempt.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
