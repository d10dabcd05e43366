// The memory models of `rwstress explore --memory c11|tso` (docs/explore.md,
// "Memory models"): which stores each thread of a controlled run is sure to
// see, and which older stores a load may still read.
//
// c11 is operational, with views (the promise-free part of the "promising"
// semantics of Kang et al., POPL 2017): each location keeps its recent
// stores with timestamps and the view each store carries; a view maps
// every location to the latest timestamp the holder is sure to see. A
// release store (or RMW) carries its thread's whole view, a relaxed one
// only the view of the thread's last release fence; an acquire load takes
// the view of the store it reads, a relaxed one keeps it for the thread's
// next acquire fence; an RMW's store carries the view of the store it
// replaced too (release sequences); a seq_cst fence joins the thread with
// every earlier seq_cst fence. A relaxed or acquire load may read any
// store of its location not older than its view (older(): the scheduler
// chooses, controlled.cc); RMWs and seq_cst loads read the latest. A
// checker asks missed() whether the data a lock protects is in the view of
// the thread that just took the lock: a missing ACQUIRE or RELEASE on the
// path from one holder to the next shows there, on any machine, and a
// stale value it lets a load read shows as whatever the lock does with it.
//
// tso is x86's: a thread's stores wait in its store buffer, its own loads
// see them first, other threads see them once drained; a locked RMW, a
// seq_cst store (xchg) or fence, a wake-up and a futex call drain the
// buffer. Draining is the scheduler's choice, made where it matters: at a
// load that could read a buffered store of another thread (older() offers
// the value before it; reading the latest drains its writer).
//
// Modification order is the order the run made the stores in, with one
// choice under c11: a relaxed or release store may be placed just before
// the latest store to its word when its thread has not seen that one (it
// is another thread's, not an RMW's, not in the thread's view, nor carried
// by a store the thread read even with a relaxed load: a store depends on
// the loads before it on every processor and in the kernel's model); memory
// then keeps the latest value, and the placed store is an older one that
// loads may still read (place_early(): the scheduler chooses). tso drains
// every thread's stores in the order they were made. Both are subsets of
// what the models allow, so the model never reports what the hardware or
// the language forbids, and finds less than it might. Locations are 8-byte words whose bytes each remember their
// stores: a byte store and a word load of the same lock word meet; two
// neighbours in one word do not hide each other. An access the model did
// not see (a plain C store) makes its location "mixed": its history is no
// longer the truth, and its loads read memory. Where the model is stronger
// than the Linux kernel's (on purpose: a seq_cst operation is a fence on
// both sides; a wake-up, a grace period and membarrier() join views; every
// load orders the stores after it), it reports less; where it is weaker
// (an address dependency does not order a later load, as in C11) a lock
// whose only order between holders were such a dependency would fail
// falsely: none of the kernel's locking files is such a lock
// (docs/explore.md, "Memory models").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace rwstress::controlled {

// The model's locations by their 8-byte word's address: an open-addressing
// table (a multiplicative hash, linear probing), as every plain access of
// the code under test asks it whether the word is followed.
class WordIds {
 public:
  static constexpr std::size_t kNone = SIZE_MAX;
  std::size_t find(std::uintptr_t word) const {
    if (keys_.empty()) return kNone;
    for (std::size_t i = slot(word);; i = (i + 1) & (keys_.size() - 1)) {
      if (keys_[i] == word) return ids_[i];
      if (keys_[i] == 0) return kNone;
    }
  }
  // The word's id, giving it `id` if it had none (then `added`).
  std::size_t emplace(std::uintptr_t word, std::size_t id, bool* added) {
    if (2 * (used_ + 1) > keys_.size()) grow();
    std::size_t i = slot(word);
    for (; keys_[i] != 0; i = (i + 1) & (keys_.size() - 1))
      if (keys_[i] == word) {
        *added = false;
        return ids_[i];
      }
    keys_[i] = word;
    ids_[i] = id;
    ++used_;
    *added = true;
    return id;
  }

 private:
  std::size_t slot(std::uintptr_t word) const {
    return std::size_t(((word >> 3) * 0x9e3779b97f4a7c15ULL) >> shift_);
  }
  void grow() {
    std::vector<std::uintptr_t> keys = std::move(keys_);
    std::vector<std::size_t> ids = std::move(ids_);
    const std::size_t size = keys.empty() ? 64 : 2 * keys.size();
    keys_.assign(size, 0);
    ids_.assign(size, 0);
    shift_ = 64 - unsigned(__builtin_ctzll(size));
    used_ = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != 0) {
        bool added = false;
        emplace(keys[i], ids[i], &added);
      }
  }
  std::vector<std::uintptr_t> keys_;  // 0: free (no word is at address 0)
  std::vector<std::size_t> ids_;
  std::size_t used_ = 0;
  unsigned shift_ = 64;
};

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
  enum class Kind : std::uint8_t { kC11, kTso };
  // The most older values one load is offered.
  static constexpr int kMaxOlder = 7;

  MemoryModel(int threads, Kind kind);

  // An access of `size` bytes at `word`, once done (memory holds the value
  // stored). `found`, where known: the access's first 8 bytes as they were
  // before it (the model checks it against its own history; the first
  // access to a location records it as the location's initial value).
  // `early`: placed before the latest store (only where place_early() said
  // it may be): memory gets that store's value back.
  void store(int t, const void* word, std::size_t size, int order, const std::uint64_t* found,
             bool early = false);
  // Whether a store of t now may be placed just before the latest store to
  // its word (c11; checked against `found` first, as store() does).
  bool place_early(int t, const void* word, std::size_t size, int order,
                   const std::uint64_t* found);
  void rmw(int t, const void* word, std::size_t size, int order, const std::uint64_t* found);
  // A non-atomic read-modify-write of this CPU's own copy (this_cpu_inc):
  // a relaxed RMW to c11; to tso a load and a buffered store, no drain.
  void local_rmw(int t, const void* word, std::size_t size, const std::uint64_t* found);
  // The values other than the one in memory that a load of t may read,
  // nearest first, into values[0 .. kMaxOlder); how many.
  int older(int t, const void* word, std::size_t size, int order, std::uint64_t* values);
  // The load, once done: it read memory (pick 0) or older()'s pick-th value
  // (the last older() call, for this thread and access).
  void load(int t, const void* word, std::size_t size, int order, int pick);
  void fence(int t, int order);
  // Every thread at a seq_cst fence at once (membarrier(), an RCU grace
  // period): afterwards each sees what any of them saw.
  void fence_everyone();
  // A wake-up implies a full barrier between waker and woken (the
  // kernel's try_to_wake_up, a futex wake): the woken gets the waker's view.
  void wake(int waker, int woken);
  // A futex call reads (or wakes on) `word` in memory: under tso the
  // stores to it are drained first, and the caller's own buffer.
  void settle(int t, const void* word, std::size_t size);
  // The latest store to the 8-byte word at `word` when thread t is not
  // sure to see it: its writer's index; -1 when t sees it (or nobody
  // stored there).
  int missed(int t, const void* word) const;
  // Whether an access of `size` bytes at `word` touches a location the
  // model already follows.
  bool follows(const void* word, std::size_t size) const;

 private:
  using View = std::vector<std::uint32_t>;  // location id -> timestamp
  struct Store {
    std::uint32_t ts;    // in its location (0: the initial value)
    std::uint64_t seq;   // in the run (tso's drain order; 0: the initial value)
    int writer;          // -1: the initial value
    bool rmw;            // an RMW's store: nothing may be placed between it and the one it read
    std::uint8_t lo, hi;  // the bytes of the word it wrote
    std::uint64_t bytes;  // their values, at their places in the word
    std::shared_ptr<const View> carried;
  };
  struct Location {
    std::uint32_t latest = 0;  // the timestamp of its latest store (0: the initial value)
    int writer = -1;
    // Per byte: what the latest store to it carries (null: nothing yet).
    std::array<std::shared_ptr<const View>, 8> carried;
    std::vector<Store> history;  // its recent stores, oldest first
    bool mixed = false;          // a store the model did not see: loads read memory
  };
  // The part of an access inside one 8-byte word: its location, bytes [lo, hi).
  struct Span {
    std::size_t x;
    unsigned lo, hi;
  };
  // An older value older() offered: per byte, the store it reads (history index).
  struct Older {
    std::array<std::int16_t, 8> from;
  };
  static void join(View& into, const View& from);
  std::array<Span, 2> spans(const void* word, std::size_t size, int* n);
  void seq_cst_fence(int t);
  // The load half: the views the covered bytes' latest stores carry, into `into`.
  void read(int t, const Span& s, View& into);
  // The store half: a new latest store to the span, carrying the thread's
  // view (release) or its last release fence's, joined with `replaced`.
  void write(int t, const Span& s, const void* at, int order, const View* replaced,
             bool rmw = false);
  // The record of a store of t just made to `s` with timestamp `ts`: the
  // view it carries (joined with `replaced`: an RMW's) and its bytes, read
  // back from memory.
  Store stored(int t, const Span& s, const void* at, int order, std::uint32_t ts,
               const View* replaced, bool rmw);
  // The store place_early() allowed, placed before the latest one: memory
  // gets the latest value back.
  void write_early(int t, const Span& s, const void* at, int order);
  // Checks the history of a single-word access against what memory held
  // (`found`: the access's bytes); a mismatch makes the location mixed. The
  // first access records the initial value.
  void check(const Span& s, std::uint64_t found);
  // The spans a store or RMW writes, after checking a single-word access
  // against `found` (check()) and marking a word-crossing one's locations mixed.
  std::array<Span, 2> written_spans(const void* word, std::size_t size,
                                    const std::uint64_t* found, int* n);
  // Under tso: thread u's buffered stores up to run sequence `seq` go to
  // memory, after every store made before them to the same bytes (memory
  // keeps the order the run made them in).
  void drain(int u, std::uint64_t seq);
  void drain_everyone();
  // Under tso: drains the writers of the latest stores to the span's bytes
  // (a load or RMW of another thread reads them from memory).
  void drain_latest(int t, const Span& s);
  bool visible(int t, const Store& s) const;
  // The history index of the latest store to each byte of the span that
  // `counts` accepts; false where a byte has none.
  template <class Counts>
  bool latest_per_byte(const Location& l, const Span& s, Counts counts,
                       std::array<std::int16_t, 8>* from) const;

  const Kind kind_;
  WordIds ids_;
  std::vector<Location> locations_;
  std::vector<View> cur_;       // per thread: what it is sure to see
  std::vector<View> acquired_;  // per thread: relaxed loads' views, for its next acquire fence
  std::vector<View> released_;  // per thread: its view at its last release fence
  View seq_cst_;                // the join of every seq_cst fence so far
  std::uint64_t seq_ = 0;       // stores made so far
  struct Buffered {
    std::uint64_t seq;
    std::size_t x;
  };
  std::vector<std::vector<Buffered>> buffer_;  // tso: per thread, its stores not yet in memory
  std::vector<std::uint64_t> drained_;         // tso: per thread, its last store in memory
  std::vector<Older> older_;    // the last older() call's offers
};

}  // namespace rwstress::controlled
