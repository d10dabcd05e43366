/* The kernel-compat layer's <asm/barrier.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
