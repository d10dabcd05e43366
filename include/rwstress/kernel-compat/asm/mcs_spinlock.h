/* The kernel-compat layer's <asm/mcs_spinlock.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
