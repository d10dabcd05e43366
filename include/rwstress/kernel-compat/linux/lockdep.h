/* The kernel-compat layer's <linux/lockdep.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
