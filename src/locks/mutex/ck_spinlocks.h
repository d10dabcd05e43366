// Concurrency Kit's spinlocks (libck 0.7), adapted to lock / unlock /
// trylock: ticket, FAS (fetch-and-store), CAS, Anderson's array lock, MCS
// and CLH, all inline from ck's own headers.
// ck's spinners never yield: on an oversubscribed machine a FIFO ck lock
// waits out a scheduler time slice at every hand-over to a preempted
// waiter. That is the library as shipped, and what the table shows.
#pragma once

#include <ck_pr.h>
#include <spinlock/anderson.h>
#include <spinlock/cas.h>
#include <spinlock/fas.h>
#include <spinlock/ticket.h>

#include "locks/mutex/queue_node.h"

namespace rwstress::ck_detail {
// ck's MCS and CLH headers assign ck_pr_fas_ptr()'s void* to a node
// pointer, which C allows and C++ does not. That one call, seen through
// this macro while the two headers are read, returns a value that converts
// to the node pointer; the code is otherwise ck's, inline, as a C program
// that includes it gets it. (Through a C file instead, each lock and unlock
// was a call: ck-clh ran at 0.57 of ck's own benchmark, docs/PERFORMANCE.md.)
struct AnyPtr {
  void* p;
  template <class T>
  operator T*() const noexcept { return static_cast<T*>(p); }
};
}  // namespace rwstress::ck_detail
#define ck_pr_fas_ptr(target, value) (::rwstress::ck_detail::AnyPtr{ck_pr_fas_ptr((target), (value))})
#include <spinlock/clh.h>
#include <spinlock/mcs.h>
#undef ck_pr_fas_ptr

namespace rwstress {

class CkTicket {
 public:
  static constexpr bool kSpins = true;
  CkTicket() { ck_spinlock_ticket_init(&l_); }
  void lock() { ck_spinlock_ticket_lock(&l_); }
  bool trylock() { return ck_spinlock_ticket_trylock(&l_); }
  void unlock() { ck_spinlock_ticket_unlock(&l_); }

 private:
  ck_spinlock_ticket_t l_;
};

// ck's fetch-and-store and compare-and-swap locks, with the plain lock
// path or the exponential-backoff one (kBackoff: a waiter that loses the
// race backs off for a doubling number of pause loops before it tries
// again). ck's own throughput benchmark times the backoff ones
// (regressions/ck_spinlock/ck_fas.h and ck_cas.h use the _eb lock), so those
// are the locks to set beside it (bench/anchors/compare.sh).
template <bool kBackoff>
class BasicCkFas {
 public:
  static constexpr bool kSpins = true;
  BasicCkFas() { ck_spinlock_fas_init(&l_); }
  void lock() {
    if constexpr (kBackoff)
      ck_spinlock_fas_lock_eb(&l_);
    else
      ck_spinlock_fas_lock(&l_);
  }
  bool trylock() { return ck_spinlock_fas_trylock(&l_); }
  void unlock() { ck_spinlock_fas_unlock(&l_); }

 private:
  ck_spinlock_fas_t l_;
};
using CkFas = BasicCkFas<false>;
using CkFasEb = BasicCkFas<true>;

template <bool kBackoff>
class BasicCkCas {
 public:
  static constexpr bool kSpins = true;
  BasicCkCas() { ck_spinlock_cas_init(&l_); }
  void lock() {
    if constexpr (kBackoff)
      ck_spinlock_cas_lock_eb(&l_);
    else
      ck_spinlock_cas_lock(&l_);
  }
  bool trylock() { return ck_spinlock_cas_trylock(&l_); }
  void unlock() { ck_spinlock_cas_unlock(&l_); }

 private:
  ck_spinlock_cas_t l_;
};
using CkCas = BasicCkCas<false>;
using CkCasEb = BasicCkCas<true>;

// One array slot per thread that may wait at once: sized for rwstress's
// thread limit, a power of two.
class CkAnderson {
 public:
  static constexpr bool kSpins = true;
  static constexpr unsigned kSlots = 8192;
  CkAnderson() : slots_(new ck_spinlock_anderson_thread_t[kSlots]) {
    ck_spinlock_anderson_init(&l_, slots_, kSlots);
  }
  ~CkAnderson() { delete[] slots_; }
  CkAnderson(const CkAnderson&) = delete;
  CkAnderson& operator=(const CkAnderson&) = delete;

  void lock() {
    ck_spinlock_anderson_thread_t* slot;
    ck_spinlock_anderson_lock(&l_, &slot);
    holder_slot_ = slot;
  }
  void unlock() { ck_spinlock_anderson_unlock(&l_, holder_slot_); }

 private:
  ck_spinlock_anderson_t l_;
  ck_spinlock_anderson_thread_t* slots_;
  ck_spinlock_anderson_thread_t* holder_slot_ = nullptr;  // the holder's
};

// A node on a line of its own: its waiter spins on it.
struct alignas(64) CkMcsNode {
  struct ck_spinlock_mcs node;
};

class CkMcs {
 public:
  static constexpr bool kSpins = true;
  CkMcs() { ck_spinlock_mcs_init(&queue_); }
  void lock() {
    CkMcsNode* n = ThreadNodes<CkMcsNode>::take();
    ck_spinlock_mcs_lock(&queue_, &n->node);
    holder_ = n;
  }
  bool trylock() {
    CkMcsNode* n = ThreadNodes<CkMcsNode>::take();
    if (!ck_spinlock_mcs_trylock(&queue_, &n->node)) {
      ThreadNodes<CkMcsNode>::give_back(n);
      return false;
    }
    holder_ = n;
    return true;
  }
  void unlock() {
    CkMcsNode* n = holder_;
    ck_spinlock_mcs_unlock(&queue_, &n->node);
    ThreadNodes<CkMcsNode>::give_back(n);
  }

 private:
  ck_spinlock_mcs_t queue_ = nullptr;  // the tail of the queue (a node pointer)
  CkMcsNode* holder_ = nullptr;
};

// ck's CLH: a thread's node migrates to its successor on unlock, and the
// thread continues with its predecessor's node (see clh.h in this tree).
struct alignas(64) CkClhNode {
  ck_spinlock_clh_t node;
};

class CkClh {
 public:
  static constexpr bool kSpins = true;
  CkClh() : unowned_(new CkClhNode) { ck_spinlock_clh_init(&queue_, &unowned_->node); }
  // The tail node belongs to the lock (the first member: the same address).
  ~CkClh() { delete reinterpret_cast<CkClhNode*>(queue_); }
  CkClh(const CkClh&) = delete;
  CkClh& operator=(const CkClh&) = delete;

  void lock() {
    CkClhNode* n = SpareNode<CkClhNode>::take();
    ck_spinlock_clh_lock(&queue_, &n->node);
    holder_ = &n->node;
  }
  void unlock() {
    ck_spinlock_clh_t* n = holder_;
    ck_spinlock_clh_unlock(&n);  // n is now the predecessor's node, ours to keep
    SpareNode<CkClhNode>::keep(reinterpret_cast<CkClhNode*>(n));
  }

 private:
  ck_spinlock_clh_t* queue_ = nullptr;
  CkClhNode* unowned_;
  ck_spinlock_clh_t* holder_ = nullptr;
};

}  // namespace rwstress
