/* The kernel-compat layer's <linux/cache.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
