/*
 * sink_log.c - the MM2S sink's byte log: a PROT_NONE reservation of the cap
 * made read-write as it grows, pages given back when it is cleared, or a
 * realloc'd array where the reservation cannot be had (sink_log.h).
 *
 * Past its first 2 MiB the reservation asks for transparent huge pages (one
 * fault per 2 MiB instead of per 4 KiB: at 8 KiB per BD the faults cost more
 * than the copy); the head keeps small pages, as zeroing a huge page for a few
 * packets would cost more than it saves.  The reservation starts on a 2 MiB
 * boundary so every huge-page window in it is whole.
 */
#define _GNU_SOURCE          /* MAP_ANONYMOUS, MAP_NORESERVE, MADV_HUGEPAGE */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sink_log.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define HAVE_STREAM_STORES 1
#endif

#ifndef MAP_NORESERVE        /* not every Unix has it: only the read-write head is charged anyway */
#define MAP_NORESERVE 0
#endif

#define HUGE ((size_t)2 << 20)
#define RESERVE_FLAGS (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }
static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static void advise_huge(uint8_t *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	(void)madvise(p, len, MADV_HUGEPAGE);   /* a hint: refused, the pages stay small */
#else
	(void)p, (void)len;
#endif
}

/* The last freed reservation, its head still read-write (at most VB_SINK_LOG_PARK bytes): the next log of the
 * same cap takes it, so a process that makes board after board (a test suite, a sweep) writes its packets into
 * pages mapped already instead of pages the kernel must zero on first touch. */
static struct vb_sink_log parked;
static pthread_mutex_t parked_lock = PTHREAD_MUTEX_INITIALIZER;

static bool take_parked(struct vb_sink_log *l, size_t span)
{
	bool got = false;

	pthread_mutex_lock(&parked_lock);
	if (parked.span == span) {
		*l = parked;
		parked = (struct vb_sink_log){ 0 };
		got = true;
	}
	pthread_mutex_unlock(&parked_lock);
	if (got)
		l->written = 0;  /* its pages are mapped but not cached: long packets still take streaming stores */
	return got;
}

/* Address space for the whole cap, nothing writable yet (no charge, no pages). */
static void reserve(struct vb_sink_log *l, uint64_t cap)
{
	size_t span, slop;
	uint8_t *p, *base;

	l->tried = true;
	if (cap > SIZE_MAX - 2 * HUGE)
		return;
	span = round_up((size_t)cap, HUGE);
	if (take_parked(l, span))
		return;
	p = mmap(NULL, span + HUGE, PROT_NONE, RESERVE_FLAGS, -1, 0);
	if (p == MAP_FAILED)
		return;
	base = (uint8_t *)round_up((size_t)(uintptr_t)p, HUGE);
	slop = (size_t)(base - p);
	if (slop)
		munmap(p, slop);
	munmap(base + span, HUGE - slop);
	if (span > HUGE)
		advise_huge(base + HUGE, span - HUGE);
	l->data = base;
	l->span = span;
	l->rw = 0;
}

/* The next read-write head: at least doubling, whole huge pages past the first. */
static size_t next_rw(const struct vb_sink_log *l, size_t need)
{
	size_t want = l->rw * 2 > need ? l->rw * 2 : need;

	if (want < VB_SINK_LOG_FIRST_STEP)
		want = VB_SINK_LOG_FIRST_STEP;
	want = round_up(want, want > HUGE ? HUGE : page_size());
	return want < l->span ? want : l->span;
}

bool vb_sink_log_fit(struct vb_sink_log *l, uint64_t cap, uint64_t need)
{
	if (need <= l->rw)
		return true;
	if (!l->tried) {
		reserve(l, cap);
		if (need <= l->rw)          /* a parked reservation's head holds it */
			return true;
	}
	if (l->span) {
		size_t want;

		if (need > l->span)
			return false;
		want = next_rw(l, (size_t)need);

		/* strict overcommit may refuse the doubled step: then just what is needed */
		if (mprotect(l->data + l->rw, want - l->rw, PROT_READ | PROT_WRITE) != 0) {
			want = round_up((size_t)need, page_size());
			if (mprotect(l->data + l->rw, want - l->rw, PROT_READ | PROT_WRITE) != 0)
				return false;
		}
		l->rw = want;
		return true;
	}
	if (need > SIZE_MAX / 2)
		return false;
	{
		size_t want = l->rw * 2 > need ? l->rw * 2 : (size_t)need;
		uint8_t *p = realloc(l->data, want);

		if (!p)
			return false;
		l->data = p;
		l->rw = want;
	}
	return true;
}

/* Packets this long landing on pages never written since they were mapped
 * are written with streaming stores: the kernel has just zeroed those pages
 * and they are not in the cache, so ordinary stores would read every line back
 * first.  Pages written before (a cleared log's head) are likely cached and
 * take ordinary stores. */
#define STREAM_MIN ((uint64_t)4096)

void vb_sink_log_write(struct vb_sink_log *l, uint64_t at, const uint8_t *src, uint64_t len)
{
	uint8_t *dst = l->data + at;
	bool fresh = at >= l->written;

	if (at + len > l->written)
		l->written = (size_t)(at + len);
#ifdef HAVE_STREAM_STORES
	if (fresh && len >= STREAM_MIN) {
		size_t head = (size_t)(-(uintptr_t)dst & 15), body;

		memcpy(dst, src, head);
		dst += head, src += head, len -= head;
		body = (size_t)len & ~(size_t)63;
		for (size_t i = 0; i < body; i += 64) {
			__m128i a = _mm_loadu_si128((const __m128i *)(src + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
			__m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
			__m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
			_mm_stream_si128((__m128i *)(dst + i), a);
			_mm_stream_si128((__m128i *)(dst + i + 16), b);
			_mm_stream_si128((__m128i *)(dst + i + 32), c);
			_mm_stream_si128((__m128i *)(dst + i + 48), d);
		}
		_mm_sfence();   /* the bytes are visible to any reader once the call returns */
		memcpy(dst + body, src + body, (size_t)len - body);
		return;
	}
#else
	(void)fresh;
#endif
	memcpy(dst, src, (size_t)len);
}

void vb_sink_log_trim(struct vb_sink_log *l, uint64_t used)
{
	size_t keep = used > VB_SINK_LOG_RETAIN ? (size_t)used : VB_SINK_LOG_RETAIN;

	if (l->span) {
		keep = round_up(keep, HUGE);
		if (keep >= l->rw)
			return;                    /* nothing written beyond the head: no system call */
		/* A fresh PROT_NONE mapping over the tail frees its pages and, under
		 * strict overcommit, its charge (MADV_DONTNEED would keep the charge). */
		if (mmap(l->data + keep, l->rw - keep, PROT_NONE, RESERVE_FLAGS | MAP_FIXED, -1, 0) == MAP_FAILED) {
			(void)madvise(l->data + keep, l->rw - keep, MADV_DONTNEED);
			return;
		}
		advise_huge(l->data + keep, l->span - keep);
		l->rw = keep;
		if (l->written > keep)
			l->written = keep;
		return;
	}
	if (keep < l->rw) {
		uint8_t *p = realloc(l->data, keep);
		if (p) {
			l->data = p;
			l->rw = keep;
			if (l->written > keep)
				l->written = keep;
		}
	}
}

void vb_sink_log_free(struct vb_sink_log *l)
{
	struct vb_sink_log old = { 0 };

	if (l->span && l->rw) {
		vb_sink_log_trim(l, VB_SINK_LOG_PARK);     /* what it keeps mapped while parked */
		pthread_mutex_lock(&parked_lock);
		old = parked;                               /* the newer one is kept */
		parked = *l;
		pthread_mutex_unlock(&parked_lock);
		*l = old;
	}
	if (l->span)
		munmap(l->data, l->span);
	else
		free(l->data);
	*l = (struct vb_sink_log){ 0 };
}

void vb_sink_log_release_parked(void)
{
	struct vb_sink_log old;

	pthread_mutex_lock(&parked_lock);
	old = parked;
	parked = (struct vb_sink_log){ 0 };
	pthread_mutex_unlock(&parked_lock);
	if (old.span)
		munmap(old.data, old.span);
}
