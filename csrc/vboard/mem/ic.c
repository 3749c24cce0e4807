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
#include "mem/ddrc.h"
#include "mem/ic.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static uint64_t arrive(struct vb_ic *ic, uint64_t t)
{
	ic->last_arrive = max64(ic->last_arrive, t + ic->request_ps);
	return ic->last_arrive;
}

/* The port's data channel (read or write) carries one burst at a time at its
 * width and clock: a burst's data cannot start before the previous one's ends. */
static uint64_t port_data(struct vb_ic *ic, uint64_t *free, uint64_t start, uint64_t end, uint32_t len)
{
	uint64_t t0 = max64(start, *free);
	uint64_t t1 = max64(end + (t0 - start), t0 + (uint64_t)((double)len * ic->ps_per_byte));
	*free = t1;
	return t0;
}

uint64_t vb_ic_read(struct vb_ic *ic, uint64_t t, uint64_t addr, uint32_t len, uint64_t *done)
{
	uint64_t end, first = vb_ddrc_request(ic->ddrc, VB_PORT_PL, arrive(ic, t), addr, len, false, &end);
	first = port_data(ic, &ic->read_free, first + ic->response_ps, end + ic->response_ps, len);
	*done = ic->read_free;
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
static uint64_t write_at(struct vb_ic *ic, uint64_t t, uint64_t t_wlast, uint64_t addr, uint32_t len)
{
	uint64_t end, t0 = max64(t, ic->write_free);
	uint64_t wend = max64(t0 + (uint64_t)((double)len * ic->ps_per_byte), t_wlast);

	ic->write_free = wend;
	vb_ddrc_request(ic->ddrc, VB_PORT_PL, arrive(ic, wend), addr, len, true, &end);
	return end + ic->response_ps;
}

/* A single write whose data travel with its address (BD status words, CPU
 * stores, the RTIO and PCIe masters): the port carries the data as the DRAM
 * takes it (cut-through), as before the write queue was modelled; the ZCU111
 * figures rest on this path. */
uint64_t vb_ic_write(struct vb_ic *ic, uint64_t t, uint64_t addr, uint32_t len)
{
	uint64_t end, first = vb_ddrc_request(ic->ddrc, VB_PORT_PL, arrive(ic, t), addr, len, true, &end);
	port_data(ic, &ic->write_free, first, end, len);
	return ic->write_free + ic->response_ps;
}

/* A data-mover write burst whose last W beat leaves the master at t_wlast.
 * Early B (ic.early_bresp = 1): the write response costs nothing - B as soon
 * as the burst's data has crossed the port, as a posted write buffer next to
 * the master would answer; the DRAM still does the write. */
uint64_t vb_ic_write_burst(struct vb_ic *ic, uint64_t t, uint64_t t_wlast, uint64_t addr, uint32_t len)
{
	uint64_t bresp = write_at(ic, t, t_wlast, addr, len);
	if (!ic->early_bresp)
		return bresp;
	return max64(t + (uint64_t)((double)len * ic->ps_per_byte), t_wlast);
}
