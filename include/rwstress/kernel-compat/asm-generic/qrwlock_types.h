/* The kernel-compat layer's <asm-generic/qrwlock_types.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
