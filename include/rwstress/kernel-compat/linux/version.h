/* The kernel-compat layer's <linux/version.h>: the version of the kernel
 * whose files are being built, for the few places where the layer must
 * match a file's own definitions (a struct one kernel declares in a header
 * and a later one in the .c file). `rwstress kernel` and
 * scripts/kernel-upstream.sh pass it from the tree's Makefile as
 * -DRWSTRESS_LINUX_VERSION_CODE=KERNEL_VERSION-style number; without it the
 * layer assumes a current kernel. */
#ifndef RWSTRESS_LINUX_VERSION_H
#define RWSTRESS_LINUX_VERSION_H
#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#ifdef RWSTRESS_LINUX_VERSION_CODE
#define LINUX_VERSION_CODE RWSTRESS_LINUX_VERSION_CODE
#else
#define LINUX_VERSION_CODE KERNEL_VERSION(7, 2, 0)
#endif
#define LINUX_VERSION_MAJOR (LINUX_VERSION_CODE >> 16)
#define LINUX_VERSION_PATCHLEVEL ((LINUX_VERSION_CODE >> 8) & 0xff)
#define LINUX_VERSION_SUBLEVEL (LINUX_VERSION_CODE & 0xff)
#endif
