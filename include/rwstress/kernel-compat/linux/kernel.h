/* The kernel-compat layer's <linux/kernel.h>. The system has a header of this name
 * too (its uapi one), which system headers include: that comes first. */
#include_next <linux/kernel.h>
#include <rwstress/kernel.h>
