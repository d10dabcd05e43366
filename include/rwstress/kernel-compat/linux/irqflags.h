/* The kernel-compat layer's <linux/irqflags.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
