/* The kernel-compat layer's <linux/semaphore.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
