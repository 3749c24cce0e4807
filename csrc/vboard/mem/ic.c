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

/* The port's data channel (read or write) carries one burst at a time at its
 * width and clock: a burst's data cannot start before the previous one's ends. */
static uint64_t port_data(vb_board *b, uint64_t *free, uint64_t start, uint64_t end, uint32_t len)
{
	uint64_t t0 = max64(start, *free);
	uint64_t t1 = max64(end + (t0 - start), t0 + (uint64_t)((double)len * b->ic_ps_per_byte));
	*free = t1;
	return t0;
}

uint64_t vb_ic_read(vb_board *b, uint64_t t, uint64_t addr, uint32_t len, uint64_t *done)
{
	uint64_t end, first = vb_ddrc_request(b, VB_PORT_PL, arrive(b, t), addr, len, false, &end);
	first = port_data(b, &b->ic_read_free, first + b->ic_response_ps, end + b->ic_response_ps, len);
	*done = b->ic_read_free;
	return first;
}

/* A data-mover burst reaches the controller once its data has: the W beats cross the
 * port's write channel (at its width and clock, from AW or from the master's
 * last beat, whichever is later) and the controller takes the write into its
 * queue with its data (UG585 p.296: DDRI's write RAM holds a write's data;
 * the AFI store-and-forward release modes hold the command until the burst's
 * data is in, zynq-memory-system.md sec. 1.4; ZynqMP has no early BRESP, sec.
 * 2.3).  Assumed: the W data path has the request path's latency.  B comes
 * back when the DRAM has written the data, through the response path. */
static uint64_t write_at(vb_board *b, uint64_t t, uint64_t t_wlast, uint64_t addr, uint32_t len)
{
	uint64_t end, t0 = max64(t, b->ic_write_free);
	uint64_t wend = max64(t0 + (uint64_t)((double)len * b->ic_ps_per_byte), t_wlast);

	b->ic_write_free = wend;
	vb_ddrc_request(b, VB_PORT_PL, arrive(b, wend), addr, len, true, &end);
	return end + b->ic_response_ps;
}

/* A single write whose data travel with its address (BD status words, CPU
 * stores, the RTIO and PCIe masters): the port carries the data as the DRAM
 * takes it (cut-through), as before the write queue was modelled; the ZCU111
 * figures rest on this path. */
uint64_t vb_ic_write(vb_board *b, uint64_t t, uint64_t addr, uint32_t len)
{
	uint64_t end, first = vb_ddrc_request(b, VB_PORT_PL, arrive(b, t), addr, len, true, &end);
	port_data(b, &b->ic_write_free, first, end, len);
	return b->ic_write_free + b->ic_response_ps;
}

/* A data-mover write burst whose last W beat leaves the master at t_wlast.
 * Early B (ic.early_bresp = 1): the write response costs nothing - B as soon
 * as the burst's data has crossed the port, as a posted write buffer next to
 * the master would answer; the DRAM still does the write. */
uint64_t vb_ic_write_burst(vb_board *b, uint64_t t, uint64_t t_wlast, uint64_t addr, uint32_t len)
{
	uint64_t bresp = write_at(b, t, t_wlast, addr, len);
	if (!b->cfg.ic_early_bresp)
		return bresp;
	return max64(t + (uint64_t)((double)len * b->ic_ps_per_byte), t_wlast);
}
