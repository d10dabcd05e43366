/* Plain C locks that mark their own scheduling points (<rwstress/explore.h>),
 * so that `rwstress explore` can run them one step at a time
 * (docs/explore.md, "Plugins"):
 *
 *   explore-ticket  a ticket spin lock (mutex family);
 *   explore-futex   Drepper's three-state futex mutex ("Futexes Are
 *                   Tricky", mutex 2): 0 free, 1 locked, 2 locked with
 *                   waiters; unlock wakes one sleeper when it was 2.
 *   explore-adaptive the same mutex with a bounded spin before it sleeps
 *                   (ADAPTIVE_SPINS failed tries), a bound it states
 *                   (<rwstress/spin_bound.h>) and rwstress judges.
 *
 * Every access another thread can see goes through RWSTRESS_ACCESS, every
 * busy-wait turn through rwstress_explore_spin() and every sleep through
 * rwstress_explore_futex_wait(), and each lock declares
 * RWSTRESS_LOCK_CONTROLLED. In an ordinary run the same code runs with a
 * thread-local test per access and the futex system call.
 *
 * Built with -DRWSTRESS_EXAMPLE_BROKEN the locks are the -broken twins:
 * the ticket lock takes its ticket with a load and a store instead of one
 * fetch-and-add (two threads may draw the same ticket: both inside), and
 * the futex mutex's contended path marks the word 1 instead of 2 before it
 * sleeps (an unlock then sees 1 and wakes nobody: the sleeper sleeps for
 * good once the last holder has left). Both are bugs one preemption at the
 * wrong step shows. The adaptive mutex's twin never stops spinning: it
 * stays safe and live (the holder leaves, the spinner gets in), and only
 * its stated bound shows it (spin-bound).
 *
 *   cc -shared -fPIC -O2 $(pkg-config --cflags rwstress) explore_locks.c -o xl.so
 *   rwstress --plugin ./xl.so explore --lock explore-futex --threads 3 */
#include <rwstress/explore.h>
#include <rwstress/plugin.h>

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define EXAMPLE_NAME(n) n "-broken"
#else
#define EXAMPLE_NAME(n) n
#endif

/* A load, a store and an atomic read-modify-write, each a scheduling point
 * that tells explore's memory model (--memory c11) its order. */
#define LOAD(p) \
  RWSTRESS_ACCESS_ORDERED(p, "load", RWSTRESS_MODEL_LOAD, 2, __atomic_load_n(p, __ATOMIC_ACQUIRE))
#define STORE(p, v)                                                     \
  RWSTRESS_ACCESS_ORDERED_VOID(p, "store", RWSTRESS_MODEL_STORE, 3, \
                               __atomic_store_n(p, v, __ATOMIC_RELEASE))
#define FETCH_ADD(p, v)                                                  \
  RWSTRESS_ACCESS_ORDERED(p, "fetch_add", RWSTRESS_MODEL_RMW, 4,        \
                          __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL))
#define XCHG(p, v) \
  RWSTRESS_ACCESS_ORDERED(p, "xchg", RWSTRESS_MODEL_RMW, 4, __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL))
#define CMPXCHG(p, old, new)                                                              \
  RWSTRESS_ACCESS_ORDERED(p, "cmpxchg", RWSTRESS_MODEL_RMW, 4, ({                        \
    unsigned expected_ = (old);                                                          \
    __atomic_compare_exchange_n(p, &expected_, new, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE); \
    expected_;                                                                           \
  }))

/* ---- explore-ticket ----------------------------------------------------- */

struct ticket {
  unsigned next;
  unsigned owner;
};

static int ticket_init(void *l, long count) {
  (void)l, (void)count;
  return 0;
}

static void ticket_lock(void *l) {
  struct ticket *t = l;
#ifdef RWSTRESS_EXAMPLE_BROKEN
  const unsigned mine = LOAD(&t->next);
  STORE(&t->next, mine + 1);
#else
  const unsigned mine = FETCH_ADD(&t->next, 1);
#endif
  while (LOAD(&t->owner) != mine) rwstress_explore_spin("ticket: waiting for my turn");
}

static void ticket_unlock(void *l) {
  struct ticket *t = l;
  STORE(&t->owner, LOAD(&t->owner) + 1);
}

static const struct rwstress_lock_ops ticket_ops = {
    .abi = RWSTRESS_PLUGIN_ABI,
    .name = EXAMPLE_NAME("explore-ticket"),
    .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct ticket),
    .init = ticket_init,
    .lock = ticket_lock,
    .unlock = ticket_unlock,
    .fairness = RWSTRESS_FAIRNESS_TASK_FAIR,
    .flags = RWSTRESS_LOCK_SPINS | RWSTRESS_LOCK_CONTROLLED,
};

/* ---- explore-futex ------------------------------------------------------ */

struct futex_mutex {
  unsigned word;  /* 0 free, 1 locked, 2 locked and maybe waiters */
};

static int futex_init(void *l, long count) {
  (void)l, (void)count;
  return 0;
}

static void futex_lock(void *l) {
  struct futex_mutex *m = l;
  unsigned c = CMPXCHG(&m->word, 0, 1);
  if (c == 0) return;
#ifdef RWSTRESS_EXAMPLE_BROKEN
  if (c != 2) c = XCHG(&m->word, 1); /* should be 2: the unlock must know to wake */
  while (c != 0) {
    rwstress_explore_futex_wait(&m->word, 1, 0, "futex: asleep");
    c = XCHG(&m->word, 1);
  }
#else
  if (c != 2) c = XCHG(&m->word, 2);
  while (c != 0) {
    rwstress_explore_futex_wait(&m->word, 2, 0, "futex: asleep");
    c = XCHG(&m->word, 2);
  }
#endif
}

static int futex_trylock(void *l) {
  struct futex_mutex *m = l;
  return CMPXCHG(&m->word, 0, 1) == 0;
}

static void futex_unlock(void *l) {
  struct futex_mutex *m = l;
  if (XCHG(&m->word, 0) == 2) rwstress_explore_futex_wake(&m->word, 1);
}

static const struct rwstress_lock_ops futex_ops = {
    .abi = RWSTRESS_PLUGIN_ABI,
    .name = EXAMPLE_NAME("explore-futex"),
    .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct futex_mutex),
    .init = futex_init,
    .lock = futex_lock,
    .unlock = futex_unlock,
    .try_lock = futex_trylock,
    .flags = RWSTRESS_LOCK_CONTROLLED,
};

/* ---- explore-adaptive --------------------------------------------------- */

#define ADAPTIVE_SPINS 2

/* A futex_mutex that tries ADAPTIVE_SPINS times more, one busy-wait turn
 * apart, before it takes the sleeping path. */
static void adaptive_lock(void *l) {
  struct futex_mutex *m = l;
  struct rwstress_spin_bound bound = RWSTRESS_SPIN_BOUND_INIT;
  int tries = 0;
  while (CMPXCHG(&m->word, 0, 1) != 0) {
#ifndef RWSTRESS_EXAMPLE_BROKEN
    if (++tries > ADAPTIVE_SPINS) {
      futex_lock(l); /* the sleeping path */
      return;
    }
#else
    (void)tries;
#endif
    rwstress_spin_bound_turns(&bound, ADAPTIVE_SPINS, m, "adaptive: spinning before it sleeps");
    rwstress_explore_spin_bounded(&bound, "adaptive: spin");
  }
}

static const struct rwstress_lock_ops adaptive_ops = {
    .abi = RWSTRESS_PLUGIN_ABI,
    .name = EXAMPLE_NAME("explore-adaptive"),
    .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct futex_mutex),
    .init = futex_init,
    .lock = adaptive_lock,
    .unlock = futex_unlock,
    .try_lock = futex_trylock,
    .flags = RWSTRESS_LOCK_CONTROLLED,
};

const struct rwstress_lock_ops *const *rwstress_plugin_v1(void) {
  static const struct rwstress_lock_ops *const list[] = {&ticket_ops, &futex_ops, &adaptive_ops,
                                                         NULL};
  return list;
}
