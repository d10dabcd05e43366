/* The kernel-compat layer's <asm/processor.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
