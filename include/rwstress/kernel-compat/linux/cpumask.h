/* The kernel-compat layer's <linux/cpumask.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
