/* The kernel-compat layer's <linux/printk.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
