/* The kernel-compat layer's <linux/mutex.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
