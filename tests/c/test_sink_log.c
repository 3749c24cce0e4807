// SPDX-License-Identifier: MIT
/*
 * test_sink_log.c - the MM2S sink's byte log storage (csrc/vboard/base/sink_log.c):
 * a PROT_NONE reservation made read-write in growing steps (so strict
 * overcommit charges only what is used), pages given back by a trim, and the
 * realloc fallback where the reservation cannot be had.  Expectations come
 * from the kernel's own view: /proc/self/maps permissions and mincore().
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/sink_log.h"
#include "harness.h"

#define MiB ((size_t)1 << 20)

/* The permissions /proc/self/maps gives the page at p ("rw-p", "---p"), or "" if unmapped. */
static const char *perms_at(const void *p)
{
	static char out[5];
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;

	out[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char perm[5];
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) == 3 && (unsigned long)p >= lo && (unsigned long)p < hi) {
			memcpy(out, perm, sizeof(out));
			break;
		}
	}
	if (f)
		fclose(f);
	return out;
}

/* Pages resident in [p, p + len). */
static size_t resident(const uint8_t *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page, count = 0;
	unsigned char *v = malloc(n);
	if (!v || mincore((void *)p, len, v) != 0) {
		free(v);
		return (size_t)-1;
	}
	for (size_t i = 0; i < n; i++)
		count += v[i] & 1;
	free(v);
	return count;
}

static uint8_t byte_at(uint64_t i) { return (uint8_t)(i * 2654435761u >> 13); }

/* Append `len` pattern bytes at `used`, as the sink does. */
static int append(struct vb_sink_log *l, uint64_t cap, uint64_t *used, uint64_t len)
{
	if (!vb_sink_log_fit(l, cap, *used + len))
		return 0;
	for (uint64_t i = 0; i < len; i++)
		l->data[*used + i] = byte_at(*used + i);
	*used += len;
	return 1;
}

static int pattern_intact(const struct vb_sink_log *l, uint64_t used)
{
	for (uint64_t i = 0; i < used; i++)
		if (l->data[i] != byte_at(i))
			return 0;
	return 1;
}

static void test_reservation_grows_in_steps_and_only_the_head_is_writable(void)
{
	struct vb_sink_log l = { 0 };
	uint64_t cap = 64 * MiB, used = 0;
	size_t steps = 0, last_rw = 0;

	vb_sink_log_release_parked();              /* a new reservation, not the last test's */

	/* odd-sized packets across the 256 KiB, 512 KiB, 1, 2, 4, 8 and 16 MiB steps */
	while (used < 12 * MiB) {
		CHECK(append(&l, cap, &used, 4093));
		if (l.rw != last_rw) {
			steps++;
			CHECK(l.rw >= used && (last_rw == 0 || l.rw >= 2 * last_rw));
			last_rw = l.rw;
		}
	}
	CHECK(l.span >= cap && l.span < cap + 2 * MiB);
	CHECK_EQ(l.rw, 16 * MiB);
	CHECK_EQ(steps, 7);
	CHECK(pattern_intact(&l, used));
	CHECK(strcmp(perms_at(l.data), "rw-p") == 0);
	CHECK(strcmp(perms_at(l.data + l.rw - 1), "rw-p") == 0);
	CHECK(strcmp(perms_at(l.data + l.rw), "---p") == 0);      /* reserved, not committed */
	CHECK(strcmp(perms_at(l.data + cap - 1), "---p") == 0);
	CHECK(!vb_sink_log_fit(&l, cap, l.span + 1));             /* never past the reservation */
	CHECK_EQ(l.rw, 16 * MiB);
	vb_sink_log_free(&l);
	CHECK(l.data == NULL && l.rw == 0);
}

/* A freed reservation is parked for the next log of the same cap: its head stays mapped (bounded by
 * VB_SINK_LOG_PARK) and the next log writes there; a log of another cap reserves its own. */
static void test_a_freed_log_is_parked_for_the_next_of_its_cap(void)
{
	struct vb_sink_log a = { 0 }, b = { 0 }, other = { 0 }, big = { 0 };
	uint64_t used = 0;
	uint8_t *data;
	size_t rw;

	vb_sink_log_release_parked();
	while (used < 3 * MiB)
		CHECK(append(&a, 64 * MiB, &used, 8192));
	vb_sink_log_write(&a, 0, a.data + 8192, 8192);
	data = a.data;
	rw = a.rw;
	vb_sink_log_free(&a);
	CHECK(a.data == NULL && a.rw == 0);
	CHECK(strcmp(perms_at(data), "rw-p") == 0);            /* parked: still mapped */
	CHECK(vb_sink_log_fit(&other, 32 * MiB, 1));
	CHECK(other.data != data);
	CHECK(vb_sink_log_fit(&b, 64 * MiB, 1));
	CHECK(b.data == data && b.rw == rw && b.written == 0);
	CHECK(resident(b.data, 3 * MiB) > 0);                    /* its pages are there already */
	vb_sink_log_free(&other);
	vb_sink_log_free(&b);
	/* a large log parks only its first VB_SINK_LOG_PARK bytes read-write */
	CHECK(vb_sink_log_fit(&big, 256 * MiB, 100 * MiB));
	CHECK(big.rw > VB_SINK_LOG_PARK);
	data = big.data;
	vb_sink_log_free(&big);
	CHECK(vb_sink_log_fit(&big, 256 * MiB, 1));
	CHECK(big.data == data && big.rw == VB_SINK_LOG_PARK);
	CHECK(strcmp(perms_at(big.data + VB_SINK_LOG_PARK), "---p") == 0);
	vb_sink_log_free(&big);
	vb_sink_log_release_parked();
}

static void test_trim_gives_pages_beyond_the_head_back(void)
{
	struct vb_sink_log l = { 0 };
	uint64_t cap = 64 * MiB, used = 0;

	while (used < 10 * MiB)
		CHECK(append(&l, cap, &used, 8192));
	CHECK(resident(l.data, 10 * MiB) > 0);
	CHECK_EQ(l.written, 0);                 /* append() writes the bytes itself */
	vb_sink_log_write(&l, used - 8192, l.data + 8192, 8192);
	CHECK_EQ(l.written, used);
	vb_sink_log_trim(&l, 1000);             /* a cleared sink keeping a 1000-byte open packet */
	CHECK_EQ(l.rw, VB_SINK_LOG_RETAIN);
	CHECK_EQ(l.written, VB_SINK_LOG_RETAIN); /* the pages past the head are fresh again */
	CHECK(pattern_intact(&l, 1000));
	CHECK_EQ(resident(l.data + l.rw, 10 * MiB - l.rw), 0);
	CHECK(strcmp(perms_at(l.data + l.rw), "---p") == 0);
	/* growing again gives fresh (zero) pages at the same address */
	used = l.rw;
	CHECK(vb_sink_log_fit(&l, cap, 6 * MiB));
	CHECK(l.data[5 * MiB] == 0 && l.data[l.rw - 1] == 0);
	CHECK(strcmp(perms_at(l.data + 5 * MiB), "rw-p") == 0);
	/* a trim that finds nothing beyond what it keeps changes nothing */
	vb_sink_log_trim(&l, 0);
	CHECK_EQ(l.rw, VB_SINK_LOG_RETAIN);
	vb_sink_log_trim(&l, 0);
	CHECK_EQ(l.rw, VB_SINK_LOG_RETAIN);
	/* a log that keeps more than the head keeps what it holds */
	used = 0;
	while (used < 5 * MiB)
		CHECK(append(&l, cap, &used, 65536));
	vb_sink_log_trim(&l, 3 * MiB);
	CHECK_EQ(l.rw, 4 * MiB);
	CHECK(pattern_intact(&l, 3 * MiB));
	vb_sink_log_free(&l);
}

static void test_without_address_space_the_log_is_a_grown_array(void)
{
	struct vb_sink_log l = { 0 };
	uint64_t cap = (uint64_t)1 << 62, used = 0;   /* no host has this much address space */

	while (used < 3 * MiB)
		CHECK(append(&l, cap, &used, 777));
	CHECK(l.tried && l.span == 0);
	CHECK(pattern_intact(&l, used));
	vb_sink_log_trim(&l, 100);
	CHECK_EQ(l.rw, VB_SINK_LOG_RETAIN);
	CHECK(pattern_intact(&l, 100));
	vb_sink_log_trim(&l, 100);               /* nothing more to give back */
	CHECK_EQ(l.rw, VB_SINK_LOG_RETAIN);
	CHECK(!vb_sink_log_fit(&l, cap, cap));   /* no host memory for it: refused */
	vb_sink_log_free(&l);
}

/* Writes of every alignment and of lengths around the streaming-store threshold land exactly,
 * touching nothing around them, on fresh pages and on pages written before; the high-water mark
 * of written bytes follows the writes and a trim. */
static void test_writes_land_exactly_at_any_offset_and_length(void)
{
	struct vb_sink_log l = { 0 };
	static uint8_t src[3 * 8192 + 64];
	const uint64_t lens[] = { 0, 1, 15, 16, 63, 64, 4095, 4096, 4097, 8192 + 17, 3 * 8192 + 63 };

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = byte_at(i + 99);
	CHECK(vb_sink_log_fit(&l, 64 * MiB, 1 * MiB));
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		for (uint64_t at = 1000; at < 1000 + 33; at += 7) {
			for (uint64_t so = 0; so < 6; so++) {
				int bad = 0;
				memset(l.data, 0xA5, 1 * MiB);
				l.written = so < 3 ? 0 : 1 * MiB;   /* fresh pages (streaming stores) or written ones */
				vb_sink_log_write(&l, at, src + so % 3, lens[k]);
				for (uint64_t i = 0; i < at; i++)
					bad |= l.data[i] != 0xA5;
				for (uint64_t i = 0; i < lens[k]; i++)
					bad |= l.data[at + i] != src[so % 3 + i];
				for (uint64_t i = at + lens[k]; i < at + lens[k] + 256; i++)
					bad |= l.data[i] != 0xA5;
				CHECK(!bad);
				CHECK_EQ(l.written, so < 3 ? at + lens[k] : 1 * MiB);
			}
		}
	}
	vb_sink_log_free(&l);
}

int main(void)
{
	RUN(test_writes_land_exactly_at_any_offset_and_length);
	RUN(test_reservation_grows_in_steps_and_only_the_head_is_writable);
	RUN(test_a_freed_log_is_parked_for_the_next_of_its_cap);
	RUN(test_trim_gives_pages_beyond_the_head_back);
	RUN(test_without_address_space_the_log_is_a_grown_array);
	return report();
}
