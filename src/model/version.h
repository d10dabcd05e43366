// The product's version: the top-level VERSION file, through the build
// (the generated rwstress_version.h). Every report and --version say it.
#pragma once

#include "rwstress_version.h"

namespace rwstress {

inline constexpr const char* kVersion = RWSTRESS_VERSION;

}  // namespace rwstress
