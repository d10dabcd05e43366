/* The kernel-compat layer's <linux/ftrace.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
