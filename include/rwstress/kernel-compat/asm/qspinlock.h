/* The kernel-compat layer's <asm/qspinlock.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
