/*
 * api.c - vboard.h's observers and waits: each catches the model up to the
 * CPU's "now" (the scheduler, base/sched.c) and then asks the device.  Devices
 * never sync themselves, so a device's answer is always the state at the
 * time the caller set.
 */
#include "sgdma/csm.h"
#include "board.h"
#include "dma/mm2s.h"
#include "api_coherency.h"

/* ---- time --------------------------------------------------------------- */

uint64_t vb_now_ps(const vb_board *b) { return b->sched.now; }

void vb_sync(vb_board *b) { vb_sched_sync(&b->sched); }

bool vb_step_next(vb_board *b, uint64_t limit_ps) { return vb_sched_step_next(&b->sched, limit_ps); }

/* The CPU waits (no accesses) until done(ctx) or limit_ps. */
bool vb_run_until(vb_board *b, bool (*done)(void *ctx), void *ctx, uint64_t limit_ps)
{
	return vb_sched_run_until(&b->sched, done, ctx, limit_ps);
}

uint64_t vb_run_until_quiet(vb_board *b, uint64_t limit_ps) { return vb_sched_run_quiet(&b->sched, limit_ps); }

/* ---- memory (mem/memory.c) ------------------------------------------------ */

void *vb_mem_ptr(vb_board *b, uint64_t addr, uint64_t len) { return vb_memory_ptr(&b->memory, addr, len); }
uint64_t vb_mem_addr(const vb_board *b, const void *host) { return vb_memory_addr(&b->memory, host); }
int vb_region_count(const vb_board *b) { return (int)b->memory.n_mem; }

const struct vb_region *vb_region_at(const vb_board *b, int i)
{
	return i >= 0 && (unsigned)i < b->memory.n_mem ? &b->memory.mem[i].r : NULL;
}

bool vb_region_at_phys(const vb_board *b, int i)
{
	return i >= 0 && (unsigned)i < b->memory.n_mem && b->memory.mem[i].at_phys;
}

int vb_mem_zero(vb_board *b, uint64_t addr, uint64_t len) { return vb_memory_zero(&b->memory, addr, len); }

int vb_mem_map_file(vb_board *b, uint64_t addr, uint64_t size, int fd, char *err, size_t errlen)
{
	return vb_memory_map_file(&b->memory, addr, size, fd, err, errlen);
}

int vb_inject_slverr(vb_board *b, uint64_t base, uint64_t size)
{
	return vb_memory_inject_slverr(&b->memory, base, size);
}

void vb_clear_faults(vb_board *b) { b->memory.n_faults = 0; }

/* ---- observers ---------------------------------------------------------- */

const struct vb_dma_guest_errors *vb_dma_guest_errors(const vb_board *b) { return &b->dma.guest; }

const struct vb_config *vb_get_config(const vb_board *b) { return &b->cfg; }

bool vb_bus_claims(const vb_board *b, uint64_t addr) { return vb_bus_find(&b->bus, addr) != NULL; }

uint64_t vb_bus_decerrs(const vb_board *b, uint64_t *last_addr)
{
	if (last_addr)
		*last_addr = b->bus.last_decerr_addr;
	return b->bus.decerr_count;
}

const struct vb_dram_stats *vb_dram_stats(vb_board *b) { return &b->dram.stats; }
const struct vb_ddrc_port_stats *vb_ddrc_stats(vb_board *b, unsigned port)
{
	return port < VB_PORT_COUNT ? &b->ddrc.stats[port] : NULL;
}
uint64_t vb_next_refresh(vb_board *b, uint64_t t_ps) { return vb_dram_next_refresh(&b->dram, t_ps); }

const uint64_t *vb_fetch_log(vb_board *b, enum vb_chan_id ch, size_t *n, uint64_t *dropped)
{
	vb_sync(b);
	*n = b->dma.ch[ch].n_fetch_log;
	*dropped = b->dma.ch[ch].fetch_log_dropped;
	return b->dma.ch[ch].fetch_log;
}

void vb_fetch_log_clear(vb_board *b, enum vb_chan_id ch)
{
	b->dma.ch[ch].n_fetch_log = 0;
	b->dma.ch[ch].fetch_log_dropped = 0;
}


/* ---- the DMA's stream endpoints (dma/stream.c) --------------------------- */

void vb_sink_overflow(vb_board *b, uint64_t *packets, uint64_t *bytes)
{
	vb_sync(b);
	*packets = b->sink.overflow_packets;
	*bytes = b->sink.overflow_bytes;
}

size_t vb_sink_count(vb_board *b) { vb_sync(b); return b->sink.n; }

const struct vb_packet *vb_sink_packet(vb_board *b, size_t i)
{
	return i < b->sink.n ? &b->sink.pkts[i] : NULL;
}

const uint8_t *vb_sink_data(vb_board *b) { return b->sink.log.data; }

uint64_t vb_sink_open_bytes(vb_board *b)
{
	vb_sync(b);
	return b->sink.open ? b->sink.open_len : 0;
}

void vb_sink_clear(vb_board *b)
{
	vb_sync(b);
	vb_sink_drop_kept(&b->sink);
}

int vb_source_send(vb_board *b, const void *data, size_t len, bool last)
{
	vb_sync(b);
	if (vb_source_queue(&b->src, b->sched.now, data, len, last) < 0)
		return -1;
	if (len)
		vb_sync(b);   /* the S2MM channel may take the bytes at once */
	return 0;
}

uint64_t vb_source_pending(vb_board *b) { vb_sync(b); return b->src.pending; }

/* ---- a live consumer of MM2S (dma/mm2s.c vb_mm2s_take) ------------------------ */

int vb_mm2s_live(vb_board *b, bool on)
{
	vb_sync(b);
	if (b->dma.ch[VB_MM2S].mm2s.count)
		return -1;
	b->stream_live = on;
	return 0;
}

uint64_t vb_mm2s_offer(vb_board *b)
{
	vb_sync(b);
	return vb_mm2s_offer_time(&b->dma, &b->dma.ch[VB_MM2S]);
}

int vb_mm2s_accept(vb_board *b, uint64_t t_ps, bool *last)
{
	if (t_ps > vb_now_ps(b))
		vb_advance_ps(b, t_ps - vb_now_ps(b));
	vb_sync(b);
	return vb_mm2s_take(&b->dma, &b->dma.ch[VB_MM2S], t_ps, last);
}

/* ---- ADC (pl/adc.c) ----------------------------------------------------------- */

void vb_adc_start(vb_board *b, double rate_sps, unsigned sample_bytes, uint64_t fifo_bytes, uint64_t packet_bytes)
{
	vb_adc_clear(&b->adc);   /* before the catch-up: the old producer feeds S2MM no more */
	vb_sync(b);
	vb_adc_arm(&b->adc, b->sched.now, rate_sps, sample_bytes, fifo_bytes, packet_bytes);
}

void vb_adc_stop(vb_board *b)
{
	vb_sync(b);
	vb_adc_halt(&b->adc, b->sched.now);
}

const struct vb_adc *vb_adc_state(vb_board *b)
{
	vb_sync(b);
	return vb_adc_observe(&b->adc, b->sched.now);
}

/* ---- DAC and stream trace (pl/dac.c, pl/trace.c) --------------------------- */

/* No sync: a new configuration takes effect from the DAC's next beat. */
void vb_dac_configure(vb_board *b, uint64_t beat_ps, uint64_t lead_ps, uint32_t fifo_beats)
{
	vb_dac_setup(&b->dac, beat_ps, lead_ps, fifo_beats);
}

const struct vb_dac *vb_dac_state(vb_board *b)
{
	vb_sync(b);
	return &b->dac;
}

void vb_trace_enable(vb_board *b, bool on)
{
	vb_sync(b);
	vb_trace_set(&b->trace, on, b->clk.origin);
}

const struct vb_trace *vb_trace_state(vb_board *b)
{
	vb_sync(b);
	return &b->trace;
}

/* ---- CSM (pl/csm.c) ------------------------------------------------------------- */

bool vb_run_until_csm_done(vb_board *b, uint64_t limit_ps)
{
	uint64_t end = b->sched.now > UINT64_MAX - limit_ps ? UINT64_MAX : b->sched.now + limit_ps;

	vb_sync(b);
	while (!vb_csm_done(&b->csm) && vb_step_next(b, end))
		;
	return vb_csm_done(&b->csm);
}

/* ---- AXI DMA channels (dma/channel.c) ------------------------------------------ */

bool vb_irq_pending(vb_board *b, enum vb_chan_id ch)
{
	vb_sync(b);
	return (b->dma.ch[ch].dmasr & b->dma.ch[ch].dmacr & PG021_SR_IRQ_ALL) != 0;
}

/* The CPU sleeps until the channel's interrupt line rises, or until limit_ps
 * (absolute); events are stepped one by one, so "now" is the event that
 * raised it.  False if the line is still low (no event left before the limit). */
bool vb_run_until_irq(vb_board *b, enum vb_chan_id ch, uint64_t limit_ps)
{
	vb_sync(b);
	while (!(b->dma.ch[ch].dmasr & b->dma.ch[ch].dmacr & PG021_SR_IRQ_ALL))
		if (!vb_step_next(b, limit_ps))
			return false;
	return true;
}

void vb_get_probe(vb_board *b, enum vb_chan_id ch, struct vb_probe *out)
{
	vb_sync(b);
	*out = b->dma.ch[ch].probe;
}

void vb_get_stats(vb_board *b, enum vb_chan_id ch, struct vb_stats *out)
{
	vb_sync(b);
	*out = b->dma.ch[ch].stats;
	out->mmio_reads = b->mmio_reads;
	out->mmio_writes = b->mmio_writes;
}

/* ---- coherency monitor (mem/coherency.c) --------------------------------------- */

void vb_coherency_cpu_access(vb_board *b, uint64_t addr, uint64_t len, bool write)
{
	if (!vb_coherency_watching(b) || !len)
		return;
	vb_sync(b);              /* the DMA's work up to now happened before this access */
	vb_coherency_cpu_event(b, addr, len, write);
}

