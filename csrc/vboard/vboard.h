/*
 * vboard.h - the sgdma virtual board: an FPGA SoC's AXI DMA, its memory and
 * stream endpoints, register-exact and in virtual time.
 *
 * Time is in picoseconds.  It advances with every CPU MMIO access (the preset's
 * per-access cost) and with vb_advance_ps(); the model does its work lazily up to
 * "now" whenever it is observed (vb_sync).  All randomness comes from one
 * seeded generator, so a seed fixes every number.
 *
 * Hosted C (uses libc and mmap); the driver core never includes this file.
 */
#ifndef SGDMA_VBOARD_H
#define SGDMA_VBOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sgdma/platform.h"
#include "sgdma/sg_contract.h"
#include "base/time.h"
#include "dma/params.h"
#include "mem/cpuload.h"
#include "mem/dram.h"
#include "mem/ddrc.h"
#include "mem/ic.h"
#include "pcie/params.h"
#include "pl/adc.h"
#include "pl/dac.h"
#include "pl/rtio_params.h"
#include "pl/trace.h"

#define VB_MAX_REGIONS   8
#define VB_MAX_FAULTS    16
#define VB_NAME_LEN      32
#define VB_QDEPTH_MAX    16   /* dma.sg_prefetch limit */
#define VB_OUTSTANDING_MAX 64 /* dma.outstanding limit */
#define VB_GPIO_BLOCKS   3    /* CSM handshake, CSM counters, mailbox */
#define VB_DMA_SPAN      0x10000u  /* the AXI DMA's register window */
#define VB_GPIO_WINDOW   (VB_GPIO_BLOCKS * 0x10000u)   /* all GPIO blocks (CSM_GPIO_SPAN each) */

struct vb_region {
	char name[VB_NAME_LEN];
	uint64_t base;
	uint64_t size;
};

/* Build options and costs; every field is settable by its preset key. */
struct vb_config {
	char name[VB_NAME_LEN];
	/* AXI DMA build and its data path ("dma.<field>", dma/params.h) */
	struct vb_dma_params dma;
	/* interconnect between the DMA's masters and the memory controller ("ic.<field>", mem/ic.h) */
	struct vb_ic_params ic;
	/* DRAM controller + device timing ("dram.<field>"; enabled = 0: ideal memory) */
	struct vb_dram_params dram;
	/* DDR controller ports and arbitration ("ddrc.<field>"; scheme 0: in order) */
	struct vb_ddrc_params ddrc;
	/* CPU side */
	double mmio_read_ns;
	double mmio_write_ns;
	double cache_line_ns;
	unsigned cache_line_bytes;
	/* background CPU load ("cpu.load_<field>", mem/cpuload.h): a copy loop on another core as DRAM traffic */
	struct vb_cpuload_params cpu_load;
	/* address map */
	uint64_t gpio_base;
	struct vb_region ddr[VB_MAX_REGIONS];
	unsigned n_ddr;
	/* stream endpoints */
	unsigned loopback;            /* MM2S stream wired to S2MM input */
	unsigned sink_record;         /* keep MM2S packet bytes (0: timing only, no byte moves) */
	uint64_t sink_max_bytes;      /* cap of kept MM2S bytes (0: VB_SINK_MAX_BYTES) */
	double consumer_rate;         /* MM2S consumer: beats accepted per DMA clock (<= 1) */
	unsigned consumer_fifo_beats; /* its FIFO, in beats */
	/* PS-PCIe DMA, link and endpoint (csrc/vboard/pcie) */
	struct vb_pcie_params pcie;
	struct vb_rtio_params rtio;
	/* host process (not a preset key): map each DDR region at its physical
	 * address when the OS allows (bare-metal programs dereference them) */
	unsigned map_at_phys;
};

typedef struct vb_board vb_board;

enum vb_chan_id { VB_MM2S = SG_MM2S, VB_S2MM = SG_S2MM };   /* the contract's channel numbers */

void vb_config_defaults(struct vb_config *cfg);
/* Set by key ("dma.data_width", "ddr.pl.base", ...); -1 if the key is unknown. */
int vb_config_set(struct vb_config *cfg, const char *key, double value);
int vb_config_get(const struct vb_config *cfg, const char *key, double *value);
/* Load a preset file (the TOML subset presets use).  0 or -1 with err filled. */
int vb_config_load(struct vb_config *cfg, const char *path, char *err, size_t errlen);
/* Check consistency; 0 or -1 with a message naming the field and its limit. */
int vb_config_check(const struct vb_config *cfg, char *err, size_t errlen);

vb_board *vb_create(const struct vb_config *cfg, uint64_t seed, char *err, size_t errlen);
void vb_destroy(vb_board *b);
const struct vb_config *vb_get_config(const vb_board *b);

/* CPU MMIO: charge the access cost, catch the model up, then access. */
uint32_t vb_read32(vb_board *b, uint64_t addr);
void vb_write32(vb_board *b, uint64_t addr, uint32_t value);

/* Time. */
uint64_t vb_now_ps(const vb_board *b);
void vb_advance_ps(vb_board *b, uint64_t ps);
void vb_sync(vb_board *b);
/* Run the model until both channels have nothing left to do or the limit;
 * returns the time reached (for benchmarks and timing-only runs). */
uint64_t vb_run_until_quiet(vb_board *b, uint64_t limit_ps);
/* Handle the earliest pending device event if it is due by limit_ps (time
 * jumps to it); false when nothing is. */
bool vb_step_next(vb_board *b, uint64_t limit_ps);
/* The CPU waits until done(ctx) holds or limit_ps (absolute); true if it holds. */
bool vb_run_until(vb_board *b, bool (*done)(void *ctx), void *ctx, uint64_t limit_ps);
/* Does addr fall in a device's register window (not DDR)? */
bool vb_bus_claims(const vb_board *b, uint64_t addr);
/* CPU accesses that decoded to no device and no memory (DECERR), and the last address. */
uint64_t vb_bus_decerrs(const vb_board *b, uint64_t *last_addr);

/* Illegal guest accesses to the AXI DMA registers, as QEMU logs guest errors:
 * each kind is logged once and counted (the access itself does nothing). */
enum vb_guest_error {
	VB_GE_RESERVED,        /* read or write of an offset that is no register of this build */
	VB_GE_READ_ONLY,       /* write to a read-only field (DMASR status bits; CURDESC while running) */
	VB_GE_MISALIGNED,      /* offset not a multiple of 4 */
	VB_GE_COUNT
};
struct vb_dma_guest_errors {
	uint64_t count[VB_GE_COUNT];
	uint32_t last_offset[VB_GE_COUNT];
	bool logged[VB_GE_COUNT];
};
const struct vb_dma_guest_errors *vb_dma_guest_errors(const vb_board *b);
const char *vb_guest_error_name(enum vb_guest_error kind);

/* Memory. */
void *vb_mem_ptr(vb_board *b, uint64_t addr, uint64_t len);
uint64_t vb_mem_addr(const vb_board *b, const void *host);
int vb_region_count(const vb_board *b);
const struct vb_region *vb_region_at(const vb_board *b, int i);
/* True if region i is mapped at its physical address in this process. */
bool vb_region_at_phys(const vb_board *b, int i);
/* Zero [addr, addr+len) of DDR (whole pages are dropped, not written). */
int vb_mem_zero(vb_board *b, uint64_t addr, uint64_t len);
/* Back [addr, addr+size) (page-aligned, inside one region) with fd from
 * offset 0, shared: other mappings of the file see the DMA's writes. */
int vb_mem_map_file(vb_board *b, uint64_t addr, uint64_t size, int fd, char *err, size_t errlen);
/* Make DMA accesses to [base, base+size) answer SLVERR. */
int vb_inject_slverr(vb_board *b, uint64_t base, uint64_t size);
void vb_clear_faults(vb_board *b);
/* CPU cache maintenance of a device range: charges time per line. */
void vb_cache_clean(vb_board *b, uint64_t addr, uint64_t len);
void vb_cache_invalidate(vb_board *b, uint64_t addr, uint64_t len);

/* PL DAC consumer of gate sequences: struct vb_dac in pl/dac.h */
void vb_dac_configure(vb_board *b, uint64_t beat_ps, uint64_t lead_ps, uint32_t fifo_beats);
const struct vb_dac *vb_dac_state(vb_board *b);

/* The MM2S stream's beats and the timing engine's GPIO writes: struct vb_trace in pl/trace.h */
void vb_trace_enable(vb_board *b, bool on);   /* on: forget what was recorded and record */
const struct vb_trace *vb_trace_state(vb_board *b);

/* ADC producer on the S2MM stream input: struct vb_adc in pl/adc.h */
void vb_adc_start(vb_board *b, double rate_sps, unsigned sample_bytes, uint64_t fifo_bytes, uint64_t packet_bytes);
void vb_adc_stop(vb_board *b);
const struct vb_adc *vb_adc_state(vb_board *b);

/* A CPU access with its own cost (the CPU model's): registers as MMIO, DDR
 * through the interconnect and DRAM model, so DDR refresh is visible. */
uint32_t vb_cpu_read32(vb_board *b, uint64_t addr, uint64_t cost_ps);
void vb_cpu_write32(vb_board *b, uint64_t addr, uint32_t value, uint64_t cost_ps);

/* Interrupt lines (DMASR IRQ bits AND their enables). */
bool vb_irq_pending(vb_board *b, enum vb_chan_id ch);
/* Step the board until the channel's interrupt line is up (true) or no event is left before limit_ps (absolute). */
bool vb_run_until_irq(vb_board *b, enum vb_chan_id ch, uint64_t limit_ps);

/* MM2S sink: packets recorded by TLAST. */
struct vb_packet {
	uint64_t offset;      /* into the sink's byte log */
	uint64_t length;
	uint64_t t_first_ps;  /* first beat (TVALID) */
	uint64_t t_last_ps;   /* TLAST beat (a cut packet: the last beat before the reset) */
	bool cut;             /* closed by a DMA reset before its TLAST: incomplete */
};
size_t vb_sink_count(vb_board *b);
const struct vb_packet *vb_sink_packet(vb_board *b, size_t i);
const uint8_t *vb_sink_data(vb_board *b);
uint64_t vb_sink_open_bytes(vb_board *b);  /* bytes of a packet still without TLAST */
void vb_sink_clear(vb_board *b);
/* Packets (and their bytes) the sink counted but did not keep: over
 * VB_SINK_MAX_BYTES / VB_SINK_MAX_PACKETS or out of host memory. */
void vb_sink_overflow(vb_board *b, uint64_t *packets, uint64_t *bytes);

/* S2MM source: queue bytes for the S2MM stream input at the current time. */
/* 0, or -1: an empty send with nothing queued to mark, or no host memory for the bytes. */
int vb_source_send(vb_board *b, const void *data, size_t len, bool last);
uint64_t vb_source_pending(vb_board *b);
/* A live consumer of MM2S's stream (co-simulation): while on, the DMA's beats leave
 * only when vb_mm2s_accept takes them.  Switched while MM2S has no BD queued (-1 otherwise). */
int vb_mm2s_live(vb_board *b, bool on);
/* When the next beat can be offered (ps), VB_NO_TIME if none is ready yet. */
uint64_t vb_mm2s_offer(vb_board *b);
/* The consumer took the next beat at t_ps (runs the model to it first); *last: TLAST.
 * -1 when no beat is offered by then. */
int vb_mm2s_accept(vb_board *b, uint64_t t_ps, bool *last);
/* The next MM2S beat a live consumer may take (api_plport.c): its bytes into dst
 * (the stream's width; the keyhole bit honoured), how many are valid (TKEEP) and
 * TLAST.  -1 when no beat is queued; -2 when its buffer is no longer memory; -3 when
 * the stream is wider than VB_MM2S_BEAT_MAX. */
#define VB_MM2S_BEAT_MAX 128      /* bytes: dst's size (a 1024-bit stream) */
struct vb_mm2s_beat {
	uint32_t width, nbytes;   /* the stream's bytes per beat, of which valid */
	bool last;
};
int vb_mm2s_peek(vb_board *b, uint8_t *dst, struct vb_mm2s_beat *out);
/* The DMA clock: the time of edge 0 and the period (ps). */
void vb_dma_clock(vb_board *b, uint64_t *origin_ps, double *period_ps);

/* Counters for tests and benchmarks. */
struct vb_stats {
	uint64_t bd_fetches, bd_writebacks, data_bursts, bytes_moved, packets, mmio_reads, mmio_writes;
	uint64_t irq_ioc, irq_dly, irq_err;   /* interrupt events raised (threshold reached, delay timeout, error) */
};

/* Event times (ps) of the channel's latest run, for characterization: reset
 * by each tail write (SG) or LENGTH write (simple).  VB_NO_TIME until seen. */
struct vb_probe {
	uint64_t t_kick;        /* the triggering register write */
	uint64_t t_sg_ar;       /* first BD read address (m_axi_sg_arvalid) */
	uint64_t t_data_ar;     /* first data address (m_axi_mm2s_arvalid / m_axi_s2mm_awvalid) */
	uint64_t t_first_beat;  /* first stream beat (MM2S out / S2MM in) */
	uint64_t t_last_beat;   /* latest beat so far: MM2S stream side, S2MM WLAST */
	uint64_t bytes;         /* payload bytes since the kick */
};
void vb_get_probe(vb_board *b, enum vb_chan_id ch, struct vb_probe *out);
/* The channel's BD fetches since the last clear: n (issue, data back) ps pairs;
 * *dropped counts fetches past the log's bound (VB_FETCH_LOG_MAX). */
const uint64_t *vb_fetch_log(vb_board *b, enum vb_chan_id ch, size_t *n, uint64_t *dropped);
void vb_fetch_log_clear(vb_board *b, enum vb_chan_id ch);
/* New seed for the next trial: the generator and the DRAM's refresh phase
 * (and bank state) are redrawn; time and memory contents stay. */
void vb_reseed(vb_board *b, uint64_t seed);
/* The CPU waits in standby (no bus traffic) until the timing engine (csm.c)
 * is DONE or limit_ps of virtual time has passed; true if DONE. */
bool vb_run_until_csm_done(vb_board *b, uint64_t limit_ps);
struct vb_dram_stats;
const struct vb_dram_stats *vb_dram_stats(vb_board *b);
/* The controller's per-port counters (enum vb_ddrc_port), NULL if port is out of range. */
const struct vb_ddrc_port_stats *vb_ddrc_stats(vb_board *b, unsigned port);
uint64_t vb_next_refresh(vb_board *b, uint64_t t_ps);
void vb_get_stats(vb_board *b, enum vb_chan_id ch, struct vb_stats *out);

/* A PL AXI master on the board's PS port (api_plport.c): the board first runs
 * up to the master's time, then the burst takes the board's PL memory path.
 * Returns 0 (OKAY), 1 (DECERR) or 2 (SLVERR); times in ps. */
struct vb_pl_xfer { uint64_t t_issue, t_first, t_done; };   /* write: t_done = B */
int vb_pl_read(vb_board *b, uint64_t t_ps, uint64_t addr, uint32_t len, void *dst, struct vb_pl_xfer *out);
int vb_pl_write(vb_board *b, uint64_t t_aw_ps, uint64_t t_wlast_ps, uint64_t addr, uint32_t len, const void *src,
		struct vb_pl_xfer *out);
/* PL-to-PS interrupt inputs IRQ_F2P[7:0] (UG585 Table 7-4; pl_ps_irq0 on ZynqMP): [0] and [1]
 * are the AXI DMA's MM2S and S2MM lines (their channels drive them), the others a co-simulated
 * RTL's.  vb_pl_irq_set: the line's level from t_ps (the board runs up to it first); -1 for
 * [0]/[1] or a line past 7.  vb_pl_irq_get: its level now, the time it last rose and how often. */
#define VB_F2P_LINES 8
int vb_pl_irq_set(vb_board *b, unsigned line, bool level, uint64_t t_ps);
int vb_pl_irq_get(vb_board *b, unsigned line, bool *level, uint64_t *rose_ps, uint64_t *rises);

/* Platform ops for the driver core; ctx = the board. */
const struct sg_platform_ops *vb_platform_ops(void);

#endif /* SGDMA_VBOARD_H */
