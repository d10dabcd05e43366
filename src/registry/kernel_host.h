// The table rwstress hands a plugin built on the kernel-compat layer when it
// loads it (include/rwstress/kernel_host.h).
#pragma once

#include <rwstress/kernel_host.h>

namespace rwstress {

const rwstress_kernel_host& kernel_host();

}  // namespace rwstress
