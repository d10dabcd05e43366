/* The kernel-compat layer's <linux/spinlock_types.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
