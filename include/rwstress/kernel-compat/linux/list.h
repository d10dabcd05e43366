/* The kernel-compat layer's <linux/list.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
