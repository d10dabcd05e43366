// User-level contexts for the controlled scheduler: a schedule's threads
// run one at a time on the caller's OS thread, and handing the CPU to the
// next is a register switch (tens of nanoseconds) instead of a futex wake
// and a kernel context switch (microseconds).
//
// What the code under control keeps per thread stays per thread: each
// context borrows the thread-local storage of a thread of its own (a
// "donor", parked on a futex, from a pool). A switch loads the donor's
// thread pointer (x86-64's FS base, with the WRFSBASE instruction), so
// every `thread_local` and `__thread` of the host, of glibc (errno,
// malloc's cache, the C++ exception stack) and of a plugin the host
// loaded is the context's own, exactly as if it ran on its own thread;
// once the schedule has ended its objects are destroyed and the storage
// made new (give_back). What is not in thread-local storage is the OS thread's: gettid()
// and the CPU; thread_tid() gives the donor's id, and a controlled run
// answers the CPU from its own scheduler already.
//
// Only on x86-64 with FSGSBASE enabled by the kernel (Linux 5.9 and
// later on a CPU that has it), and not under a sanitizer (ASan and TSan
// keep shadow state per OS thread); elsewhere, or with
// RWSTRESS_EXPLORE_THREADS=os in the environment, the scheduler hands the
// CPU between OS threads as before. The schedules are the same either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace rwstress::controlled::fiber {

// Whether this process runs schedules on user-level contexts.
bool available();

// A saved context: its stack pointer, and the thread pointer it runs with.
struct Context {
  void* sp = nullptr;
  std::uintptr_t fs = 0;
};

// The thread-local storage of one context: a parked thread's.
class Donor {
 public:
  Donor();
  ~Donor();  // lets the thread exit (its thread-local destructors run) and joins it
  Donor(const Donor&) = delete;
  Donor& operator=(const Donor&) = delete;
  std::uintptr_t fs() const { return fs_; }
  int tid() const { return tid_; }

 private:
  static void* park(void* self);
  unsigned long thread_ = 0;
  void* park_state_ = nullptr;  // what the thread waits on
  std::uintptr_t fs_ = 0;
  int tid_ = 0;
};

// A donor for a schedule's context: one of the pool's, or a new thread's.
// Given back (give_back) once its schedule ended, its thread-local storage
// is first made what a new thread's is: the destructors of the
// `thread_local` objects it built run (glibc's __call_tls_dtors, as at a
// thread's exit), and every module's block but glibc's own is set back to
// its initial image (so those objects are built again at their next use).
// glibc's block (malloc's cache, errno, the locale) is left: a thread
// reused from a pool keeps it too.
std::unique_ptr<Donor> take_donor();
void give_back(std::unique_ptr<Donor> donor);

// A stack for one context, from a pool (given back when destroyed; a
// stopped schedule's are never destroyed).
class Stack {
 public:
  Stack();
  ~Stack();
  Stack(const Stack&) = delete;
  Stack& operator=(const Stack&) = delete;
  void* base() const { return base_; }
  static std::size_t size();

 private:
  void* base_ = nullptr;
};

// The context that starts `entry(arg)` on `stack` with `fs` as its thread
// pointer, when first switched to. `entry` never returns.
Context prepare(const Stack& stack, std::uintptr_t fs, void (*entry)(void*), void* arg);

// The calling context's own thread pointer (the OS thread's outside a context).
std::uintptr_t current_fs();

// Saves the running context into `from` and runs `to`.
void switch_to(Context& from, const Context& to);

}  // namespace rwstress::controlled::fiber
