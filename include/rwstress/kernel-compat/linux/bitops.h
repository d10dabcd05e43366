/* The kernel-compat layer's <linux/bitops.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
