/* The lock names of the glue files: "upstream-NAME" (scripts/kernel-upstream.sh),
 * or PREFIX "-NAME" when built with -DRWSTRESS_KERNEL_NAME_PREFIX='"k6.18"'
 * (rwstress kernel names each lock by its kernel: k6.18-rwsem). */
#ifndef RWSTRESS_KERNEL_GLUE_NAME_H
#define RWSTRESS_KERNEL_GLUE_NAME_H
#ifdef RWSTRESS_KERNEL_NAME_PREFIX
#define GLUE_NAME(name) RWSTRESS_KERNEL_NAME_PREFIX "-" name
#else
#define GLUE_NAME(name) "upstream-" name
#endif
#endif
