/* The kernel-compat layer's <linux/module.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
