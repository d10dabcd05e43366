/* The kernel-compat layer's <linux/smp.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
