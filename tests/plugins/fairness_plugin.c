/* Plugins' fairness declarations (plugin ABI 2) and an ABI 1 table, for
 * test_plugins:
 *
 *   abi1-mutex     a test-and-set mutex whose table is laid out as ABI 1
 *                  wrote it (it ends after `downgrade`), placed at the very
 *                  end of a page with an inaccessible page after it: an
 *                  rwstress that reads ABI 2's fields from it crashes. It
 *                  loads, and is judged unfair.
 *   pref-claims-handoff
 *                  a reader-preference rwlock (readers never wait for a
 *                  waiting writer) that declares hand-off: with readers
 *                  that overlap, a writer waits as long as they keep
 *                  coming, which the hand-off promise forbids (STARVED).
 *   ticket-handoff a ticket mutex (FIFO) declared hand-off and spinning:
 *                  every wait is bounded, so it keeps the promise (PASS). */
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rwstress/plugin.h>

static void relax(unsigned *spins) {
  if (++*spins % 64 == 0)
    sched_yield();
  else
    __builtin_ia32_pause();
}

/* ---- abi1-mutex ----------------------------------------------------------- */

/* struct rwstress_lock_ops as ABI 1 defined it. */
struct lock_ops_v1 {
  unsigned abi;
  const char *name;
  enum rwstress_family family;
  size_t size;
  int (*init)(void *lock, long count);
  void (*destroy)(void *lock);
  void (*lock)(void *lock);
  void (*unlock)(void *lock);
  void (*lock_shared)(void *lock);
  void (*unlock_shared)(void *lock);
  int (*try_lock)(void *lock);
  int (*try_lock_shared)(void *lock);
  void (*downgrade)(void *lock);
};

static int tas_init(void *l, long count) {
  (void)count;
  atomic_init((_Atomic int *)l, 0);
  return 0;
}

static void tas_lock(void *l) {
  unsigned spins = 0;
  while (atomic_exchange_explicit((_Atomic int *)l, 1, memory_order_acquire))
    relax(&spins);
}

static void tas_unlock(void *l) { atomic_store_explicit((_Atomic int *)l, 0, memory_order_release); }

static const struct rwstress_lock_ops *abi1_table(void) {
  static const struct rwstress_lock_ops *placed;
  if (placed) return placed;
  const long page = sysconf(_SC_PAGESIZE);
  char *two = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  if (two == MAP_FAILED) return NULL;
  const struct lock_ops_v1 v1 = {.abi = 1, .name = "abi1-mutex", .family = RWSTRESS_FAMILY_MUTEX,
                                 .size = sizeof(_Atomic int), .init = tas_init, .lock = tas_lock,
                                 .unlock = tas_unlock};
  char *at = two + page - sizeof v1;
  memcpy(at, &v1, sizeof v1);
  mprotect(two + page, (size_t)page, PROT_NONE);
  placed = (const struct rwstress_lock_ops *)(void *)at;
  return placed;
}

/* ---- pref-claims-handoff ---------------------------------------------------- */

#define WRITER 0x80000000u

static int pref_init(void *l, long count) {
  (void)count;
  atomic_init((_Atomic unsigned *)l, 0);
  return 0;
}

/* A reader is in unless a writer holds the lock: a waiting writer does not
 * stop it. */
static void pref_lock_shared(void *l) {
  _Atomic unsigned *w = l;
  unsigned spins = 0;
  for (;;) {
    if (!(atomic_fetch_add_explicit(w, 1, memory_order_acquire) & WRITER)) return;
    atomic_fetch_sub_explicit(w, 1, memory_order_relaxed);
    while (atomic_load_explicit(w, memory_order_relaxed) & WRITER) relax(&spins);
  }
}

static void pref_unlock_shared(void *l) {
  atomic_fetch_sub_explicit((_Atomic unsigned *)l, 1, memory_order_release);
}

/* A writer takes the lock only when nobody holds it, and naps between
 * tries (asleep, not queued for a CPU: the wait is the lock's). */
static void pref_lock(void *l) {
  _Atomic unsigned *w = l;
  for (;;) {
    unsigned expected = 0;
    if (atomic_compare_exchange_weak_explicit(w, &expected, WRITER, memory_order_acquire,
                                              memory_order_relaxed))
      return;
    usleep(20);
  }
}

static void pref_unlock(void *l) {
  atomic_fetch_and_explicit((_Atomic unsigned *)l, ~WRITER, memory_order_release);
}

static const struct rwstress_lock_ops pref_claims_handoff = {
    .abi = RWSTRESS_PLUGIN_ABI,
    .name = "pref-claims-handoff",
    .family = RWSTRESS_FAMILY_RWLOCK,
    .size = sizeof(_Atomic unsigned),
    .init = pref_init,
    .lock = pref_lock,
    .unlock = pref_unlock,
    .lock_shared = pref_lock_shared,
    .unlock_shared = pref_unlock_shared,
    .fairness = RWSTRESS_FAIRNESS_HANDOFF,
};

/* ---- ticket-handoff --------------------------------------------------------- */

struct ticket {
  _Atomic unsigned next, serving;
};

static int ticket_init(void *l, long count) {
  (void)count;
  struct ticket *t = l;
  atomic_init(&t->next, 0);
  atomic_init(&t->serving, 0);
  return 0;
}

static void ticket_lock(void *l) {
  struct ticket *t = l;
  const unsigned mine = atomic_fetch_add_explicit(&t->next, 1, memory_order_relaxed);
  unsigned spins = 0;
  while (atomic_load_explicit(&t->serving, memory_order_acquire) != mine) relax(&spins);
}

static void ticket_unlock(void *l) {
  struct ticket *t = l;
  atomic_store_explicit(&t->serving, atomic_load_explicit(&t->serving, memory_order_relaxed) + 1,
                        memory_order_release);
}

static const struct rwstress_lock_ops ticket_handoff = {
    .abi = RWSTRESS_PLUGIN_ABI,
    .name = "ticket-handoff",
    .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct ticket),
    .init = ticket_init,
    .lock = ticket_lock,
    .unlock = ticket_unlock,
    .fairness = RWSTRESS_FAIRNESS_HANDOFF,
    .flags = RWSTRESS_LOCK_SPINS,
};

const struct rwstress_lock_ops *const *rwstress_plugin_v1(void) {
  static const struct rwstress_lock_ops *list[4];
  list[0] = abi1_table();
  list[1] = &pref_claims_handoff;
  list[2] = &ticket_handoff;
  list[3] = NULL;
  return list;
}
