/* The kernel-compat layer's <linux/processor.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
