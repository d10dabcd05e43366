/* The kernel-compat layer's <linux/hardirq.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
