/* The kernel-compat layer's <linux/atomic.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
