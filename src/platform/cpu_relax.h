// cpu_relax(): the spin-wait hint, as the kernel's cpu_relax().
#pragma once

namespace rwstress {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  asm volatile("" ::: "memory");
#endif
}

}  // namespace rwstress
