/* The kernel-compat layer's <asm/spinlock.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
