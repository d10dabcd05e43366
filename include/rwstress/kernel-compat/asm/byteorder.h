/* The kernel-compat layer's <asm/byteorder.h>. The system has a header of this name
 * too (its uapi one), which system headers include: that comes first. */
#include_next <asm/byteorder.h>
#include <rwstress/kernel.h>
