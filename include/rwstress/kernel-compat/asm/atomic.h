/* The kernel-compat layer's <asm/atomic.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
