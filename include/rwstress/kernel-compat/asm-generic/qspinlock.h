/* The kernel-compat layer's <asm-generic/qspinlock.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
