/* The kernel-compat layer's <linux/rwlock_types.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
