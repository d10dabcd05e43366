// User-level contexts for the controlled scheduler (fiber.h).
#include "explore/fiber.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RWSTRESS_FIBER_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RWSTRESS_FIBER_SANITIZED 1
#endif
#if defined(__x86_64__) && !defined(RWSTRESS_FIBER_SANITIZED)
#define RWSTRESS_FIBER_X86_64 1
#endif

#ifdef RWSTRESS_FIBER_X86_64
// The switch: the callee-saved registers, the SSE and x87 control words
// (callee-saved too in the System V ABI) pushed on the running stack, its
// stack pointer saved, the other's loaded with its thread pointer, and
// the same popped there. A context's first switch "returns" into
// rwstress_fiber_start, which calls its entry (r13) with its argument
// (r12) on a 16-byte aligned stack.
asm(R"(
  .text
  .p2align 4
  .globl rwstress_fiber_swap
  .hidden rwstress_fiber_swap
  .type rwstress_fiber_swap, @function
rwstress_fiber_swap:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  wrfsbase %rdx
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size rwstress_fiber_swap, .-rwstress_fiber_swap

  .p2align 4
  .globl rwstress_fiber_start
  .hidden rwstress_fiber_start
  .type rwstress_fiber_start, @function
rwstress_fiber_start:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size rwstress_fiber_start, .-rwstress_fiber_start
)");

extern "C" void rwstress_fiber_swap(void** from_sp, void* to_sp, std::uintptr_t to_fs);
extern "C" void rwstress_fiber_start();
#endif

namespace rwstress::controlled::fiber {

namespace {

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

bool decide() {
#ifdef RWSTRESS_FIBER_X86_64
  if (const char* env = std::getenv("RWSTRESS_EXPLORE_THREADS"); env && std::strcmp(env, "os") == 0)
    return false;
  return (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
#else
  return false;
#endif
}

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t seen) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, seen, nullptr,
          nullptr, 0);
}
void futex_wake(std::atomic<std::uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr,
          nullptr, 0);
}

// 2 MiB of stack a context (reserved, touched as used) above a 64 KiB
// guard: an overflow faults, as a thread's would.
constexpr std::size_t kStackSize = std::size_t(2) << 20;
constexpr std::size_t kGuard = std::size_t(64) << 10;

std::mutex& pool_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
std::vector<void*>& pool() {
  static auto* p = new std::vector<void*>;
  return *p;
}

}  // namespace

bool available() {
  static const bool yes = decide();
  return yes;
}

// What a donor's thread and the Donor tell each other.
struct Park {
  std::atomic<std::uint32_t> ready{0};
  std::atomic<std::uint32_t> release{0};
  std::uintptr_t fs = 0;  // (written before `ready`, read after it)
  int tid = 0;
};

Donor::Donor() {
  auto* park_state = new Park;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, std::size_t(256) << 10);  // it only parks
  pthread_t t{};
  if (pthread_create(&t, &attr, &Donor::park, park_state) != 0) std::abort();
  pthread_attr_destroy(&attr);
  thread_ = static_cast<unsigned long>(t);
  while (park_state->ready.load(std::memory_order_acquire) == 0) futex_wait(park_state->ready, 0);
  fs_ = park_state->fs;
  tid_ = park_state->tid;
  park_state_ = park_state;
}

Donor::~Donor() {
  auto* park_state = static_cast<Park*>(park_state_);
  park_state->release.store(1, std::memory_order_release);
  futex_wake(park_state->release);
  pthread_join(static_cast<pthread_t>(thread_), nullptr);
  delete park_state;
}

void* Donor::park(void* arg) {
  auto* p = static_cast<Park*>(arg);
  p->tid = int(gettid());
  p->fs = current_fs();
  p->ready.store(1, std::memory_order_release);
  futex_wake(p->ready);
  while (p->release.load(std::memory_order_acquire) == 0) futex_wait(p->release, 0);
  return nullptr;  // its thread-local destructors run now, on their own thread
}

std::size_t Stack::size() { return kStackSize; }

Stack::Stack() {
  {
    const std::lock_guard hold(pool_mutex());
    if (!pool().empty()) {
      base_ = pool().back();
      pool().pop_back();
      return;
    }
  }
  void* m = mmap(nullptr, kStackSize + kGuard, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (m == MAP_FAILED) std::abort();
  mprotect(m, kGuard, PROT_NONE);
  base_ = static_cast<char*>(m) + kGuard;
}

Stack::~Stack() {
  if (!base_) return;
  const std::lock_guard hold(pool_mutex());
  pool().push_back(base_);
}

namespace {

// A fork()ed child (explore --jobs, a plugin's child process) has none of
// the donors' threads, and glibc takes their stacks and thread-local
// storage back for its own next threads: the child starts a pool of its
// own.
void forget_donors_in_child();

std::vector<Donor*>& donor_pool() {
  static auto* p = [] {
    pthread_atfork(nullptr, nullptr, &forget_donors_in_child);
    return new std::vector<Donor*>;
  }();
  return *p;
}

void forget_donors_in_child() { donor_pool().clear(); }  // (not freed: not its to free)

// glibc's __call_tls_dtors: runs the calling thread's thread_local
// destructors, as its exit does (GLIBC_PRIVATE, the same since 2.18).
// Without it a donor is not used again: its thread exits instead.
using CallTlsDtors = void (*)();
CallTlsDtors call_tls_dtors() {
  static const auto fn =
      reinterpret_cast<CallTlsDtors>(dlvsym(RTLD_DEFAULT, "__call_tls_dtors", "GLIBC_PRIVATE"));
  return fn;
}

// The modules whose thread-local blocks a reused donor starts afresh:
// every one but glibc's and the dynamic loader's.
bool keeps_its_block(const char* name) {
  const char* base = std::strrchr(name, '/');
  base = base ? base + 1 : name;
  return std::strncmp(base, "libc.so", 7) == 0 || std::strncmp(base, "ld-linux", 8) == 0;
}

int reset_block(dl_phdr_info* info, std::size_t, void*) {
  if (info->dlpi_tls_data == nullptr || keeps_its_block(info->dlpi_name)) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_TLS) continue;
    auto* block = static_cast<char*>(info->dlpi_tls_data);
    std::memcpy(block, reinterpret_cast<const void*>(info->dlpi_addr + ph.p_vaddr), ph.p_filesz);
    std::memset(block + ph.p_filesz, 0, ph.p_memsz - ph.p_filesz);
  }
  return 0;
}

struct Renewal {
  Context back;  // the caller's
  Context self;
};

// Runs on the donor's thread pointer, on a stack of its own.
void renew(void* arg) {
  auto* r = static_cast<Renewal*>(arg);
  call_tls_dtors()();
  dl_iterate_phdr(&reset_block, nullptr);
  switch_to(r->self, r->back);  // (never resumed)
}

}  // namespace

std::unique_ptr<Donor> take_donor() {
  {
    const std::lock_guard hold(pool_mutex());
    if (!donor_pool().empty()) {
      std::unique_ptr<Donor> d(donor_pool().back());
      donor_pool().pop_back();
      return d;
    }
  }
  return std::make_unique<Donor>();
}

void give_back(std::unique_ptr<Donor> donor) {
  if (!call_tls_dtors()) return;  // (its thread exits: the destructors run there)
  {
    const Stack stack;
    Renewal r;
    r.back.fs = current_fs();
    r.self = prepare(stack, donor->fs(), &renew, &r);
    switch_to(r.back, r.self);
  }
  const std::lock_guard hold(pool_mutex());
  donor_pool().push_back(donor.release());
}

std::uintptr_t current_fs() {
#ifdef RWSTRESS_FIBER_X86_64
  std::uintptr_t fs;
  asm volatile("rdfsbase %0" : "=r"(fs));
  return fs;
#else
  return 0;
#endif
}

Context prepare(const Stack& stack, std::uintptr_t fs, void (*entry)(void*), void* arg) {
  Context c;
  c.fs = fs;
#ifdef RWSTRESS_FIBER_X86_64
  auto top = reinterpret_cast<std::uintptr_t>(stack.base()) + stack.size();
  top &= ~std::uintptr_t(15);
  auto* frame = reinterpret_cast<std::uint64_t*>(top - 64 - 16);  // 16-byte aligned
  std::memset(frame, 0, 64 + 16);
  const std::uint32_t mxcsr = 0x1f80;  // the ABI's initial control words
  const std::uint16_t fpucw = 0x037f;
  std::memcpy(reinterpret_cast<char*>(frame), &mxcsr, sizeof mxcsr);
  std::memcpy(reinterpret_cast<char*>(frame) + 4, &fpucw, sizeof fpucw);
  frame[1] = 0;                                        // r15
  frame[2] = 0;                                        // r14
  frame[3] = reinterpret_cast<std::uint64_t>(entry);   // r13
  frame[4] = reinterpret_cast<std::uint64_t>(arg);     // r12
  frame[5] = 0;                                        // rbx
  frame[6] = 0;                                        // rbp
  frame[7] = reinterpret_cast<std::uint64_t>(&rwstress_fiber_start);
  c.sp = frame;
#else
  (void)stack;
  (void)entry;
  (void)arg;
#endif
  return c;
}

void switch_to(Context& from, const Context& to) {
#ifdef RWSTRESS_FIBER_X86_64
  rwstress_fiber_swap(&from.sp, to.sp, to.fs);
#else
  (void)from;
  (void)to;
  std::abort();
#endif
}

}  // namespace rwstress::controlled::fiber
