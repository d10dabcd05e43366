/* The kernel-compat layer's <linux/rwlock.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
