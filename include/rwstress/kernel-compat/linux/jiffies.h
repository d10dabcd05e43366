/* The kernel-compat layer's <linux/jiffies.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
