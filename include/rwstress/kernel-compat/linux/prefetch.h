/* The kernel-compat layer's <linux/prefetch.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
