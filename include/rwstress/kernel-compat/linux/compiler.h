/* The kernel-compat layer's <linux/compiler.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
