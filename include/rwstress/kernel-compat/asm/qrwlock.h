/* The kernel-compat layer's <asm/qrwlock.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
