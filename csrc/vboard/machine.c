/*
 * machine.c - what is on the board and where: the one file that names the
 * devices, as a QEMU machine definition does.  It creates them, maps their
 * register windows on the bus, gives the timed ones to the scheduler, wires
 * the DMA's streams, reseeds and destroys them.  From then on the CPU reaches a
 * device only through its ops.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sgdma/csm.h"
#include "sgdma/pcie_dma.h"
#include "board.h"
#include "pcie/pcie_api.h"
#include "mem/coherency.h"
#include "pl/rtio.h"

/* Map a device's register window and, when it acts on its own (`timed`), give it
 * to the scheduler: in map order, which breaks ties between equal event times. */
static int attach(vb_board *b, uint64_t base, uint64_t span, const struct vb_device_ops *ops,
		  const struct vb_timed_ops *timed, void *dev, char *err, size_t errlen)
{
	if (vb_bus_map(&b->bus, base, span, ops, dev) < 0) {
		snprintf(err, errlen, "%s at 0x%llx (0x%llx bytes) overlaps another device window; move it in the preset",
			 ops->name, (unsigned long long)base, (unsigned long long)span);
		return -1;
	}
	if (timed && vb_sched_add(&b->sched, timed, dev) < 0) {
		snprintf(err, errlen, "%s: more than %d timed devices", ops->name, VB_SCHED_MAX);
		return -1;
	}
	return 0;
}

static int attach_devices(vb_board *b, char *err, size_t errlen)
{
	if (attach(b, b->cfg.dma.base, VB_DMA_SPAN, &vb_axidma_ops, &vb_axidma_timed, &b->dma, err, errlen) < 0)
		return -1;
	for (unsigned i = 0; i < VB_GPIO_BLOCKS; i++) {
		b->gpio[i] = (struct vb_gpio){ .index = i, .a = &b->gpio[0], .csm = &b->csm, .trace = &b->trace,
					       .sched = &b->sched };
		if (attach(b, b->cfg.gpio_base + (uint64_t)i * CSM_GPIO_SPAN, CSM_GPIO_SPAN, &vb_gpio_ops, NULL, &b->gpio[i],
			err, errlen) < 0)
			return -1;
	}
	if (b->cfg.pcie.present) {
		const struct vb_pcie_params *m = &b->cfg.pcie;
		b->pcie = vb_pcie_new(m, &b->sched, &b->bus, &b->ic, &b->memory, err, errlen);
		if (!b->pcie)
			return -1;
		vb_pcie_reseed(b->pcie, &b->rng, b->sched.now);
		if (attach(b, PSDMA_AXI_BASE, PSDMA_REG_SPAN, &vb_psdma_root_ops, &vb_psdma_timed, vb_pcie_engine(b->pcie, 0),
			   err, errlen) < 0 ||
		    attach(b, m->bar0, m->bar0_size, &vb_psdma_ep_ops, &vb_psdma_timed, vb_pcie_engine(b->pcie, 1), err,
			   errlen) < 0)
			return -1;
	}
	if (b->cfg.rtio.present) {
		b->rtio = vb_rtio_new(&b->sched, &b->ic, &b->memory, &b->cfg.rtio);
		if (!b->rtio) {
			snprintf(err, errlen, "out of host memory for the RTIO core");
			return -1;
		}
		if (attach(b, b->cfg.rtio.base, RTIO_WINDOW_SPAN, &vb_rtio_ops, &vb_rtio_timed, b->rtio, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* ---- stream links: what the AXI DMA's streams reach ---------------------------------- */

/* MM2S: the DAC times the beats while it is enabled; the trace sees every beat
 * the stream times itself; each transfer goes to the CSM's tap, the sink
 * recorder and, with stream.loopback, back into the S2MM source. */
static void tx_dac(void *dev, uint64_t ready, uint64_t last_ready, uint32_t n, bool gate_start, bool eof,
		   uint64_t *first, uint64_t *last)
{
	vb_board *b = dev;

	vb_dac_beats(&b->dac, &b->clk, &b->trace, ready, last_ready, n, gate_start, eof, first, last);
}


static void tx_trace(void *dev, uint64_t t, bool last) { vb_trace_beat(dev, t, last); }

static void tx_csm(void *dev, const uint8_t *data, uint64_t len, bool last, uint64_t t_first, uint64_t t_last)
{
	(void)data;
	vb_csm_stream(dev, len, last, t_first, t_last);
}

static void tx_loopback(void *dev, const uint8_t *data, uint64_t len, bool last, uint64_t t_first, uint64_t t_last)
{
	(void)t_first;
	vb_source_push(dev, data, len, last, t_last);   /* host out of memory: counted in the source's lost_bytes */
}

/* PG021 drives mm2s_prmry_reset_out_n and s2mm_prmry_reset_out_n low during a
 * soft reset; they are wired to the sink recorder and the S2MM source, as a
 * design that follows the product guide does.  The ADC is a separate PL block
 * with its own start/stop and is not on this reset. */
static void tx_reset(void *dev) { vb_sink_cut(dev); }
static void rx_reset(void *dev) { vb_source_drop(dev); }

/* Software's (or the loopback's) bytes arrived: the S2MM stream's consumer hears it. */
static void rx_arrived(void *dev, uint64_t t)
{
	vb_board *b = dev;
	if (b->dma.rx.arrived)
		b->dma.rx.arrived(b->dma.rx.consumer, t);
}

/* S2MM: the ADC while it produces (or still holds samples), else software's queue. */
static uint64_t rx_next_time(void *dev, uint64_t need, uint64_t t)
{
	vb_board *b = dev;
	return vb_adc_feeding(&b->adc) ? vb_adc_next_time(&b->adc, need, t) : vb_source_next_time(&b->src, need, t);
}

static uint64_t rx_take(void *dev, uint8_t *dst, uint64_t max, uint64_t t, bool *last)
{
	vb_board *b = dev;
	return vb_adc_feeding(&b->adc) ? vb_adc_take(&b->adc, dst, max, t, last) : vb_source_take(&b->src, dst, max, t, last);
}

static void wire_streams(vb_board *b)
{
	struct vb_stream_tx *tx = &b->dma.tx;

	tx->pace = tx_dac;
	tx->pace_dev = b;
	tx->pace_on = &b->dac.enabled;
	tx->beat = tx_trace;
	tx->beat_dev = &b->trace;
	tx->watch = &b->trace.on;
	tx->defer_on = &b->stream_live;
	tx->sink[tx->n_sinks++] = (struct vb_stream_sink){ tx_csm, &b->csm };
	tx->sink[tx->n_sinks++] = (struct vb_stream_sink){ vb_sink_push, &b->sink };
	if (b->cfg.loopback)
		tx->sink[tx->n_sinks++] = (struct vb_stream_sink){ tx_loopback, &b->src };
	tx->bytes = b->cfg.sink_record || b->cfg.loopback;
	tx->reset = tx_reset;
	tx->reset_dev = &b->sink;
	b->dma.rx = (struct vb_stream_rx){ .next_time = rx_next_time, .take = rx_take, .dev = b,
					   .reset = rx_reset, .reset_dev = &b->src };
	b->sink.record = b->cfg.sink_record != 0;
	b->sink.cap = b->cfg.sink_max_bytes ? b->cfg.sink_max_bytes : VB_SINK_MAX_BYTES;
	b->src.arrived = rx_arrived;
	b->src.arrived_ctx = b;
}

/* The AXI DMA: its derived constants and the services it is given. */
static void init_dma(vb_board *b)
{
	const struct vb_config *cfg = &b->cfg;
	struct vb_dma *d = &b->dma;

	d->prm = &cfg->dma;
	d->consumer_fifo_beats = cfg->consumer_fifo_beats;
	d->sched = &b->sched;
	d->clk = &b->clk;
	d->ic = &b->ic;
	d->memory = &b->memory;
	d->lat = (struct vb_dma_lat){
		.clock = vb_dma_clocks(d, 1),
		.tail_to_sg_ar = vb_dma_clocks(d, PG021_LAT_TAIL_TO_SG_AR),
		.sg_ar_to_data_ar = vb_dma_clocks(d, PG021_LAT_SG_AR_TO_MM2S_AR),
		.ar_to_tvalid = vb_dma_clocks(d, PG021_LAT_MM2S_AR_TO_TVALID),
		.s2mm_tvalid_to_aw = vb_dma_clocks(d, PG021_LAT_S2MM_TVALID_TO_AW),
		.s2mm_burst_gap = vb_dma_clocks(d, PG021_LAT_S2MM_BURST_GAP),
		.bd_beats = vb_dma_clocks(d, PG021_BD_HW_BYTES / 4 - 1),
	};
	d->len_mask = (uint32_t)((1u << cfg->dma.length_width) - 1);
	d->data_bytes = cfg->dma.data_width / 8;
	d->addr_mask = cfg->dma.addr_width >= 64 ? UINT64_MAX : (1ull << cfg->dma.addr_width) - 1;
	d->consumer_ps = (uint64_t)(b->clk.ps / cfg->consumer_rate + 0.5);
}

vb_board *vb_create(const struct vb_config *cfg, uint64_t seed, char *err, size_t errlen)
{
	vb_board *b;

	if (vb_config_check(cfg, err, errlen) < 0)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(err, errlen, "out of host memory");
		return NULL;
	}
	b->cfg = *cfg;
	b->clk.ps = 1e6 / cfg->dma.clock_mhz;
	init_dma(b);
	b->memory.addr_mask = b->dma.addr_mask;
	b->ddrc.dram = &b->dram;
	b->ddrc.load = &b->load;
	b->ic = (struct vb_ic){
		.request_ps = vb_ns(cfg->ic.request_ns),
		.response_ps = vb_ns(cfg->ic.response_ns),
		.ps_per_byte = cfg->ic.width_bits ? 1e6 / (cfg->ic.clock_mhz * cfg->ic.width_bits / 8.0) : 0.0,
		.early_bresp = cfg->ic.early_bresp != 0,
		.ddrc = &b->ddrc,
	};
	b->csm = (struct vb_csm){ .sched = &b->sched, .clk = &b->clk, .data_bytes = b->dma.data_bytes };
	vb_reseed(b, seed);
	if (vb_memory_init(&b->memory, cfg->ddr, cfg->n_ddr, cfg->map_at_phys, err, errlen) < 0) {
		vb_destroy(b);
		return NULL;
	}
	vb_cpuload_init(&b->load, &cfg->cpu_load, cfg->cache_line_bytes, b->memory.n_mem > 0, b->memory.mem[0].r.base,
			b->memory.mem[0].r.size);
	b->load.next_t = b->sched.now;
	b->coh = vb_coh_new(cfg->cache_line_bytes);
	if (!b->coh) {
		snprintf(err, errlen, "out of host memory");
		vb_destroy(b);
		return NULL;
	}
	b->dma.coh = b->coh;
	if (attach_devices(b, err, errlen) < 0) {
		vb_destroy(b);
		return NULL;
	}
	wire_streams(b);
	vb_bus_reset(&b->bus);
	return b;
}

void vb_reseed(vb_board *b, uint64_t seed)
{
	uint64_t refi = (uint64_t)(b->cfg.dram.trefi_ns * 1000.0 + 0.5), r;

	vb_rng_seed(&b->rng, seed);
	/* Refresh runs asynchronously to everything else: a seeded phase (drawn
	 * even for ideal memory, so enabling the DRAM model does not shift the
	 * other random streams). */
	r = vb_rng_next(&b->rng);
	/* anchored at "now": a trial's outcome depends on its seed, not on history */
	vb_dram_init(&b->dram, &b->cfg.dram, b->sched.now + (refi ? r % refi : 0));
	vb_ddrc_init(&b->ddrc, &b->cfg.ddrc, b->cfg.dram.tck_ns, b->sched.now);
	b->ic.last_arrive = b->ic.read_free = b->ic.write_free = b->sched.now;
	b->load.next_t = b->sched.now;
	/* the PL clock's edges, anchored at now too (no draw: the other streams stay put) */
	vb_edge_origin(&b->clk, b->sched.now);
	if (b->trace.on) {                   /* a trace spans one clock origin */
		vb_trace_set(&b->trace, true, b->clk.origin);
	}
	vb_pcie_reseed(b->pcie, &b->rng, b->sched.now);
}

void vb_destroy(vb_board *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < 2; i++)
		free(b->dma.ch[i].fetch_log);
	vb_memory_fini(&b->memory);
	vb_sink_fini(&b->sink);
	vb_source_fini(&b->src);
	vb_dac_fini(&b->dac);
	vb_trace_fini(&b->trace);
	vb_adc_fini(&b->adc);
	vb_coh_free(b->coh);
	vb_pcie_free(b->pcie);
	vb_rtio_free(b->rtio);
	vb_scratch_free(&b->dma.scratch);
	free(b);
}
