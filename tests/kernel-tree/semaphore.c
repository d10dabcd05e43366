// A counting semaphore on a raw spinlock: enough of kernel/locking/
// semaphore.c's entry points for test_cli's fake kernel tree, so that
// rwstress kernel builds, caches and explores something in a second
// (down spins until a unit is free; killable and interruptible waits are
// plain downs). Not the kernel's file: the kernel-upstream test builds that.
#include <linux/semaphore.h>
#include <linux/spinlock.h>

int down_trylock(struct semaphore *sem)
{
	unsigned long flags;
	int busy = 1;

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (sem->count > 0) {
		sem->count--;
		busy = 0;
	}
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	return busy;
}

void down(struct semaphore *sem)
{
	while (down_trylock(sem))
		cpu_relax();
}

int down_killable(struct semaphore *sem)
{
	down(sem);
	return 0;
}

int down_interruptible(struct semaphore *sem)
{
	down(sem);
	return 0;
}

int down_timeout(struct semaphore *sem, long timeout)
{
	down(sem);
	return 0;
}

void up(struct semaphore *sem)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&sem->lock, flags);
	sem->count++;
	raw_spin_unlock_irqrestore(&sem->lock, flags);
}
