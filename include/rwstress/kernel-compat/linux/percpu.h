/* The kernel-compat layer's <linux/percpu.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
