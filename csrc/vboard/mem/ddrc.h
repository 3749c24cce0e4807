/*
 * ddrc.h - the DDR controller's ports, queues and arbitration, in front of the
 * DRAM model (dram.h).  Self-contained (no other vboard header), no allocation.
 *
 * Ports.  Every master reaches the DRAM through a controller port: "cpu" (the
 * CPU/L2 port: cache-line fills and write-backs, ACP behind the SCU on
 * Zynq-7000, the APU through the CCI on ZynqMP) and "pl" (the HP port the
 * DMA, RTIO and PCIe masters use).  Each port has a read and a write arbiter
 * port, as the Zynq-7000 DDRI's four AXI ports make eight (UG585 p.290).
 *
 * Scheme 0 (in order): requests are served in arrival order (FCFS); the
 * background CPU load's requests are merged in time order.
 *
 * Scheme 1 (arbitrated, the part's documented scheme; reference note
 * zynq-memory-system.md sec. 1.2 and 2.2).  Eager masters (the DMA, CPU
 * operations) are decided when they are made; the lazy background CPU load is
 * generated up to the time being decided into a bounded FIFO (ddrc.cpu_queue
 * requests; when it is full the CPU stalls and its later requests arrive
 * later).  The controller grants the next request when the data bus frees
 * (the DRAM's bus_free, "bus ready").  A queued request that can be granted
 * before the eager one arrives is granted; otherwise both wait at
 * D = max(eager arrival, bus ready) and the arbiter picks:
 *   aging counter  cnt = max(0, priority - clocks waited), clocks of the
 *                  controller (clock_ratio x the DRAM clock 1 / dram.tck_ns), where
 *                  a port waits from max(its request's arrival, its previous
 *                  grant in that direction): a grant reloads the counter;
 *   read vs write  (stages 2 and 3) the store of the other direction wins if
 *                  it is critical (waited >= its max_starve clocks and not
 *                  in its hard-non-critical window); else a counter at 0 of
 *                  the last direction, then of the other; else the last
 *                  direction stays;
 *   same direction an HPR read beats an LPR read unless the LPR store is
 *                  critical; a counter at 0 wins; else the lower top-5-bit
 *                  counter (cnt >> 5) wins; a tie goes round-robin (the port
 *                  not granted last; on one port, the older request).
 * A store served run_length requests while critical turns hard non-critical
 * for min_non_critical clocks.  The lazy CPU requests left in the queue are
 * granted before a later eager request when the bus frees before it arrives.
 * Granted requests reach the DRAM with issue = max(arrival, last issue), so
 * the DRAM sees nondecreasing times; a request the arbiter held back is
 * issued no earlier than the request that overtook it.
 *
 * Bounded: with aging (required in scheme 1) a waiting request's counter
 * reaches 0 after priority clocks, after which it wins or ties round-robin.
 * Fast path: with no lazy requests pending the eager request goes straight
 * to the DRAM; a single master costs what it cost before the controller.
 *
 * Not modelled (assumed away): page-match grant extension (Vivado programs a
 * page mask of 0, which disables it: reference note sec. 1.3), urgent/QoS
 * sidebands and VPR/VPW classes, the 32-entry CAMs' reordering inside a store
 * (the DRAM serves granted requests in order), the CPU's read and write
 * arbiter ports are one FIFO (its copy loop issues 4 KiB runs of one kind).
 */
#ifndef SGDMA_VBOARD_DDRC_H
#define SGDMA_VBOARD_DDRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem/request.h"

struct vb_dram;
struct vb_cpuload;

enum vb_ddrc_port { VB_PORT_CPU, VB_PORT_PL, VB_PORT_COUNT };
enum vb_ddrc_store { VB_STORE_LPR, VB_STORE_HPR, VB_STORE_WR, VB_STORE_COUNT };

#define VB_DDRC_QMAX 64u    /* ddrc.cpu_queue limit */

struct vb_ddrc_params {
	unsigned scheme;                           /* 0 in order (FCFS), 1 arbitrated */
	double clock_ratio;                        /* the counters' clock / the DRAM clock (1 / tCK) */
	unsigned aging;                            /* must be 1 in scheme 1 */
	unsigned rd_priority[VB_PORT_COUNT];       /* 10-bit start values, 0 = highest */
	unsigned wr_priority[VB_PORT_COUNT];
	unsigned hpr[VB_PORT_COUNT];               /* the port's reads use the HPR store */
	unsigned max_starve[VB_STORE_COUNT];       /* clocks before a waiting store turns critical */
	unsigned run_length[VB_STORE_COUNT];       /* requests served while critical */
	unsigned min_non_critical[VB_STORE_COUNT]; /* clocks of hard non-critical after that */
	unsigned cpu_queue;                        /* the CPU port's FIFO depth (lazy requests held) */
};

struct vb_ddrc_port_stats {
	uint64_t reads, writes, bytes;
	uint64_t wait_ps, max_wait_ps;             /* arrival -> grant (time queued behind others) */
	uint64_t read_latency_ps, max_read_latency_ps;   /* arrival -> first read data */
	uint64_t write_latency_ps;                 /* arrival -> write done (last data written) */
	uint64_t overtaken;                        /* grants of another port while this one waited */
};

struct vb_ddrc {
	struct vb_ddrc_params p;
	uint64_t clk_ps;                           /* counter clock period (ps) */
	struct vb_ddrc_req q[VB_DDRC_QMAX];        /* the CPU port's held lazy requests (ring) */
	unsigned q_head, q_n;
	uint64_t started[VB_DDRC_QMAX];            /* scheme 0: data start of the CPU's last requests (ring) */
	uint64_t n_started;
	uint64_t last_grant[VB_PORT_COUNT][2];     /* [port][write]: last grant time (counter reload) */
	unsigned last_port;
	bool last_write;
	unsigned crit_served[VB_STORE_COUNT];
	uint64_t store_last[VB_STORE_COUNT];      /* last grant from each store (starvation timer reload) */
	uint64_t noncrit_until[VB_STORE_COUNT];
	struct vb_ddrc_port_stats stats[VB_PORT_COUNT];
	struct vb_dram *dram;                      /* the DRAM behind it and the lazy CPU load (machine.c wires) */
	struct vb_cpuload *load;
};

/* 0, or -1 with a message naming the "ddrc.<field>", the rule and the fix. */
int vb_ddrc_check(const struct vb_ddrc_params *p, char *err, size_t errlen);

#pragma GCC visibility push(hidden)

/* Reset at now (vb_reseed, with the DRAM); keeps the wiring.  tck_ns: the DRAM clock. */
void vb_ddrc_init(struct vb_ddrc *c, const struct vb_ddrc_params *p, double tck_ns, uint64_t now);
/* Every master's DRAM request enters through its port: returns its first data (read) / data accepted
 * (write), *t_done (may be NULL) its last data / write response. */
uint64_t vb_ddrc_request(struct vb_ddrc *c, enum vb_ddrc_port port, uint64_t t_arrive, uint64_t addr, uint32_t len,
			 bool write, uint64_t *t_done);

#pragma GCC visibility pop

#endif /* SGDMA_VBOARD_DDRC_H */
