// One liburcu registration per thread. Every thread that enters a read-side
// section of the membarrier flavour (urcu-memb) must be registered, and only
// once: the urcu lock's readers and the kernel-compat layer's RCU (the host
// in src/registry/kernel_host.cc) both come here, so that a thread that
// uses both is registered once. Unregistered when the thread exits.
#pragma once

#include <urcu/urcu-memb.h>

namespace rwstress {

inline void urcu_register_this_thread() {
  struct Registration {
    Registration() { urcu_memb_register_thread(); }
    ~Registration() { urcu_memb_unregister_thread(); }
  };
  static thread_local Registration registration;
  (void)registration;
}

}  // namespace rwstress
