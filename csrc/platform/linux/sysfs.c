/* sysfs.c - reading attributes under $SGDMA_SYSROOT, and error text. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sgdma/platform_linux.h"
#include "sysfs.h"

void sg_linux_path(char *out, size_t n, const char *path)
{
	const char *root = getenv("SGDMA_SYSROOT");

	snprintf(out, n, "%s%s", root ? root : "", path);
}

int sg_sysfs_read(const char *path, char *buf, size_t n)
{
	char full[SG_LINUX_PATH_LEN];
	ssize_t got;
	int fd;

	sg_linux_path(full, sizeof(full), path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = read(fd, buf, n - 1);
	close(fd);
	if (got < 0)
		return -1;
	buf[got] = 0;
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		buf[--got] = 0;
	return 0;
}

int sg_sysfs_u64(const char *path, uint64_t *out)
{
	char buf[64], *end;

	if (sg_sysfs_read(path, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	*out = strtoull(buf, &end, 0);
	/* strtoull takes "-1" as 2^64-1 and stops at junk: both are damage, not numbers */
	if (errno || end == buf || *end || strchr(buf, '-')) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int sg_sysfs_u64_err(const char *path, uint64_t *out, char *err, size_t n)
{
	char full[SG_LINUX_PATH_LEN], buf[64];

	if (sg_sysfs_u64(path, out) == 0)
		return 0;
	sg_linux_path(full, sizeof(full), path);
	if (errno != EINVAL)
		return sg_fail(err, n, "cannot read %s: %s", full, strerror(errno));
	if (sg_sysfs_read(path, buf, sizeof(buf)) < 0)
		buf[0] = 0;
	return sg_fail(err, n, "%s holds \"%s\", not an unsigned number (decimal or 0x hex): the driver's sysfs "
		       "attribute is damaged or not the expected one", full, buf);
}

int sg_map_check(int fd, const char *path, uint64_t off, uint64_t len, char *err, size_t n)
{
	struct stat st;
	uint64_t end;

	if (len == 0)
		return sg_fail(err, n, "%s: nothing to map (size 0); check the device's size attribute", path);
	if (__builtin_add_overflow(off, len, &end) || len > (uint64_t)SIZE_MAX || end > (uint64_t)INT64_MAX)
		return sg_fail(err, n, "%s: 0x%llx + %llu bytes is not a representable mapping", path,
			       (unsigned long long)off, (unsigned long long)len);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size < end)
		return sg_fail(err, n, "%s is %lld bytes, shorter than the %llu bytes at offset 0x%llx to map: the "
			       "device (or file) does not hold the range its size attribute promises", path,
			       (long long)st.st_size, (unsigned long long)len, (unsigned long long)off);
	return 0;
}

int sg_fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (err && n) {
		va_start(ap, fmt);
		vsnprintf(err, n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *sg_open_fix(int errnum, bool uio)
{
	switch (errnum) {
	case EACCES:
	case EPERM:
		return uio ? "run as root, or add a udev rule such as "
			     "SUBSYSTEM==\"uio\", MODE=\"0660\", GROUP=\"dialout\" and join that group"
			   : "run as root, or add a udev rule such as "
			     "SUBSYSTEM==\"u-dma-buf\", MODE=\"0660\", GROUP=\"dialout\" and join that group";
	case ENOENT:
		return "the device node is missing: is udev running (or mknod it from /sys/class/.../dev)?";
	case EBUSY:
		return "another driver or process holds it";
	default:
		return "check the device node";
	}
}
