/* The kernel-compat layer's <linux/sched.h>. The system has a header of this name
 * too (its uapi one), which system headers include: that comes first. */
#include_next <linux/sched.h>
#include <rwstress/kernel.h>
