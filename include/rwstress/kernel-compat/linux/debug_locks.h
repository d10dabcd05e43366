/* The kernel-compat layer's <linux/debug_locks.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
