/*
 * rtio_input.c - RTIO input channels [artiq-rtio.md sec. 1.2, 1.3]: each TTL
 * channel's pin is gated by its sensitivity (rising/falling, set by output
 * events at address 2 and 3 when they leave), a gated edge becomes an input
 * event (timestamp of the edge, data = the new level) in the channel's input
 * FIFO, readable input_latency_cycles later; a full FIFO loses the event and
 * sets a sticky overflow that the next read reports (and clears).  The CRI
 * read (KI i_timeout write) returns the oldest event, or overflow, or times
 * out once the counter reaches i_timeout.  Address 3 also samples the level.
 *
 * A pin changes by its stimulus (host-given transitions) or by a loopback from
 * an output channel's level, as on ARTIQ's TTL loopback test setups.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl/rtio_analyzer.h"
#include "pl/rtio_input.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static bool is_input(const struct vb_rtio *r, uint32_t chan) { return chan < r->p.ttl_channels; }

int rtio_in_new(struct vb_rtio *r)
{
	struct rtio_input *in = &r->in;
	in->ch = calloc(r->p.ttl_channels ? r->p.ttl_channels : 1, sizeof(*in->ch));
	if (!in->ch)
		return -1;
	for (unsigned c = 0; c < r->p.ttl_channels; c++) {
		in->ch[c].loop_to = -1;
		if (!(in->ch[c].q = calloc(r->p.input_fifo_depth, sizeof(*in->ch[c].q))))
			return -1;
	}
	return 0;
}

void rtio_in_free(struct vb_rtio *r)
{
	if (!r->in.ch)
		return;
	for (unsigned c = 0; c < r->p.ttl_channels; c++) {
		free(r->in.ch[c].q);
		free(r->in.ch[c].st_t);
		free(r->in.ch[c].st_v);
	}
	free(r->in.ch);
}

/* Gates closed, FIFOs empty, pins low; the stimulus and loopback wiring are the bench's, they stay. */
void rtio_in_reset(struct vb_rtio *r)
{
	struct rtio_input *in = &r->in;
	for (unsigned c = 0; c < r->p.ttl_channels; c++) {
		struct rtio_inchan *ch = &in->ch[c];
		ch->sens = ch->level = 0;
		ch->overflow = false;
		ch->head = ch->n = 0;
	}
	in->busy = false;
	in->status = in->data = 0;
	in->ts = 0;
	in->events = in->lost = in->reads = in->timeouts = in->overflows = 0;
}

static void push(struct vb_rtio *r, struct rtio_inchan *ch, int64_t ts, uint32_t data)
{
	struct rtio_input_event *e;
	if (ch->n >= r->p.input_fifo_depth) {
		ch->overflow = true;   /* the event is lost; the next read reports it */
		r->in.lost++;
		return;
	}
	e = &ch->q[(ch->head + ch->n) % r->p.input_fifo_depth];
	e->ts = ts;
	e->data = data;
	e->avail = rtio_emit_ps(r, ts) + r->p.input_latency_cycles * r->coarse_ps;
	ch->n++;
	r->in.events++;
}

static void pin(struct vb_rtio *r, unsigned c, int64_t ts, uint8_t level)
{
	struct rtio_inchan *ch = &r->in.ch[c];
	level &= 1;
	if (level == ch->level)
		return;
	ch->level = level;
	if (ch->sens & (level ? RTIO_SENSITIVITY_RISING : RTIO_SENSITIVITY_FALLING))
		push(r, ch, ts, level);
}

void rtio_in_output(struct vb_rtio *r, const struct rtio_event *ev)
{
	struct rtio_inchan *ch;
	if (!is_input(r, ev->chan))
		return;
	ch = &r->in.ch[ev->chan];
	switch (ev->addr) {
	case RTIO_TTL_ADDR_LEVEL:
		if (ch->loop_to >= 0)
			pin(r, (unsigned)ch->loop_to, ev->ts, (uint8_t)ev->data[0]);
		break;
	case RTIO_TTL_ADDR_SENSITIVITY:
		ch->sens = ev->data[0] & (RTIO_SENSITIVITY_RISING | RTIO_SENSITIVITY_FALLING);
		break;
	case RTIO_TTL_ADDR_SAMPLE:
		ch->sens = ev->data[0] & (RTIO_SENSITIVITY_RISING | RTIO_SENSITIVITY_FALLING);
		push(r, ch, ev->ts, ch->level);
		break;
	default:
		break;
	}
}

/* The first time the counter has reached `timeout` (mu): its coarse cycle's start. */
static uint64_t timeout_ps(const struct vb_rtio *r, int64_t timeout)
{
	int64_t step = (int64_t)1 << r->p.fine_bits;
	uint64_t cycles;
	if (timeout <= 0)
		return 0;
	cycles = (uint64_t)(timeout / step) + (timeout % step != 0);
	return cycles > VB_NO_TIME / r->coarse_ps ? VB_NO_TIME : cycles * r->coarse_ps;   /* "never" */
}

void rtio_in_read(struct vb_rtio *r, uint32_t chan, int64_t timeout, uint64_t t)
{
	struct rtio_input *in = &r->in;
	if (in->busy) {
		fprintf(stderr, "sgdma rtio: CRI read on channel %u issued while the read on channel %u is in flight: "
			"ignored\n", chan, in->chan);
		return;
	}
	in->busy = true;
	in->chan = chan;
	in->timeout = timeout;
	in->t_ready = rtio_next_edge(r, t) + r->p.cri_read_cycles * r->coarse_ps;
	in->reads++;
}

static uint64_t read_due(const struct vb_rtio *r)
{
	const struct rtio_input *in = &r->in;
	const struct rtio_inchan *ch;
	uint64_t to = timeout_ps(r, in->timeout);
	if (in->chan >= r->nchan)
		return in->t_ready;
	if (!is_input(r, in->chan))
		return max64(in->t_ready, to);
	ch = &in->ch[in->chan];
	if (ch->overflow)
		return in->t_ready;
	if (ch->n)
		return max64(in->t_ready, min64(ch->q[ch->head].avail, to));
	return max64(in->t_ready, to);
}

uint64_t rtio_in_next(struct vb_rtio *r)
{
	struct rtio_input *in = &r->in;
	uint64_t t = in->busy ? read_due(r) : VB_NO_TIME;
	if (!in->stim_pending)
		return t;
	for (unsigned c = 0; c < r->p.ttl_channels; c++) {
		const struct rtio_inchan *ch = &in->ch[c];
		if (ch->st_i < ch->st_n)
			t = min64(t, rtio_emit_ps(r, ch->st_t[ch->st_i]));
	}
	return t;
}

static void complete(struct vb_rtio *r, uint64_t t)
{
	struct rtio_input *in = &r->in;
	struct rtio_inchan *ch;

	in->busy = false;
	if (in->chan >= r->nchan) {
		in->status = RTIO_I_STATUS_UNREACHABLE;
		return;
	}
	ch = is_input(r, in->chan) ? &in->ch[in->chan] : NULL;
	if (ch && ch->overflow) {
		/* overflow has priority over an event and a timeout (sec. 1.2); reading it clears it */
		ch->overflow = false;
		in->status = RTIO_I_STATUS_OVERFLOW;
		in->overflows++;
		rtio_an_exception(r, in->chan, RTIO_EXC_I_OVERFLOW, t);
		return;
	}
	if (ch && ch->n && ch->q[ch->head].avail <= t) {
		const struct rtio_input_event *e = &ch->q[ch->head];
		in->status = 0;
		in->ts = e->ts;
		in->data = e->data;
		ch->head = (ch->head + 1) % r->p.input_fifo_depth;
		ch->n--;
		rtio_an_input(r, in->chan, in->ts, in->data, t);
		return;
	}
	in->status = RTIO_I_STATUS_WAIT_EVENT;   /* the counter reached i_timeout first */
	in->timeouts++;
}

void rtio_in_step(struct vb_rtio *r, uint64_t t)
{
	struct rtio_input *in = &r->in;
	if (in->stim_pending) {
		for (unsigned c = 0; c < r->p.ttl_channels; c++) {
			struct rtio_inchan *ch = &in->ch[c];
			if (ch->st_i >= ch->st_n)
				continue;
			while (ch->st_i < ch->st_n && rtio_emit_ps(r, ch->st_t[ch->st_i]) <= t) {
				pin(r, c, ch->st_t[ch->st_i], ch->st_v[ch->st_i]);
				ch->st_i++;
			}
			if (ch->st_i == ch->st_n)
				in->stim_pending--;
		}
	}
	if (in->busy && read_due(r) <= t)
		complete(r, t);
}

/* ---- bench wiring (the host drives the pins) ---------------------------------------- */

int rtio_in_stimulus(struct vb_rtio *r, unsigned chan, const int64_t *t_mu, const uint8_t *level, size_t n,
			char *err, size_t errlen)
{
	struct rtio_inchan *ch;
	int64_t *tt;
	uint8_t *vv;

	if (!is_input(r, chan)) {
		snprintf(err, errlen, "input stimulus on channel %u: input channels are the TTL channels 0..%u", chan,
			 r->p.ttl_channels ? r->p.ttl_channels - 1 : 0);
		return -1;
	}
	for (size_t i = 1; i < n; i++)
		if (t_mu[i] <= t_mu[i - 1]) {
			snprintf(err, errlen, "input stimulus on channel %u: transition %zu at %lld mu is not after the "
				 "one before (%lld mu); give strictly increasing times", chan, i, (long long)t_mu[i],
				 (long long)t_mu[i - 1]);
			return -1;
		}
	if (n && rtio_emit_ps(r, t_mu[0]) < r->sched->now) {
		snprintf(err, errlen, "input stimulus on channel %u starts at %lld mu, behind the RTIO counter (%lld mu); "
			 "give transitions from now on", chan, (long long)t_mu[0],
			 (long long)rtio_counter_at(r, r->sched->now));
		return -1;
	}
	tt = malloc((n ? n : 1) * sizeof(*tt));
	vv = malloc(n ? n : 1);
	if (!tt || !vv) {
		free(tt);
		free(vv);
		snprintf(err, errlen, "out of host memory");
		return -1;
	}
	memcpy(tt, t_mu, n * sizeof(*tt));
	memcpy(vv, level, n);
	ch = &r->in.ch[chan];
	if (ch->st_i < ch->st_n)
		r->in.stim_pending--;
	free(ch->st_t);
	free(ch->st_v);
	ch->st_t = tt;
	ch->st_v = vv;
	ch->st_n = n;
	ch->st_i = 0;
	if (n)
		r->in.stim_pending++;
	r->nx_ok = false;
	return 0;
}

int vb_rtio_in_loopback(struct vb_rtio *r, unsigned out, int in, char *err, size_t errlen)
{
	if (!is_input(r, out) || (in >= 0 && !is_input(r, (uint32_t)in))) {
		snprintf(err, errlen, "loopback %u -> %d: both ends must be TTL channels 0..%u", out, in,
			 r->p.ttl_channels ? r->p.ttl_channels - 1 : 0);
		return -1;
	}
	r->in.loops += (in >= 0) - (r->in.ch[out].loop_to >= 0);
	r->in.ch[out].loop_to = in;
	return 0;
}
