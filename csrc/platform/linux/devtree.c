/*
 * devtree.c - labels and reg properties of the live device tree.  Property
 * files hold big-endian 32-bit cells (devicetree specification, sec. 2.2.4);
 * a symbol is a NUL-terminated path string.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "devtree.h"
#include "sgdma/platform_linux.h"
#include "sysfs.h"

/* Raw bytes of a property; its length, or -1. */
static ssize_t prop(const char *node, const char *name, uint8_t *buf, size_t n)
{
	char rel[SG_LINUX_PATH_LEN + 64], full[SG_LINUX_PATH_LEN + 64];
	ssize_t got;
	int fd;

	snprintf(rel, sizeof(rel), SG_DT_BASE "%s/%s", node, name);
	sg_linux_path(full, sizeof(full), rel);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = read(fd, buf, n);
	close(fd);
	return got;
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static unsigned cells(const char *parent, const char *name, unsigned dflt)
{
	uint8_t b[4];

	return prop(parent, name, b, sizeof(b)) == 4 ? be32(b) : dflt;
}

int sg_linux_dt_label(const char *label, char *node, size_t n)
{
	char path[SG_LINUX_PATH_LEN], sym[SG_LINUX_PATH_LEN];

	if (!label[0] || strchr(label, '/'))
		return -1;
	snprintf(path, sizeof(path), SG_DT_BASE "/__symbols__/%s", label);
	if (sg_sysfs_read(path, sym, sizeof(sym)) < 0 || sym[0] != '/')
		return -1;
	snprintf(node, n, "%s", sym);
	return 0;
}

int sg_linux_dt_reg(const char *node, uint64_t *addr, uint64_t *size)
{
	char parent[SG_LINUX_PATH_LEN];
	uint8_t reg[64];
	const char *slash = strrchr(node, '/');
	unsigned ac, sc;
	ssize_t got;

	if (!slash)
		return -1;
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - node), node);
	ac = cells(parent, "#address-cells", 2);
	sc = cells(parent, "#size-cells", 1);
	if (ac < 1 || ac > 2 || sc > 2)
		return -1;
	got = prop(node, "reg", reg, sizeof(reg));
	if (got < (ssize_t)(4 * (ac + sc)))
		return -1;
	*addr = ac == 2 ? (uint64_t)be32(reg) << 32 | be32(reg + 4) : be32(reg);
	*size = sc == 2 ? (uint64_t)be32(reg + 4 * ac) << 32 | be32(reg + 4 * ac + 4) : sc ? be32(reg + 4 * ac) : 0;
	return 0;
}
