// PercpuRwsem: the Linux per-CPU rwsem as it has been since 5.8
// (kernel/locking/percpu-rwsem.c after Peter Zijlstra's "remove the embedded
// rwsem"; Oleg Nesterov's rcu_sync), in userspace.
//
// Readers: while no writer is about (rcu_sync idle), down_read and up_read
// touch only the reader's own per-CPU counter. A writer first enters
// rcu_sync, which sends readers to the slow path: count, full barrier, then
// look at `block`; a reader that finds it set backs out, prods the writer,
// and waits.
//
// Writers: exclusion among writers is `block` itself (xchg 0 -> 1). The
// winner waits, sleeping (rcuwait), until the reader counts sum to zero;
// slow-path readers wake it when they leave. A writer that finds `block`
// set waits in the same queue as blocked readers.
//
// The queue: one FIFO of readers and writers. A release wakes from the
// front, doing each waiter's trylock on its behalf (hand-off), readers
// until one writer, stopping at the first trylock that fails (a newcomer
// may have stolen `block` in between: the lock is not strictly FIFO).
//
// rcu_sync is amortised over a burst of writers: only a writer that finds
// it idle pays the grace period, and the last writer out leaves it "exit"
// rather than idle, so a writer that follows soon pays nothing. In the
// kernel an RCU callback returns it to idle a grace period later; here the
// first slow-path reader that finds it in "exit" with no writer about
// returns it to idle (the fast path is then open again).
//
// Userspace differences, and why:
//   - The grace period is MEMBARRIER_CMD_PRIVATE_EXPEDITED (a seq_cst fence
//     in readers where membarrier is unavailable). A grace period waits out
//     readers that are between "saw idle" and their increment, which
//     preempt_disable makes short in the kernel; a preempted thread can sit
//     there for a time slice, so the fast path is "increment, then check
//     rcu_sync" (the asymmetric Dekker pattern of liburcu's memb flavour),
//     backing out to the slow path when a writer is about.
//   - Per-CPU counters are per-slot (percpu_slot.h): threads migrate.
//   - Per-CPU counts: the kernel's this_cpu_inc is an unlocked add to the
//     CPU's own copy (incl %gs:... on x86). A slot here may be shared (past
//     kPercpuSlots threads, and a thread that migrates keeps its slot), so
//     the add is an atomic relaxed fetch_add in every build, explore's too:
//     on x86 a locked add, which is a full barrier the kernel's incl is
//     not. explore --memory tso therefore judges the x86 code this lock
//     runs (the reader's add is never left in a store buffer), and --memory
//     c11 judges weakly ordered targets, where a relaxed read-modify-write
//     orders nothing. The kernel's own percpu-rwsem.c, built by `rwstress
//     kernel`, keeps the unlocked add (the kernel layer's this_cpu_add).
//
// State: slots_[i].count (per-slot reader counts, may go negative: a
// reader may release on another slot's behalf), block_ (0 free for
// writers, 1 a writer holds or is draining readers), sync_state_ (rcu_sync
// kIdle / kActive / kExit), writers_ (writers between rcu_sync enter and
// exit), writer_wake_ (futex word the draining writer sleeps on), and the
// wait queue under wait_lock_.
//
// Fairness: unfair (stealing) as in the kernel; writes are expensive (a
// grace period per burst of writers).
#pragma once

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstdint>

#include "locks/futex.h"
#include "locks/hooks.h"
#include "locks/raw_spinlock.h"
#include "locks/rwlock/percpu_slot.h"
#include "locks/spin_wait.h"

namespace rwstress {

// Registers this process for private expedited membarrier, once per
// process (a fork()ed child is a new process and must register again);
// reports whether it can be used.
inline bool membarrier_ready() noexcept {
  static std::atomic<pid_t> registered_pid{0};
  static std::atomic<bool> ready{false};
  const pid_t me = getpid();
  if (registered_pid.load(std::memory_order_acquire) != me) {
    ready.store(syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0);
    registered_pid.store(me, std::memory_order_release);
  }
  return ready.load(std::memory_order_relaxed);
}

// A full barrier on every running thread of this process. A lock built
// where membarrier was ready relies on it; if it ever fails, abort rather
// than let readers and the writer pass each other unordered.
inline void membarrier_all(bool required) noexcept {
  if (membarrier_ready() &&
      syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
    return;
  if (required) std::abort();
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

// kNoFence: busted-percpu-no-fence (the busted zoo): the reader fast path
// counts itself and looks at rcu_sync with nothing between (no smp_mb, and
// the writer pays no grace period to stand in for one): store buffering
// lets a reader and a writer each miss the other. x86 hides it here (the
// ordinary build's count add is a locked instruction); explore shows it
// under --memory c11 and --memory tso, and passes it under sc.
template <class Hooks = NoHooks, bool kNoFence = false>
class PercpuRwsem {
 public:
  template <class H>
  using WithHooks = PercpuRwsem<H, kNoFence>;  // the same lock over other hooks
  PercpuRwsem() : reader_fence_(!membarrier_ready()) {}

  void down_read() noexcept {
    if (try_fast_read()) return;
    if (!read_trylock()) wait_in_queue(false);
  }
  bool down_read_trylock() noexcept { return try_fast_read() || read_trylock(); }

  // Leave, then look: a writer that entered rcu_sync before our look may
  // be draining readers and must be prodded. The pairing is the fast path's:
  // the writer's grace period (membarrier) sits between its leaving kIdle
  // and its summing the counts, so it sees our decrement or we see it.
  void up_read() noexcept {
    slots_[reader_slot<Hooks>()].count.fetch_sub(1, std::memory_order_release);
    if (reader_fence_)
      seam_fence<Hooks>(std::memory_order_seq_cst);
    else
      std::atomic_signal_fence(std::memory_order_seq_cst);
    if (sync_state_.load(std::memory_order_acquire) != kIdle) wake_writer();
  }

  void down_write() noexcept {
    sync_enter();
    if (!write_trylock()) wait_in_queue(true);
    // Wait (rcuwait) until every reader counted before `block` has left.
    for (;;) {
      const std::uint32_t seq = writer_wake_.load(std::memory_order_acquire);
      if (readers_active() == 0) break;
      Hooks::at(HookPoint::kBeforeSleep);
      futex_wait<Hooks>(writer_wake_, seq);
      Hooks::at(HookPoint::kAfterWake);
    }
  }

  void up_write() noexcept {
    release_block();
    sync_exit();
  }

  // The idle check (lock_traits.h, HasIdleCheck): after every thread left.
  // rcu_sync may rest in "exit" (the header comment), so it is not looked at.
  const char* not_idle() const noexcept {
    long readers = 0;
    for (const Slot& s : slots_) readers += s.count.load(std::memory_order_relaxed);
    if (readers != 0) return "the per-CPU reader counts do not sum to 0";
    if (block_.load(std::memory_order_relaxed)) return "block is set";
    if (writers_.load(std::memory_order_relaxed)) return "rcu_sync's writer count is not 0";
    if (head_) return "the wait queue is not empty";
    if (wait_lock_.is_locked()) return "the wait queue's lock is held";
    return nullptr;
  }

 private:
  enum : std::uint32_t { kIdle = 0, kActive = 1, kExit = 2 };

  // --- rcu_sync ---------------------------------------------------------
  void sync_enter() noexcept {
    writers_.fetch_add(1, std::memory_order_seq_cst);
    std::uint32_t s = sync_state_.load(std::memory_order_acquire);
    for (;;) {
      if (s == kActive) return;
      if (sync_state_.compare_exchange_weak(s, kActive, std::memory_order_seq_cst)) break;
    }
    // From kExit readers were still on the slow path: no grace period.
    if (s == kIdle && !kNoFence) {
      membarrier_all(!reader_fence_);
      if constexpr (kControlled<Hooks>) controlled::model_fence_everyone();
    }
  }
  void sync_exit() noexcept {
    // The last writer out leaves kExit; a slow-path reader returns it to
    // kIdle later (see the header comment).
    if (writers_.fetch_sub(1, std::memory_order_seq_cst) == 1) {
      std::uint32_t s = kActive;
      sync_state_.compare_exchange_strong(s, kExit, std::memory_order_seq_cst);
    }
  }
  void maybe_back_to_idle() noexcept {
    if (sync_state_.load(std::memory_order_relaxed) != kExit) return;
    if (writers_.load(std::memory_order_seq_cst) != 0) return;
    std::uint32_t s = kExit;
    sync_state_.compare_exchange_strong(s, kIdle, std::memory_order_seq_cst);
    // A writer that entered meanwhile moved kExit to kActive first (our CAS
    // fails), or finds kIdle and pays the grace period: both safe.
  }

  // --- readers ------------------------------------------------------------
  bool try_fast_read() noexcept {
    auto& c = slots_[reader_slot<Hooks>()].count;
    c.fetch_add(1, std::memory_order_relaxed);  // this_cpu_inc: see "Per-CPU counts" above
    if constexpr (!kNoFence) {
      if (reader_fence_)
        seam_fence<Hooks>(std::memory_order_seq_cst);
      else
        std::atomic_signal_fence(std::memory_order_seq_cst);  // the writer's membarrier orders us
    }
    if (sync_state_.load(std::memory_order_acquire) == kIdle) return true;
    c.fetch_sub(1, std::memory_order_relaxed);
    maybe_back_to_idle();
    return false;
  }

  // __percpu_down_read_trylock: count ourselves, full barrier, look at block.
  bool read_trylock() noexcept {
    auto& c = slots_[reader_slot<Hooks>()].count;
    c.fetch_add(1, std::memory_order_seq_cst);
    if (!block_.load(std::memory_order_seq_cst)) return true;
    c.fetch_sub(1, std::memory_order_seq_cst);
    wake_writer();  // it may be waiting for our count to go
    return false;
  }

  // --- writers ------------------------------------------------------------
  bool write_trylock() noexcept {
    if (block_.load(std::memory_order_relaxed)) return false;
    return block_.exchange(1, std::memory_order_seq_cst) == 0;
  }
  void release_block() noexcept {
    block_.store(0, std::memory_order_release);
    wake_queue();
  }

  void wake_writer() noexcept {
    writer_wake_.fetch_add(1, std::memory_order_seq_cst);
    futex_wake(writer_wake_);
  }

  long readers_active() const noexcept {
    seam_fence<Hooks>(std::memory_order_seq_cst);
    long sum = 0;
    for (const auto& s : slots_) sum += s.count.load(std::memory_order_relaxed);
    seam_fence<Hooks>(std::memory_order_seq_cst);
    return sum;
  }

  // --- the wait queue -----------------------------------------------------
  struct Waiter {
    Waiter* next = nullptr;
    bool writer = false;
    Atomic<Hooks, std::uint32_t> waiting{1};  // futex word: 1 queued, 0 handed the lock
  };

  // percpu_rwsem_wait: a trylock under the queue lock (so that a release
  // that comes after a failed one sees us queued), then sleep until a
  // waker has done our trylock for us.
  void wait_in_queue(bool writer) noexcept {
    Waiter self;
    self.writer = writer;
    wait_lock_.lock();
    if (writer ? write_trylock() : read_trylock()) {
      wait_lock_.unlock();
      return;
    }
    *tail_ = &self;
    tail_ = &self.next;
    wait_lock_.unlock();
    Hooks::at(HookPoint::kAfterEnqueue);
    while (self.waiting.load(std::memory_order_acquire)) {
      Hooks::at(HookPoint::kBeforeSleep);
      futex_wait<Hooks>(self.waiting, 1);
      Hooks::at(HookPoint::kAfterWake);
    }
  }

  // percpu_rwsem_wake_function over the queue: readers until one writer,
  // stopping at the first trylock that fails.
  void wake_queue() noexcept {
    SpinGuard guard(wait_lock_);
    while (Waiter* w = head_) {
      if (!(w->writer ? write_trylock() : read_trylock())) break;
      head_ = w->next;
      if (!head_) tail_ = &head_;
      const bool was_writer = w->writer;
      Hooks::at(HookPoint::kBeforeWake);
      futex_set_and_wake(w->waiting, 0);  // w may return and be gone now
      if (was_writer) break;
    }
  }

  struct alignas(64) Slot {
    Atomic<Hooks, long> count{0};
  };
  Slot slots_[kPercpuSlots];
  alignas(64) Atomic<Hooks, std::uint32_t> sync_state_{kIdle};
  Atomic<Hooks, int> writers_{0};
  alignas(64) Atomic<Hooks, std::uint32_t> block_{0};
  Atomic<Hooks, std::uint32_t> writer_wake_{0};
  RawSpinlock<Hooks> wait_lock_;
  Waiter* head_ = nullptr;
  Waiter** tail_ = &head_;
  const bool reader_fence_;
};

}  // namespace rwstress
