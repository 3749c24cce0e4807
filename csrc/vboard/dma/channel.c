/*
 * channel.c - the AXI DMA channel's state machine (PG021 v7.1): Halted, Idle
 * and running; errors that halt it; IOC/Delay/Err interrupts with threshold
 * coalescing and the delay timer; soft reset of the core.
 *
 * The register file (regs.c) calls in here when software writes DMACR,
 * TAILDESC or LENGTH.  The SG engine (sg.c) and the S2MM data mover (s2mm.c)
 * do the transactions and report what happened in a struct vb_report, which
 * apply() turns into DMASR/DMACR changes, in the order the hardware makes
 * them.  Timing never changes what the registers say, only when.
 */
#include <string.h>

#include "dma/channel.h"
#include "dma/functional.h"

static bool running(const struct vb_chan *c) { return !vb_chan_halted(c); }
static bool has_error(const struct vb_chan *c) { return (c->dmasr & PG021_SR_ERR_ALL) != 0; }
static unsigned threshold_of(uint32_t dmacr) { return SG_FIELD_GET(PG021_CR_THRESHOLD, dmacr); }
static unsigned delay_of(uint32_t dmacr) { return SG_FIELD_GET(PG021_CR_DELAY, dmacr); }

static void stream_arrived(void *consumer, uint64_t t);

/* ---- reset ------------------------------------------------------------------ */

static void chan_reset(struct vb_dma *d, struct vb_chan *c)
{
	enum vb_chan_id id = c->id;
	struct vb_stats stats = c->stats;
	uint64_t *log = c->fetch_log;          /* the report's log outlives a soft reset */
	size_t n_log = c->n_fetch_log, cap_log = c->cap_fetch_log, dropped = c->fetch_log_dropped;

	memset(c, 0, sizeof(*c));
	c->id = id;
	c->stats = stats;
	c->fetch_log = log, c->n_fetch_log = n_log, c->cap_fetch_log = cap_log, c->fetch_log_dropped = dropped;
	c->dmacr = PG021_CR_RESET_VALUE;
	c->dmasr = PG021_SR_HALTED | (vb_sg(d) ? PG021_SR_SGINCLD : 0);
	c->phase = PH_HALTED;
	c->t_next = VB_NO_TIME;
	c->thr_count = threshold_of(c->dmacr);
	c->dly_deadline = VB_NO_TIME;
}

void vb_dma_reset(struct vb_dma *d)
{
	d->ch[VB_MM2S].id = VB_MM2S;
	d->ch[VB_S2MM].id = VB_S2MM;
	chan_reset(d, &d->ch[VB_MM2S]);
	chan_reset(d, &d->ch[VB_S2MM]);
	d->reset_until = VB_NO_TIME;
	d->next_valid = false;
	d->rx.arrived = stream_arrived;
	d->rx.consumer = d;
	vb_stream_reset(&d->tx, &d->rx);   /* the reset outputs reach what machine.c wired to the streams */
}

/* Soft reset: the whole core, both channels, once in-flight transactions end. */
void vb_dma_soft_reset(struct vb_dma *d)
{
	uint64_t until = d->sched->now;
	for (int i = 0; i < 2; i++) {
		struct vb_chan *c = &d->ch[i];
		if (vb_is_mm2s(c) && vb_chan_busy(c)) {
			uint64_t end = vb_sg_mm2s_abort(c);
			if (end > until)
				until = end;
		} else if ((c->phase == PH_FETCH || c->phase == PH_DATA || c->phase == PH_WRITEBACK) &&
			   c->t_next > until) {
			until = c->t_next;
		}
		c->phase = PH_HALTED;   /* in-flight results are discarded */
		c->t_next = VB_NO_TIME;
		c->dly_deadline = VB_NO_TIME;
		c->dmacr |= PG021_CR_RESET;
	}
	d->reset_until = until + vb_dma_clocks(d, d->prm->reset_clocks);
}

/* ---- state changes ---------------------------------------------------------- */

static void chan_halt(struct vb_chan *c)
{
	c->phase = PH_HALTED;
	c->t_next = VB_NO_TIME;
	c->stopping = false;
	c->dmasr |= PG021_SR_HALTED;
}

/* Any error halts the channel gracefully: RS cleared, Halted, Err_Irq. */
static void chan_error(struct vb_chan *c, uint32_t sr_bits)
{
	c->stats.irq_err++;
	c->dmasr |= sr_bits | PG021_SR_ERR_IRQ;
	c->dmasr &= ~PG021_SR_IDLE;
	c->dmacr &= ~PG021_CR_RS;
	chan_halt(c);
}

/* An error of the BD at bd_addr: DMASR bit(s), CURDESC on the BD, and for
 * data-side errors (bd_bit != 0) the BD's STATUS error bit. */
static void data_error(struct vb_dma *d, struct vb_chan *c, uint64_t bd_addr, uint32_t sr_bit, uint32_t bd_bit,
		       uint32_t bytes)
{
	if (vb_sg(d)) {
		if (bd_bit)
			(void)vb_bd_store_status(d, bd_addr, bd_bit | (bytes & PG021_BD_LEN_MASK));
		c->curdesc = bd_addr;
	}
	chan_error(c, sr_bit);
}

static void chan_idle(struct vb_chan *c)
{
	c->phase = PH_IDLE;
	c->t_next = VB_NO_TIME;
	c->dmasr |= PG021_SR_IDLE;
}

/* The work up to the pause point is done: Idle, then Halted if software
 * cleared RS meanwhile (the halt does not undo the Idle condition). */
static void chan_done(struct vb_chan *c)
{
	bool stop = c->stopping;

	chan_idle(c);
	if (stop)
		chan_halt(c);
}

/* ---- interrupts ------------------------------------------------------------- */

/* The delay timer runs only between packets: a new packet stops it (PG021:
 * it resets on receipt of a new packet); the packet's end restarts it. */
static void packet_begins(struct vb_chan *c)
{
	c->dly_deadline = VB_NO_TIME;
}

/* One completed packet (EOF BD, or a simple-mode transfer). */
static void irq_packet(struct vb_dma *d, struct vb_chan *c, uint64_t t)
{
	unsigned delay = delay_of(c->dmacr);

	c->stats.packets++;
	if (!vb_sg(d)) {
		c->dmasr |= PG021_SR_IOC_IRQ;
		c->stats.irq_ioc++;
		return;
	}
	c->pending_pkts++;
	if (--c->thr_count == 0) {
		c->dmasr |= PG021_SR_IOC_IRQ;
		c->stats.irq_ioc++;
		c->thr_count = threshold_of(c->dmacr);
		c->pending_pkts = 0;
		c->dly_deadline = VB_NO_TIME;
	} else if (delay) {
		c->dly_deadline = t + vb_dma_clocks(d, (double)delay * d->prm->dly_timer_resolution);
	}
}

/* n packets completed at once (a functional batch): what n calls of irq_packet do, by whole thresholds. */
static void irq_packets(struct vb_dma *d, struct vb_chan *c, uint64_t t, uint32_t n)
{
	unsigned thr = threshold_of(c->dmacr);

	if (n > 1 && vb_sg(d) && thr && c->thr_count && n >= c->thr_count) {
		uint32_t after = n - c->thr_count;          /* packets after the first threshold reached */
		c->stats.packets += n - after % thr;
		c->stats.irq_ioc += 1 + after / thr;
		c->dmasr |= PG021_SR_IOC_IRQ;
		c->thr_count = thr;
		c->pending_pkts = 0;
		c->dly_deadline = VB_NO_TIME;
		n = after % thr;
	}
	if (n > 1 && vb_sg(d) && c->thr_count > n) {      /* counted down short of the threshold */
		c->stats.packets += n - 1;
		c->pending_pkts += n - 1;
		c->thr_count -= n - 1;
		n = 1;
	}
	while (n--)
		irq_packet(d, c, t);
}

static void irq_delay_fired(struct vb_chan *c)
{
	c->stats.irq_dly++;
	c->dmasr |= PG021_SR_DLY_IRQ;
	c->thr_count = threshold_of(c->dmacr);
	c->pending_pkts = 0;
	c->dly_deadline = VB_NO_TIME;
}

/* DMASR as read: the stored bits with the live coalescing counters. */
uint32_t vb_chan_dmasr(const struct vb_dma *d, const struct vb_chan *c)
{
	uint32_t sr = c->dmasr & ~(PG021_SR_THRESHOLD_STS | PG021_SR_DELAY_STS);
	uint64_t dly = 0;

	sr |= SG_FIELD_PREP(PG021_SR_THRESHOLD_STS, c->thr_count);
	if (c->dly_deadline != VB_NO_TIME) {
		uint64_t unit = vb_dma_clocks(d, d->prm->dly_timer_resolution);
		uint64_t span = vb_dma_clocks(d, (double)delay_of(c->dmacr) * d->prm->dly_timer_resolution);
		uint64_t start = c->dly_deadline - span;
		if (unit && d->sched->now > start)
			dly = (d->sched->now - start) / unit;
		if (dly > 255)
			dly = 255;
	}
	return sr | SG_FIELD_PREP(PG021_SR_DELAY_STS, dly);
}

/* What the SG engine or a data mover reported, in the hardware's order. */
static void apply(struct vb_dma *d, struct vb_chan *c, const struct vb_report *r)
{
	if (!r->ev)
		return;
	if (r->ev & VB_EV_SG_ERROR)
		chan_error(c, r->sr);
	if (r->ev & VB_EV_DATA_ERROR)
		data_error(d, c, r->bd_addr, r->sr, r->bd_bit, r->bytes);
	if (r->ev & VB_EV_PACKET_BEGINS)
		packet_begins(c);
	if (r->ev & VB_EV_PACKET_DONE)
		irq_packets(d, c, r->t, r->packets ? r->packets : 1);   /* a functional batch: several */
	if (r->ev & VB_EV_PACKET_OPEN)
		packet_begins(c);
	if (r->ev & VB_EV_IDLE)
		chan_done(c);
	if (r->ev & VB_EV_HALT)
		chan_halt(c);
}

/* ---- starting and stopping -------------------------------------------------- */

static void probe_kick(struct vb_dma *d, struct vb_chan *c)
{
	c->probe = (struct vb_probe){ .t_kick = d->sched->now, .t_sg_ar = VB_NO_TIME, .t_data_ar = VB_NO_TIME,
				      .t_first_beat = VB_NO_TIME, .t_last_beat = VB_NO_TIME };
}

/* A tail write while the engine waits restarts fetching from next_bd. */
static void sg_kick(struct vb_dma *d, struct vb_chan *c)
{
	probe_kick(d, c);
	c->dmasr &= ~PG021_SR_IDLE;
	c->first_after_kick = true;
	c->fun.on = vb_fun_eligible(d, c);
	if (c->fun.on) {
		vb_fun_kick(d, c);
		return;
	}
	if (vb_is_mm2s(c)) {
		c->phase = PH_DATA;
		vb_sg_mm2s_kick(d, c);
		return;
	}
	vb_sg_s2mm_fetch(d, c, d->sched->now);
}

static void simple_start(struct vb_dma *d, struct vb_chan *c)
{
	probe_kick(d, c);
	c->dmasr &= ~PG021_SR_IDLE;
	c->filled = 0;
	c->bd_eof = false;
	c->in_packet = false;
	c->fun.on = false;
	if (vb_is_mm2s(c)) {
		c->phase = PH_DATA;
		vb_sg_mm2s_simple(d, c);
		return;
	}
	c->bd_len = c->length;
	c->phase = PH_STREAM_WAIT;
	/* PG021 gives no LENGTH-write → ready figure: assume the tail-write → SG AR one. */
	c->t_next = d->sched->now + d->lat.tail_to_sg_ar;
}

/* DMACR written (now = the value the register file accepted). */
void vb_chan_control(struct vb_dma *d, struct vb_chan *c, uint32_t old, uint32_t now)
{
	c->dmacr = now;
	c->thr_count = threshold_of(now);          /* reloaded on a software write */
	if (delay_of(now) == 0)
		c->dly_deadline = VB_NO_TIME;

	if (!(old & PG021_CR_RS) && (now & PG021_CR_RS) && vb_chan_halted(c) && !has_error(c)) {
		c->dmasr &= ~PG021_SR_HALTED;
		c->cyclic = (now & PG021_CR_CYCLIC) != 0;
		c->stopping = false;
		c->phase = PH_IDLE;
	} else if (!(old & PG021_CR_RS) && (now & PG021_CR_RS) && c->stopping) {
		c->stopping = false;  /* RS set again before the halt took effect: keep running */
		if (vb_is_mm2s(c) && !c->fun.on)
			vb_sg_mm2s_tail_moved(d, c);
	} else if ((old & PG021_CR_RS) && !(now & PG021_CR_RS) && running(c)) {
		/* In-flight work completes, then Halted.  A BD only waiting for
		 * stream data has nothing in flight. */
		if (c->phase == PH_IDLE || c->phase == PH_STREAM_WAIT) {
			chan_halt(c);
		} else {
			c->stopping = true;
			if (vb_is_mm2s(c) && !c->fun.on) {
				struct vb_report r = { 0 };
				vb_sg_mm2s_stop(d, c, &r);
				apply(d, c, &r);
			}
		}
	}
}

void vb_chan_tail_written(struct vb_dma *d, struct vb_chan *c)
{
	/* Halted: the register only records it.  Busy: the pause point moves. */
	if (running(c) && c->phase == PH_IDLE)
		sg_kick(d, c);
	else if (running(c) && vb_chan_busy(c) && vb_is_mm2s(c) && !c->fun.on)
		vb_sg_mm2s_tail_moved(d, c);   /* a functional run reads the tail at its next batch */
}

void vb_chan_length_written(struct vb_dma *d, struct vb_chan *c, uint32_t v)
{
	if (vb_chan_busy(c))
		return;               /* a transfer is under way: the write is ignored */
	c->length = v & d->len_mask;
	if (running(c) && c->length)
		simple_start(d, c);
}

/* ---- the engine's clock ----------------------------------------------------- */

/* S2MM in simple mode: the data mover fills DA; LENGTH reports the bytes. */
static void s2mm_simple_step(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	if (c->phase != PH_DATA && c->phase != PH_STREAM_WAIT) {
		c->t_next = VB_NO_TIME;
		return;
	}
	if (vb_s2mm_step(d, c, t, r) != VB_S2MM_FULL)
		return;
	c->length = c->filled;
	vb_report_packet_done(r, t);
	r->ev |= VB_EV_IDLE;
}

/* When a channel next has something to do. */
static uint64_t chan_next(const struct vb_dma *d, struct vb_chan *c)
{
	if (!vb_chan_busy(c))
		return VB_NO_TIME;
	return vb_is_mm2s(c) && !c->fun.on ? vb_sg_mm2s_next_event(d, c) : c->t_next;
}

static bool mm2s_alone(const struct vb_dma *d);

/* The core's next event, kept in dma_next: only a step, a register write, a
 * reset or a stream arrival can move it (each clears dma_next_valid). */
static uint64_t next_event_scan(struct vb_dma *d)
{
	uint64_t t = d->reset_until;

	for (int i = 0; i < 2; i++) {
		struct vb_chan *c = &d->ch[i];
		uint64_t n = chan_next(d, c);
		if (n < t)
			t = n;
		if (c->dly_deadline < t)
			t = c->dly_deadline;
	}
	d->next = t;
	d->next_valid = true;
	d->next_alone = mm2s_alone(d);
	return t;
}

/* Out of line: inlined, the scan's register saves would be paid on every cached answer too. */
__attribute__((noinline)) uint64_t vb_dma_next_event_scan(struct vb_dma *d) { return next_event_scan(d); }

/* Only the MM2S SG queue has events: S2MM not busy, no delay timer running,
 * no soft reset, MM2S timed (not functional).  A transmit run spends its
 * steps here; such a step needs neither the delay-timer checks nor the scan
 * of S2MM, and what it does is the general loop's (S2MM's turn is a no-op). */
static bool mm2s_alone(const struct vb_dma *d)
{
	const struct vb_chan *m = &d->ch[VB_MM2S], *s = &d->ch[VB_S2MM];

	return !vb_dma_resetting(d) && !vb_chan_busy(s) && s->dly_deadline == VB_NO_TIME &&
	       m->dly_deadline == VB_NO_TIME && !m->fun.on;
}

/* Whatever can end mm2s_alone (a register write, a reset, a stream arrival,
 * a step's report) also clears next_valid, so a valid next_alone still holds. */
static bool mm2s_alone_now(const struct vb_dma *d)
{
	return d->next_valid ? d->next_alone : mm2s_alone(d);
}

static void mm2s_alone_step(struct vb_dma *d, uint64_t t)
{
	struct vb_chan *c = &d->ch[VB_MM2S];
	struct vb_report r = { 0 };

	if (vb_chan_busy(c))
		vb_sg_mm2s_step(d, c, t, &r);   /* acts only if its next event is t */
	/* a step touches only MM2S's queue; what it reports may start a delay
	 * timer or end the run, so only then is mm2s_alone asked again */
	if (r.ev) {
		apply(d, c, &r);
		if (!mm2s_alone(d)) {
			next_event_scan(d);
			return;
		}
	}
	d->next = chan_next(d, c);
	d->next_valid = true;
	d->next_alone = true;
}

void vb_dma_step(struct vb_dma *d, uint64_t t)
{
	if (mm2s_alone_now(d)) {
		d->next_valid = false;
		mm2s_alone_step(d, t);
		return;
	}
	d->next_valid = false;
	if (vb_dma_resetting(d)) {
		if (t >= d->reset_until)
			vb_dma_reset(d);
		return; /* nothing else moves while the core resets */
	}
	for (int i = 0; i < 2; i++) {
		struct vb_chan *c = &d->ch[i];
		if (c->dly_deadline == t) {
			/* the timer runs only between packets */
			if (vb_is_mm2s(c) && vb_sg_mm2s_packet_active(c, t))
				c->dly_deadline = VB_NO_TIME;
			else
				irq_delay_fired(c);
		}
		if (chan_next(d, c) != t)
			continue;
		struct vb_report r = { 0 };
		if (c->fun.on)
			vb_fun_step(d, c, t, &r);
		else if (vb_is_mm2s(c))
			vb_sg_mm2s_step(d, c, t, &r);
		else if (vb_sg(d))
			vb_sg_s2mm_step(d, c, t, &r);
		else
			s2mm_simple_step(d, c, t, &r);
		if (r.ev)
			apply(d, c, &r);
	}
	next_event_scan(d);   /* asked for next, found while this step's state is at hand */
}

/* Stream data reached the S2MM input (the rx link's producer calls this hook):
 * a waiting channel wakes. */
static void stream_arrived(void *consumer, uint64_t t)
{
	struct vb_dma *d = consumer;
	struct vb_chan *c = &d->ch[VB_S2MM];
	d->next_valid = false;
	if (c->phase == PH_STREAM_WAIT && (c->t_next == VB_NO_TIME || c->t_next > t))
		c->t_next = t;
}
