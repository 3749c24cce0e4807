/* sysfs.c - reading attributes under $SGDMA_SYSROOT, and error text. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	if (errno || end == buf) {
		errno = EINVAL;
		return -1;
	}
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
