/* The kernel-compat layer's <asm/cmpxchg.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
