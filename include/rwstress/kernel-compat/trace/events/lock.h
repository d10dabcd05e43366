/* The kernel-compat layer's <trace/events/lock.h>: everything is in <rwstress/kernel.h>. */
#include <rwstress/kernel.h>
