/* The kernel-compat layer's <asm-generic/mcs_spinlock.h>: the MCS queue node
 * (6.15 moved it here from kernel/locking/mcs_spinlock.h; older files
 * declare it themselves and never include this header). */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_ASM_GENERIC_MCS_SPINLOCK_H
#define RWSTRESS_ASM_GENERIC_MCS_SPINLOCK_H
struct mcs_spinlock {
  struct mcs_spinlock *next;
  int locked; /* 1 if lock acquired */
  int count;  /* nesting count, see qspinlock.c */
};
#endif
