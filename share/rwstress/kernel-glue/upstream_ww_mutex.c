/* Glue for the wound/wait entry points of the upstream kernel/locking/mutex.c
 * (ww_mutex_lock, ww_mutex_lock_interruptible, ww_mutex_unlock and the
 * wound and die paths of kernel/locking/ww_mutex.h), compiled unchanged
 * against the kernel-compat layer (scripts/kernel-upstream.sh, rwstress
 * kernel --files ww-mutex).
 *
 * One lock of upstream-ww-mutex (kX.Y-ww-mutex) is four ww_mutexes taken
 * together in one acquire context, in an order each acquisition draws
 * anew, as a driver takes the buffers of a command: a context told
 * -EDEADLK drops what it holds, waits for the contended lock with
 * ww_mutex_lock_slow() and takes the rest, as the kernel's documentation
 * prescribes. Held together the four exclude, so rwstress's exclusion
 * check sees a wound or die path that lets two contexts in as two holders,
 * and a cycle the algorithm failed to break is a HANG. upstream-ww-mutex
 * is the wound-wait class (DEFINE_WW_CLASS: an older context wounds a
 * younger holder), upstream-wd-mutex the wait-die class (DEFINE_WD_CLASS:
 * a younger waiter dies). One acquisition in --killable-every takes
 * ww_mutex_lock_interruptible throughout; after -EINTR the context drops
 * everything, the task goes away as a killed one would, and starts again.
 *
 * Declared unfair: a context may back off any number of times. */
#include <linux/ww_mutex.h>

#include "glue.h"

#define GLUE_WW_LOCKS 4

struct glue_ww {
	struct ww_mutex m[GLUE_WW_LOCKS];
};

static DEFINE_WW_CLASS(glue_ww_class);
static DEFINE_WD_CLASS(glue_wd_class);

/* A thread holds one object at a time: its context lives from lock to
 * unlock here. */
static __thread struct ww_acquire_ctx glue_ww_ctx;
static __thread unsigned long long glue_ww_rng;

static void glue_ww_init_class(struct glue_ww *g, struct ww_class *class)
{
	int i;

	for (i = 0; i < GLUE_WW_LOCKS; i++)
		ww_mutex_init(&g->m[i], class);
}

static void glue_ww_init(struct glue_ww *g)
{
	glue_ww_init_class(g, &glue_ww_class);
}

static void glue_wd_init(struct glue_ww *g)
{
	glue_ww_init_class(g, &glue_wd_class);
}

/* A fresh order of the four (Fisher-Yates on a per-thread xorshift). */
static void glue_ww_order(int order[GLUE_WW_LOCKS])
{
	int i;

	if (!glue_ww_rng) {
		glue_ww_rng = 0x9e3779b97f4a7c15ULL ^ (unsigned long long)(long)current->pid;
#ifdef RWSTRESS_KERNEL_EXPLORE
		/* Under explore a schedule's choices alone decide a run: the
		 * order follows the thread's CPU (its index in the run). */
		if (rwstress_explore_active())
			glue_ww_rng = 0x9e3779b97f4a7c15ULL ^ (unsigned long long)(current->cpu + 1);
#endif
	}
	for (i = 0; i < GLUE_WW_LOCKS; i++)
		order[i] = i;
	for (i = GLUE_WW_LOCKS - 1; i > 0; i--) {
		int j, t;

		glue_ww_rng ^= glue_ww_rng << 13;
		glue_ww_rng ^= glue_ww_rng >> 7;
		glue_ww_rng ^= glue_ww_rng << 17;
		j = (int)(glue_ww_rng % (unsigned long long)(i + 1));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
}

static void glue_ww_drop(struct glue_ww *g, unsigned int held)
{
	int i;

	for (i = 0; i < GLUE_WW_LOCKS; i++)
		if (held & (1u << i))
			ww_mutex_unlock(&g->m[i]);
}

static void glue_ww_lock_class(struct glue_ww *g, struct ww_class *class)
{
	struct ww_acquire_ctx *ctx = &glue_ww_ctx;
	const bool killable = __rwsk_host()->acquire_kind() != 0;
	int order[GLUE_WW_LOCKS];
	unsigned int held;
	int i, ret, at;

	glue_ww_order(order);
again:
	ww_acquire_init(ctx, class);
	held = 0;
	for (;;) {
		ret = 0;
		at = -1;
		for (i = 0; i < GLUE_WW_LOCKS; i++) {
			const int k = order[i];

			if (held & (1u << k))
				continue;
			ret = killable ? ww_mutex_lock_interruptible(&g->m[k], ctx)
				       : ww_mutex_lock(&g->m[k], ctx);
			if (ret) {
				at = k;
				break;
			}
			held |= 1u << k;
		}
		if (!ret)
			break;
		/* Back off (-EDEADLK) or give up (-EINTR): drop all it holds. */
		glue_ww_drop(g, held);
		held = 0;
		if (ret == -EDEADLK) {
			if (killable) {
				ret = ww_mutex_lock_slow_interruptible(&g->m[at], ctx);
			} else {
				ww_mutex_lock_slow(&g->m[at], ctx);
				ret = 0;
			}
			if (!ret) {
				held = 1u << at;
				continue;
			}
		}
		WARN(ret != -EINTR, "ww_mutex_lock returned %d, not 0, -EDEADLK or -EINTR", ret);
		ww_acquire_fini(ctx);
		rwstress_kernel_killed();
		goto again;
	}
	ww_acquire_done(ctx);
}

static void glue_ww_lock(struct glue_ww *g)
{
	glue_ww_lock_class(g, &glue_ww_class);
}

static void glue_wd_lock(struct glue_ww *g)
{
	glue_ww_lock_class(g, &glue_wd_class);
}

static void glue_ww_unlock(struct glue_ww *g)
{
	glue_ww_drop(g, (1u << GLUE_WW_LOCKS) - 1);
	ww_acquire_fini(&glue_ww_ctx);
}

/* Named like the mutex's (rwstress kernel: kX.Y-ww-mutex whatever the
 * configuration; the script builds both at once). */
#if defined(CONFIG_MUTEX_SPIN_ON_OWNER) && !defined(RWSTRESS_KERNEL_NAME_PREFIX)
#define GLUE_WW_SUFFIX "-spin"
#else
#define GLUE_WW_SUFFIX ""
#endif

RWSTRESS_KERNEL_MUTEX_OPS(upstream_ww_mutex, GLUE_NAME("ww-mutex" GLUE_WW_SUFFIX), struct glue_ww,
                          glue_ww_init, glue_ww_lock, glue_ww_unlock, NULL,
                          .flags = RWSTRESS_LOCK_KILLABLE);
RWSTRESS_KERNEL_MUTEX_OPS(upstream_wd_mutex, GLUE_NAME("wd-mutex" GLUE_WW_SUFFIX), struct glue_ww,
                          glue_wd_init, glue_wd_lock, glue_ww_unlock, NULL,
                          .flags = RWSTRESS_LOCK_KILLABLE);
RWSTRESS_KERNEL_PLUGIN(&upstream_ww_mutex, &upstream_wd_mutex)
