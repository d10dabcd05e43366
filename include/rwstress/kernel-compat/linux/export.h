/* The kernel-compat layer's <linux/export.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
