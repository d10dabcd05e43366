/* The kernel-compat layer's <linux/types.h>. The system has a header of this name
 * too (its uapi one), which system headers include: that comes first. */
#include_next <linux/types.h>
#include <rwstress/kernel.h>
