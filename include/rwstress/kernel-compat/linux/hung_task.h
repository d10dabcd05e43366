/* The kernel-compat layer's <linux/hung_task.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
