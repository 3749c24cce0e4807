/* sysfs.h - small file helpers shared by the Linux platform's files. */
#ifndef SGDMA_LINUX_SYSFS_H
#define SGDMA_LINUX_SYSFS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Read a sysfs attribute (SGDMA_SYSROOT applied) into buf, trailing newline
 * stripped; -1 (errno kept) if it cannot be read. */
int sg_sysfs_read(const char *path, char *buf, size_t n);
/* Parse an attribute as an unsigned number (0x-prefixed hex or decimal); -1
 * with errno ENOENT/EACCES... when it cannot be read, EINVAL when it holds
 * anything else (a sign, trailing text, an empty value, overflow). */
int sg_sysfs_u64(const char *path, uint64_t *out);
/* The same, with the reason in err naming the file. */
int sg_sysfs_u64_err(const char *path, uint64_t *out, char *err, size_t n);
/* Before mapping len bytes of fd (opened from path) at offset off: the range
 * must be non-empty and representable, and a regular file (a fake root, a
 * file given by mistake) must hold it, since mapping past its end gives SIGBUS
 * on first touch.  0, or -1 with the reason in err. */
int sg_map_check(int fd, const char *path, uint64_t off, uint64_t len, char *err, size_t n);
/* snprintf into err; always returns -1. */
int sg_fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The fix for an open() that failed with errno on path (EACCES, ENOENT, ...). */
const char *sg_open_fix(int errnum, bool uio);

#endif
