/*
 * cpuload.c - a background CPU load as a memory master: a copy loop on another
 * core whose cache-line fills (reads of its source) and write-backs (writes of
 * its destination) reach the DRAM controller through the CPU/L2 port at a
 * steady rate (cpu.load_mbps) in 4 KiB runs of reads or of writes, competing with the DMA for banks and the data
 * bus.  Open loop: the loop's request times do not depend on how fast the
 * DRAM answers (a rate the caller chose, not a closed-loop copy).
 *
 * Lazy: the controller (ddrc.c) takes its requests (vb_cpuload_take) only up
 * to the time it is deciding another master's request, so an idle board costs
 * nothing.  A full CPU port FIFO stalls the loop (vb_cpuload_stall): under a
 * saturated controller the open loop becomes closed.
 */
#include "mem/cpuload.h"

void vb_cpuload_init(struct vb_cpuload *l, const struct vb_cpuload_params *p, unsigned line_bytes, bool have_ddr,
		     uint64_t ddr0_base, uint64_t ddr0_size)
{
	double period;

	*l = (struct vb_cpuload){ .read_fraction = p->read_fraction };
	if (!(p->mbps > 0) || !have_ddr)
		return;
	l->bytes = p->bytes ? p->bytes : line_bytes;
	period = (double)l->bytes / p->mbps * 1e6 + 0.5;   /* B / (B/us) -> ps */
	/* a vanishing rate: one request per 2^62 ps (never, in any run) rather than an out-of-range cast */
	l->period_ps = period < 0x1p62 ? (uint64_t)period : (uint64_t)1 << 62;
	if (l->period_ps == 0)
		l->period_ps = 1;
	l->span = 1u << 20;         /* 1 MiB source + 1 MiB destination */
	l->base = p->base;
	if (!l->base)
		l->base = ddr0_base + (ddr0_size > 2 * l->span ? ddr0_size - 2 * l->span : 0);
}

/* The loop works in 4 KiB runs, as a copy does page by page: a run of line
 * fills from the source or a run of write-backs to the destination.  Run k is
 * a read run when the running read share crosses an integer there (a
 * deterministic mix with the configured fraction). */
#define RUN_BYTES 4096u

static bool is_read(const struct vb_cpuload *l, uint64_t i)
{
	double f = l->read_fraction;
	uint64_t k = i / (RUN_BYTES / l->bytes ? RUN_BYTES / l->bytes : 1);
	return (uint64_t)((double)(k + 1) * f) > (uint64_t)((double)k * f);
}

bool vb_cpuload_take(struct vb_cpuload *l, uint64_t t, struct vb_ddrc_req *r)
{
	bool rd;
	uint64_t n;

	if (!l->period_ps || l->next_t >= t)
		return false;
	rd = is_read(l, l->i);
	n = rd ? l->reads++ : l->writes++;
	*r = (struct vb_ddrc_req){ .t = l->next_t, .addr = l->base + (rd ? 0 : l->span) + (n * l->bytes) % l->span,
				   .len = l->bytes, .write = !rd };
	l->i++;
	l->next_t += l->period_ps;
	return true;
}

/* The copy loop stalls while the CPU port's FIFO is full: it resumes at t at its rate. */
void vb_cpuload_stall(struct vb_cpuload *l, uint64_t t)
{
	if (l->next_t < t)
		l->next_t = t;
}
