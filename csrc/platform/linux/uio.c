/*
 * uio.c - register windows and interrupts from UIO devices, /dev/mem as the
 * fallback for registers.
 *
 * Facts used (Linux Documentation/driver-api/uio-howto.rst):
 *  - /sys/class/uio/uioN/name is the device name (the device-tree node name
 *    for uio_pdrv_genirq); maps/mapK/{addr,size,offset} describe mapping K;
 *  - mapping K is selected by mmap offset K * page size; the region starts
 *    `offset` bytes into the returned pages;
 *  - read() of 4 bytes blocks until an interrupt and returns the total count;
 *    write() of a 4-byte 1 re-enables the interrupt (irqcontrol).
 * A fake system root may make /dev/uioN a Unix socket speaking the same
 * 4-byte protocol; open() then fails with ENXIO and we connect instead.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sgdma/platform_linux.h"
#include "devtree.h"
#include "sysfs.h"

#define UIO_CLASS "/sys/class/uio"

static int uio_index(const char *entry)
{
	char *end;
	long v;

	if (strncmp(entry, "uio", 3) != 0)
		return -1;
	v = strtol(entry + 3, &end, 10);
	return (*end || end == entry + 3 || v < 0) ? -1 : (int)v;
}

/* sysfs facts of /sys/class/uio/uioN: 0, -1 when it has no map 0, -2 when map 0's
 * attributes are there but damaged (the reason in err, naming the file). */
static int uio_read(int index, struct sg_linux_uio *u, char *err, size_t n)
{
	char path[SG_LINUX_PATH_LEN];
	long page = sysconf(_SC_PAGESIZE);

	memset(u, 0, sizeof(*u));
	u->index = index;
	u->fd = -1;
	snprintf(path, sizeof(path), UIO_CLASS "/uio%d/name", index);
	if (sg_sysfs_read(path, u->name, sizeof(u->name)) < 0)
		return -1;
	snprintf(path, sizeof(path), UIO_CLASS "/uio%d/maps/map0/addr", index);
	if (sg_sysfs_u64(path, &u->addr) < 0)
		return errno == ENOENT ? -1 : (sg_sysfs_u64_err(path, &u->addr, err, n), -2);
	snprintf(path, sizeof(path), UIO_CLASS "/uio%d/maps/map0/size", index);
	if (sg_sysfs_u64_err(path, &u->size, err, n) < 0)
		return -2;
	snprintf(path, sizeof(path), UIO_CLASS "/uio%d/maps/map0/offset", index);
	if (sg_sysfs_u64(path, &u->offset) < 0) {
		if (errno != ENOENT)          /* kernels before 2.6.x had no offset attribute: 0 */
			return sg_sysfs_u64_err(path, &u->offset, err, n), -2;
		u->offset = 0;
	}
	/* UIO maps map K at mmap offset K pages; the region starts `offset` bytes into the first page */
	if (page > 0 && u->offset >= (uint64_t)page) {
		char full[SG_LINUX_PATH_LEN];
		sg_linux_path(full, sizeof(full), path);
		return sg_fail(err, n, "%s is 0x%llx: a UIO map's offset lies within its first page (under 0x%lx)",
			       full, (unsigned long long)u->offset, page), -2;
	}
	return 0;
}

int sg_linux_list_uio(void (*fn)(void *arg, const struct sg_linux_uio *u), void *arg)
{
	char path[SG_LINUX_PATH_LEN];
	struct sg_linux_uio u;
	struct dirent *e;
	DIR *d;
	int count = 0;

	sg_linux_path(path, sizeof(path), UIO_CLASS);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		int index = uio_index(e->d_name);
		if (index < 0)
			continue;
		if (uio_read(index, &u, NULL, 0) < 0) {
			/* A UIO device without a map still has a name worth listing. */
			snprintf(path, sizeof(path), UIO_CLASS "/uio%d/name", index);
			if (sg_sysfs_read(path, u.name, sizeof(u.name)) < 0)
				continue;
			u.index = index;
		}
		count++;
		if (fn)
			fn(arg, &u);
	}
	closedir(d);
	return count;
}

struct names { char *buf; size_t n; };

static void add_name(void *arg, const struct sg_linux_uio *u)
{
	struct names *s = arg;
	size_t len = strlen(s->buf);

	snprintf(s->buf + len, s->n - len, "%suio%d \"%s\"", len ? ", " : "", u->index, u->name);
}

/* Search the live device tree for a node named name (or name@unit) or
 * labelled name (__symbols__); path of the node relative to base into out. */
static bool dt_find(const char *dir, const char *name, int depth, char *out, size_t n)
{
	char full[SG_LINUX_PATH_LEN], sub[SG_LINUX_PATH_LEN];
	size_t len = strlen(name);
	struct dirent *e;
	bool found = false;
	DIR *d;
	int w;

	sg_linux_path(full, sizeof(full), dir);
	d = opendir(full);
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_type != DT_DIR)
			continue;
		/* A path cut short would name another node (or none): skip a subtree too deep to name. */
		w = snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (w < 0 || (size_t)w >= sizeof(sub))
			continue;
		if (!strncmp(e->d_name, name, len) && (!e->d_name[len] || e->d_name[len] == '@')) {
			found = (size_t)w < n;
			if (found)
				memcpy(out, sub, (size_t)w + 1);
		} else if (depth > 0) {
			found = dt_find(sub, name, depth - 1, out, n);
		}
	}
	closedir(d);
	return found;
}

#define DT_BASE SG_DT_BASE

/* Why no UIO device has this name, from the device tree; "" if it has no node. */
static void dt_diagnose(const char *name, char *out, size_t n)
{
	char node[SG_LINUX_PATH_LEN], path[SG_LINUX_PATH_LEN + 16], compat[256], sym[256];
	char full[SG_LINUX_PATH_LEN];
	ssize_t got;
	int fd;

	out[0] = 0;
	snprintf(path, sizeof(path), DT_BASE "/__symbols__/%s", name);
	if (sg_sysfs_read(path, sym, sizeof(sym)) == 0 && sym[0] == '/')
		snprintf(node, sizeof(node), DT_BASE "%s", sym);
	else if (!dt_find(DT_BASE, name, 4, node, sizeof(node)))
		return;
	snprintf(path, sizeof(path), "%s/compatible", node);
	sg_linux_path(full, sizeof(full), path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	got = fd < 0 ? -1 : read(fd, compat, sizeof(compat) - 1);
	if (fd >= 0)
		close(fd);
	if (got <= 0) {
		snprintf(out, n, "; device-tree node %s has no compatible property: add compatible = \"generic-uio\"",
			 node + strlen(DT_BASE));
		return;
	}
	compat[got] = 0;
	for (ssize_t i = 0; i + 1 < got; i++)   /* the property is a NUL-separated list */
		if (!compat[i])
			compat[i] = ',';
	if (strstr(compat, "generic-uio"))
		snprintf(out, n, "; device-tree node %s is generic-uio but no UIO device was created: "
			 "boot with uio_pdrv_genirq.of_id=generic-uio (or modprobe uio_pdrv_genirq of_id=generic-uio)",
			 node + strlen(DT_BASE));
	else
		snprintf(out, n, "; device-tree node %s is compatible \"%s\", not generic-uio: "
			 "a kernel driver owns it; set compatible = \"generic-uio\" in an overlay "
			 "(see docs/boards.md) and boot with uio_pdrv_genirq.of_id=generic-uio",
			 node + strlen(DT_BASE), compat);
}

/* UIO devices named `name` (how many, the first) and the one whose map 0
 * starts at `addr` (when want_addr), by one walk of the class directory. */
static void uio_scan(const char *name, bool want_addr, uint64_t addr, int *named, int *first, int *at_addr,
		     char *listed, size_t n)
{
	char path[SG_LINUX_PATH_LEN];
	struct dirent *e;
	DIR *d;

	*named = 0;
	*first = *at_addr = -1;
	listed[0] = 0;
	sg_linux_path(path, sizeof(path), UIO_CLASS);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		int index = uio_index(e->d_name);
		char nm[SG_LINUX_NAME_LEN], p[SG_LINUX_PATH_LEN];
		uint64_t a;

		if (index < 0)
			continue;
		snprintf(p, sizeof(p), UIO_CLASS "/uio%d/name", index);
		if (sg_sysfs_read(p, nm, sizeof(nm)) < 0)
			continue;
		snprintf(p, sizeof(p), UIO_CLASS "/uio%d/maps/map0/addr", index);
		if (!strcmp(nm, name)) {
			size_t len = strlen(listed);
			if (sg_sysfs_u64(p, &a) == 0)
				snprintf(listed + len, n - len, "%suio%d at 0x%llx", len ? ", " : "", index, (unsigned long long)a);
			else
				snprintf(listed + len, n - len, "%suio%d", len ? ", " : "", index);
			if ((*named)++ == 0 || index < *first)
				*first = index;
		}
		if (want_addr && sg_sysfs_u64(p, &a) == 0 && a == addr && (*at_addr < 0 || index < *at_addr))
			*at_addr = index;
	}
	closedir(d);
}

static int uio_take(int index, const char *name, struct sg_linux_uio *u, char *err, size_t n)
{
	int r = uio_read(index, u, err, n);

	if (r == -2)                      /* a map whose sysfs numbers are damaged: err names the file */
		return -1;
	if (r < 0) {                      /* an interrupt-only device has no map */
		memset(u, 0, sizeof(*u));
		u->index = index;
		u->fd = -1;
		char p[SG_LINUX_PATH_LEN];
		snprintf(p, sizeof(p), UIO_CLASS "/uio%d/name", index);
		if (sg_sysfs_read(p, u->name, sizeof(u->name)) < 0)
			snprintf(u->name, sizeof(u->name), "%s", name);
	}
	return 0;
}

/* A UIO device by the name Linux gives it (the device-tree node name, or
 * linux,uio-name), by "uioN", or by a device-tree label (Vivado's instance
 * name, e.g. axi_dma_0) whose node's reg starts where the device's map 0
 * does: uio_pdrv_genirq names the device "dma" after the node dma@40400000,
 * not after the label. */
int sg_linux_uio_find(const char *name, struct sg_linux_uio *u, char *err, size_t n)
{
	char path[SG_LINUX_PATH_LEN], list[1024] = "", why[2048], node[SG_LINUX_PATH_LEN], same[512];
	struct names s = { list, sizeof(list) };
	uint64_t addr = 0, size = 0;
	bool labelled = sg_linux_dt_label(name, node, sizeof(node)) == 0 && sg_linux_dt_reg(node, &addr, &size) == 0;
	int named, first, at_addr, index = uio_index(name);

	if (index >= 0) {
		snprintf(path, sizeof(path), UIO_CLASS "/uio%d/name", index);
		if (sg_sysfs_read(path, why, sizeof(why)) == 0)
			return uio_take(index, name, u, err, n);
	}
	uio_scan(name, labelled, addr, &named, &first, &at_addr, same, sizeof(same));
	if (named == 1)
		return uio_take(first, name, u, err, n);
	if (at_addr >= 0)
		return uio_take(at_addr, name, u, err, n);
	if (named > 1)
		return sg_fail(err, n, "%d UIO devices are named \"%s\" (%s): name the one you mean as uioN, or by its "
			       "device-tree label when the tree has __symbols__", named, name, same);
	sg_linux_path(path, sizeof(path), UIO_CLASS);
	sg_linux_list_uio(add_name, &s);
	if (labelled) {
		dt_diagnose(name, why, sizeof(why));
		return sg_fail(err, n, "no UIO device for \"%s\": the device-tree label names %s at 0x%llx, and no UIO "
			       "device maps that address (found: %s)%s", name, node, (unsigned long long)addr,
			       list[0] ? list : "none", why);
	}
	dt_diagnose(name, why, sizeof(why));
	if (!list[0])
		return sg_fail(err, n, "no UIO device named \"%s\": %s has no UIO devices at all%s%s", name,
			       path, why[0] ? "" : "; give the DMA's device-tree node compatible = \"generic-uio\" "
			       "and boot with uio_pdrv_genirq.of_id=generic-uio (docs/boards.md)", why);
	return sg_fail(err, n, "no UIO device named \"%s\" (found: %s)%s", name, list,
		       why[0] ? why : "; use one of those names (the device-tree node name)");
}

/* open() of a device node, or connect() when a fake root made it a socket. */
static int open_node(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd >= 0 || errno != ENXIO || stat(path, &st) < 0 || !S_ISSOCK(st.st_mode))
		return fd;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int sg_linux_uio_open(struct sg_linux_uio *u, bool map, char *err, size_t n)
{
	char dev[64], path[SG_LINUX_PATH_LEN];
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	snprintf(dev, sizeof(dev), "/dev/uio%d", u->index);
	sg_linux_path(path, sizeof(path), dev);
	u->fd = open_node(path);
	if (u->fd < 0)
		return sg_fail(err, n, "cannot open %s (UIO device \"%s\"): %s; %s", path, u->name,
			       strerror(errno), sg_open_fix(errno, true));
	if (!map)
		return 0;
	if (u->size > (uint64_t)INT64_MAX - u->offset - (uint64_t)page ||
	    sg_map_check(u->fd, path, 0, (u->offset + u->size + (uint64_t)page - 1) & ~(uint64_t)(page - 1), err,
			 n) < 0) {
		if (u->size > (uint64_t)INT64_MAX - u->offset - (uint64_t)page)
			sg_fail(err, n, "UIO device \"%s\": map 0 of %llu bytes at offset 0x%llx is not a representable "
				"mapping; check maps/map0/size", u->name, (unsigned long long)u->size,
				(unsigned long long)u->offset);
		close(u->fd);
		u->fd = -1;
		return -1;
	}
	u->map_len = (size_t)((u->offset + u->size + (uint64_t)page - 1) & ~(uint64_t)(page - 1));
	p = mmap(NULL, u->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, u->fd, 0 * page);
	if (p == MAP_FAILED) {
		int e = errno;
		close(u->fd);
		u->fd = -1;
		return sg_fail(err, n, "cannot mmap map 0 of %s (%llu bytes at 0x%llx): %s; %s", path,
			       (unsigned long long)u->size, (unsigned long long)u->addr, strerror(e),
			       e == EACCES || e == EPERM ? sg_open_fix(e, true)
							 : "check maps/map0/size against the device-tree reg property");
	}
	u->map = p;
	return 0;
}

void sg_linux_uio_close(struct sg_linux_uio *u)
{
	if (u->map)
		munmap((void *)u->map, u->map_len);
	if (u->fd >= 0)
		close(u->fd);
	u->map = NULL;
	u->fd = -1;
}

int sg_linux_devmem_regs(uint64_t addr, uint64_t size, struct sg_linux_uio *u, char *err, size_t n)
{
	char path[SG_LINUX_PATH_LEN];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), base = addr & ~(page - 1);
	void *p;

	memset(u, 0, sizeof(*u));
	snprintf(u->name, sizeof(u->name), "0x%llx", (unsigned long long)addr);
	u->index = -1;
	u->addr = addr;
	u->size = size;
	u->offset = addr - base;
	sg_linux_path(path, sizeof(path), "/dev/mem");
	/* O_SYNC: /dev/mem maps the window uncached, as registers must be. */
	u->fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (u->fd < 0)
		return sg_fail(err, n, "cannot open %s for registers at 0x%llx: %s; %s", path,
			       (unsigned long long)addr, strerror(errno),
			       errno == EACCES || errno == EPERM ? "/dev/mem needs root (CAP_SYS_RAWIO); "
			       "a UIO device (docs/boards.md) does not" : sg_open_fix(errno, true));
	if (size == 0 || size > (uint64_t)INT64_MAX - addr - page ||
	    sg_map_check(u->fd, path, base, (u->offset + size + page - 1) & ~(page - 1), err, n) < 0) {
		if (size == 0 || size > (uint64_t)INT64_MAX - addr - page)
			sg_fail(err, n, "%s: registers at 0x%llx + %llu bytes are not a representable window", path,
				(unsigned long long)addr, (unsigned long long)size);
		close(u->fd);
		u->fd = -1;
		return -1;
	}
	u->map_len = (size_t)((u->offset + size + page - 1) & ~(page - 1));
	p = mmap(NULL, u->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, u->fd, (off_t)base);
	if (p == MAP_FAILED) {
		int e = errno;
		close(u->fd);
		u->fd = -1;
		return sg_fail(err, n, "cannot mmap %s at 0x%llx: %s; a kernel built with "
			       "CONFIG_STRICT_DEVMEM refuses addresses a driver claims", path,
			       (unsigned long long)base, strerror(e));
	}
	u->map = p;
	return 0;
}

/* "0x..." (a physical address) selects /dev/mem; anything else is a UIO name. */
static bool is_address(const char *spec, uint64_t *addr)
{
	char *end;

	if (strncmp(spec, "0x", 2) && strncmp(spec, "0X", 2))
		return false;
	errno = 0;
	*addr = strtoull(spec, &end, 16);
	return *end == 0 && end > spec + 2 && !errno;
}

int sg_linux_open_dma(struct sg_linux *lx, const char *spec, char *err, size_t n)
{
	uint64_t addr;

	if (is_address(spec, &addr)) {
		if (addr & 3u)
			return sg_fail(err, n, "dma=%s: register base must be 4-byte aligned", spec);
		return sg_linux_devmem_regs(addr, 0x10000u, &lx->regs, err, n);
	}
	if (sg_linux_uio_find(spec, &lx->regs, err, n) < 0)
		return -1;
	if (lx->regs.size < SG_LINUX_DMA_SPAN)
		return sg_fail(err, n, "UIO device uio%d \"%s\": map 0 is %llu bytes, smaller than the AXI DMA's "
			       "register span (0x%x bytes); make the device-tree reg "
			       "property cover the IP's address range (64 KiB in Vivado's address editor)",
			       lx->regs.index, spec, (unsigned long long)lx->regs.size, SG_LINUX_DMA_SPAN);
	/* Registers are reached through the hook alone when one is set. */
	return sg_linux_uio_open(&lx->regs, !lx->hook.read32, err, n);
}

int sg_linux_open_irq(struct sg_linux *lx, unsigned dir, const char *name, char *err, size_t n)
{
	struct sg_linux_uio *u = &lx->irq_dev[dir & 1u];

	/* The DMA's own UIO device: share its fd (one interrupt per UIO device). */
	if (lx->regs.index >= 0 && lx->regs.fd >= 0 && !strcmp(name, lx->regs.name)) {
		lx->irq_fd[dir & 1u] = lx->regs.fd;
		return 0;
	}
	if (sg_linux_uio_find(name, u, err, n) < 0 || sg_linux_uio_open(u, false, err, n) < 0)
		return -1;
	lx->irq_fd[dir & 1u] = u->fd;
	return 0;
}
