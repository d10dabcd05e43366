/* The kernel-compat layer's <linux/spinlock.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
