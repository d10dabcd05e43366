/* The kernel-compat layer's <linux/compiler_types.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
