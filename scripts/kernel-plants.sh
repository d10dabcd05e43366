# Bugs the kernel shipped, as perl programs (perl -0pe) that put one back
# into the file's present shape; sourced by scripts/kernel-upstream.sh (which
# requires the plant) and scripts/kernel-corpus.sh (which measures it).

# rwsem.c whose reader paths run with preemption on, as before 2023's
# "locking/rwsem: Disable preemption at all down_read*() and up_read()
# code paths" (3f5245538a19): the three preempt_disable()/enable() pairs
# gone and the read slow path sleeping with schedule(). A reader adds its
# bias to the count before it marks the lock reader-owned, and a real-time
# writer of its CPU that preempts it there spins on the ownerless lock for
# good. 8 diff lines in every series 6.1 .. 7.2.
PLANT_RWSEM_PREEMPTIBLE_READER='s/(__down_read_common\(struct rw_semaphore \*sem, int state\)\n\{\n\tint ret = 0;\n\tlong count;\n\n)\tpreempt_disable\(\);\n(.*?)\tpreempt_enable\(\);\n(\treturn ret;\n\})/$1$2$3/s or die; s/(\tDEBUG_RWSEMS_WARN_ON\(sem->magic != sem, sem\);\n\n)\tpreempt_disable\(\);\n(\ttmp = atomic_long_read\(&sem->count\);\n.*?)\tpreempt_enable\(\);\n/$1$2/s or die; s/(\tDEBUG_RWSEMS_WARN_ON\(!is_rwsem_reader_owned\(sem\), sem\);\n\n)\tpreempt_disable\(\);\n(\trwsem_clear_reader_owned\(sem\);\n.*?)\tpreempt_enable\(\);\n/$1$2/s or die; s/(\t\tschedule)_preempt_disabled(\(\);\n\t\tlockevent_inc\(rwsem_sleep_reader\);)/$1$2/ or die'
