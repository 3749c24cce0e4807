/*
 * rtio_trace.c - ARTIQ's DMA trace encoding [artiq-rtio.md sec. 2.4]: per
 * record the length byte (13 + 4n), the 24-bit channel (target >> 8), the
 * 64-bit timestamp, the address byte (target & 0xff) and n 32-bit data words,
 * all little-endian, packed back to back; a zero length byte ends the trace.
 * Offsets come from RTIO_RECORD_FIELDS, the table Python reads too.
 */
#include <string.h>

#include "pl/rtio_trace.h"
#include "pl/rtio_types.h"

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

int64_t vb_rtio_encode(const int64_t *ts, const uint32_t *target, const uint8_t *nwords, const uint32_t *data,
		       size_t n, uint8_t *out, size_t cap)
{
	size_t pos = 0, w = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned k = nwords[i];
		size_t len = RTIO_RECORD_HEADER_BYTES + 4u * k;
		if (k < 1 || k > RTIO_RECORD_MAX_WORDS)
			return -(int64_t)i - 1;   /* caller names the event */
		if (pos + len + 1 > cap)
			return -(int64_t)n - 1;
		out[pos + RTIO_REC_LENGTH] = (uint8_t)len;
		put_le(out + pos + RTIO_REC_CHANNEL, target[i] >> 8, RTIO_REC_CHANNEL_SIZE);
		put_le(out + pos + RTIO_REC_TIMESTAMP, (uint64_t)ts[i], RTIO_REC_TIMESTAMP_SIZE);
		out[pos + RTIO_REC_ADDRESS] = (uint8_t)target[i];
		for (unsigned j = 0; j < k; j++)
			put_le(out + pos + RTIO_REC_DATA + 4 * j, data[w + j], RTIO_REC_DATA_SIZE);
		w += k;
		pos += len;
	}
	out[pos++] = RTIO_END_MARKER;
	return (int64_t)pos;
}

int64_t vb_rtio_decode(const uint8_t *buf, size_t len, int64_t *ts, uint32_t *target, uint8_t *nwords,
		       uint32_t *data, size_t max_events, size_t max_words, size_t *words_out)
{
	size_t pos = 0, n = 0, w = 0;
	while (pos < len) {
		unsigned l = buf[pos], k;
		if (l == RTIO_END_MARKER) {
			*words_out = w;
			return (int64_t)n;
		}
		if (l < RTIO_RECORD_HEADER_BYTES + 4 || l > RTIO_RECORD_MAX_BYTES ||
		    (l - RTIO_RECORD_HEADER_BYTES) % 4 || pos + l > len)
			return -(int64_t)pos - 1;   /* malformed record at this offset */
		k = (l - RTIO_RECORD_HEADER_BYTES) / 4;
		if (n >= max_events || w + k > max_words)
			return -(int64_t)len - 2;
		ts[n] = (int64_t)get_le(buf + pos + RTIO_REC_TIMESTAMP, RTIO_REC_TIMESTAMP_SIZE);
		target[n] = (uint32_t)get_le(buf + pos + RTIO_REC_CHANNEL, RTIO_REC_CHANNEL_SIZE) << 8 |
			    buf[pos + RTIO_REC_ADDRESS];
		nwords[n] = (uint8_t)k;
		for (unsigned j = 0; j < k; j++)
			data[w + j] = (uint32_t)get_le(buf + pos + RTIO_REC_DATA + 4 * j, RTIO_REC_DATA_SIZE);
		w += k;
		n++;
		pos += l;
	}
	return -(int64_t)len - 1;   /* no end marker */
}
