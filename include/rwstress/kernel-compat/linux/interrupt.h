/* The kernel-compat layer's <linux/interrupt.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
