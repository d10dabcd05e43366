/* The kernel-compat layer's <linux/wait.h>. The system has a header of this name
 * too (its uapi one), which system headers include: that comes first. */
#include_next <linux/wait.h>
#include <rwstress/kernel.h>
