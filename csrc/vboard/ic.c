/*
 * ic.c - the interconnect between the DMA's AXI masters and the memory
 * controller: a fixed request and response latency (SmartConnect or PS port
 * pipeline and clock-domain crossings) and the port's bandwidth (ic.width_bits
 * at ic.clock_mhz), in front of the DRAM model.
 *
 * Requests reach the controller in order: one issued with a fixed pipeline
 * delay ahead of it (PG021's 10 clocks after a tail write, 39 clocks from
 * S2MM TVALID to AW) is queued, and a request issued after it waits behind it
 * rather than overtaking, as on a single AXI port.
 */
#include "internal.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static uint64_t arrive(vb_board *b, uint64_t t)
{
	b->ic_last_arrive = max64(b->ic_last_arrive, t + b->ic_request_ps);
	return b->ic_last_arrive;
}

uint64_t vb_ic_read(vb_board *b, uint64_t t, uint64_t addr, uint32_t len, uint64_t *done)
{
	uint64_t first = vb_dram_access(&b->dram, arrive(b, t), addr, len, false, done);
	first += b->ic_response_ps;
	/* the port cannot return the data faster than its width and clock allow */
	*done = max64(*done + b->ic_response_ps, first + (uint64_t)((double)len * b->ic_ps_per_byte));
	return first;
}

uint64_t vb_ic_write(vb_board *b, uint64_t t, uint64_t addr, uint32_t len)
{
	uint64_t done, first = vb_dram_access(&b->dram, arrive(b, t), addr, len, true, &done);
	/* the write data crosses the port at its width and clock */
	return max64(done, first + (uint64_t)((double)len * b->ic_ps_per_byte)) + b->ic_response_ps;
}
