/* The kernel-compat layer's <linux/init.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
