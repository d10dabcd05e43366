/* The kernel-compat layer's <linux/bug.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
