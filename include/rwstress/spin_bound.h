/* A busy-wait's bound, stated by the lock that spins, and judged by
 * rwstress (docs/checkers.md, "spin-bound"). Plain C; usable from C++.
 *
 * A spin that is meant to end (on a deadline of the run's clock, or after
 * so many turns while what it waits on stays the same) and does not end
 * blocks nobody in a test: the owner leaves sooner or later and the
 * spinner gets in. So the lock keeps one of these per spin (a local of the
 * function that spins), states its bound each time it looks and finds the
 * state it waits on as before (the same deadline, or the same `on`: the
 * bound goes on), a new one when that state changes, and clears it when it
 * spins on something the bound does not cover. rwstress judges every turn
 * taken through rwstress_explore_spin_bounded() (<rwstress/explore.h>, host
 * ABI 6), in timed runs and under explore alike:
 *
 *   struct rwstress_spin_bound bound = RWSTRESS_SPIN_BOUND_INIT;
 *   while (!try_take(l)) {
 *     rwstress_spin_bound_turns(&bound, 100, l, "spinning before it sleeps");
 *     rwstress_explore_spin_bounded(&bound, "spin");
 *   }
 *
 * A deadline has one turn of grace (time passes between the lock's look at
 * its clock and its turn); the second turn past the same deadline is the
 * violation. A number of turns has none: the lock counts them itself. One
 * report per bound stated. The layout is part of host ABI 6. */
#ifndef RWSTRESS_SPIN_BOUND_H
#define RWSTRESS_SPIN_BOUND_H

#ifdef __cplusplus
extern "C" {
#endif

#define RWSTRESS_SPIN_BOUND_NONE 0
#define RWSTRESS_SPIN_BOUND_DEADLINE 1 /* no turn past deadline_ns */
#define RWSTRESS_SPIN_BOUND_TURNS 2    /* at most `turns` turns while `on` stays */

struct rwstress_spin_bound {
    int kind;     /* RWSTRESS_SPIN_BOUND_* */
    int overdue;  /* a turn past the deadline was taken: the next one breaks it */
    int reported; /* broken and said: quiet until a new bound is stated */
    unsigned long long deadline_ns; /* on the run's clock (rwstress_explore_now_ns) */
    const void *on;                 /* what a number of turns waits on */
    long long turns;                /* the number stated */
    long long left;                 /* turns left of it */
    const char *what;               /* the spin's name, for the report */
};

#define RWSTRESS_SPIN_BOUND_INIT {RWSTRESS_SPIN_BOUND_NONE, 0, 0, 0, 0, 0, 0, ""}

/* No turn past `deadline_ns` (the run's clock) while the state it waits
 * on lasts; `what` names the spin ("spinning on a reader-owned rwsem"). */
static inline void rwstress_spin_bound_until(struct rwstress_spin_bound *b,
                                             unsigned long long deadline_ns, const char *what) {
    if (b->kind == RWSTRESS_SPIN_BOUND_DEADLINE && b->deadline_ns == deadline_ns) return;
    b->kind = RWSTRESS_SPIN_BOUND_DEADLINE;
    b->deadline_ns = deadline_ns;
    b->overdue = 0;
    b->reported = 0;
    b->what = what;
}

/* At most `n` turns while it waits on `on` (an owner, say): stated again
 * with the same `on`, the count goes on. */
static inline void rwstress_spin_bound_turns(struct rwstress_spin_bound *b, long long n,
                                             const void *on, const char *what) {
    if (b->kind == RWSTRESS_SPIN_BOUND_TURNS && b->on == on) return;
    b->kind = RWSTRESS_SPIN_BOUND_TURNS;
    b->on = on;
    b->turns = n;
    b->left = n;
    b->reported = 0;
    b->what = what;
}

/* The spin goes on on something no bound covers. */
static inline void rwstress_spin_bound_clear(struct rwstress_spin_bound *b) {
    b->kind = RWSTRESS_SPIN_BOUND_NONE;
}

#ifdef __cplusplus
}
#endif

#endif /* RWSTRESS_SPIN_BOUND_H */
