// The memory model of `rwstress explore --memory c11` (docs/explore.md,
// "Memory models"): which stores each thread of a controlled run is
// guaranteed to see, as the release/acquire fragment of C11 gives it.
//
// The model is operational, with views (the promise-free part of the
// "promising" semantics of Kang et al., POPL 2017): each location keeps
// the timestamp of its latest store and the view that store carries; a
// view maps every location to the latest timestamp the holder is sure to
// see. A release store (or RMW) carries its thread's whole view, a relaxed
// one only the view of the thread's last release fence; an acquire load
// takes the view of the store it reads, a relaxed one keeps it for the
// thread's next acquire fence; an RMW's store carries the view of the store
// it replaced too (release sequences); a seq_cst fence joins the thread
// with every earlier seq_cst fence. Loads read the latest store (the real
// memory): the model says what a thread is sure to see, and a checker asks
// it (missed()) whether the data a lock protects is in the view of the
// thread that just took the lock. A missing ACQUIRE or RELEASE on the
// path from one holder to the next shows there, on any machine.
//
// Locations are 8-byte words whose bytes each remember the latest store
// to them: a load reads the bytes it covers (a byte store and a word load
// of the same lock word meet; two neighbours in one word do not). Where
// the model is stronger than the Linux kernel's (on purpose: a seq_cst
// operation is a fence on both sides; a wake-up, a grace period and
// membarrier() join views), it reports less; where it is weaker (address
// and control dependencies order nothing, as in C11) a lock whose only
// order between holders were a dependency would fail falsely: none of the
// kernel's locking files is such a lock (docs/explore.md, "Memory models").
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace rwstress::controlled {

// The orders, numbered as std::memory_order and GCC's __ATOMIC_* are.
enum MemoryOrder : int {
  kRelaxed = 0,
  kConsume = 1,
  kAcquire = 2,
  kRelease = 3,
  kAcqRel = 4,
  kSeqCst = 5,
};

class MemoryModel {
 public:
  explicit MemoryModel(int threads);

  // An access of `size` bytes at `word`, once done.
  void load(int t, const void* word, std::size_t size, int order);
  void store(int t, const void* word, std::size_t size, int order);
  void rmw(int t, const void* word, std::size_t size, int order);
  void fence(int t, int order);
  // Every thread at a seq_cst fence at once (membarrier(), an RCU grace
  // period): afterwards each sees what any of them saw.
  void fence_everyone();
  // A wake-up implies a full barrier between waker and woken (the
  // kernel's try_to_wake_up, a futex wake): the woken gets the waker's view.
  void wake(int waker, int woken);
  // The latest store to the 8-byte word at `word` when thread t is not
  // sure to see it: its writer's index; -1 when t sees it (or nobody
  // stored there).
  int missed(int t, const void* word) const;

 private:
  using View = std::vector<std::uint32_t>;  // location id -> timestamp
  struct Location {
    std::uint32_t latest = 0;  // the timestamp of its latest store (0: the initial value)
    int writer = -1;
    // Per byte: what the latest store to it carries (null: nothing yet).
    std::array<std::shared_ptr<const View>, 8> carried;
  };
  // The part of an access inside one 8-byte word: its location, bytes [lo, hi).
  struct Span {
    std::size_t x;
    unsigned lo, hi;
  };
  static void join(View& into, const View& from);
  // The spans of an access (two where it crosses a word's end).
  std::array<Span, 2> spans(const void* word, std::size_t size, int* n);
  void seq_cst_fence(int t);
  // The load half: the views the covered bytes' stores carry, into `into`.
  void read(int t, const Span& s, View& into);
  // The store half: a new latest store to the span, carrying the thread's
  // view (release) or its last release fence's, joined with `replaced`.
  void write(int t, const Span& s, int order, const View* replaced);

  std::unordered_map<std::uintptr_t, std::size_t> ids_;
  std::vector<Location> locations_;
  std::vector<View> cur_;       // per thread: what it is sure to see
  std::vector<View> acquired_;  // per thread: relaxed loads' views, for its next acquire fence
  std::vector<View> released_;  // per thread: its view at its last release fence
  View seq_cst_;                // the join of every seq_cst fence so far
};

}  // namespace rwstress::controlled
