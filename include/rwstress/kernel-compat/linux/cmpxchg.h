/* The kernel-compat layer's <linux/cmpxchg.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
