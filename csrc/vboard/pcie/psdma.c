/*
 * psdma.c - the PS-PCIe DMA engine (UG1085 "DMA"): four channels, each with
 * SRC/DST element queues and STAS/STAD status queues, element caches of 8,
 * a 4-entry status FIFO, 512-byte transactions arbitrated round-robin among
 * channels, coalesced interrupts.  One read and one write dispatch; the
 * engine works in virtual time (next_event / step).  The same engine serves
 * as the root port's DMA (AXI = PS DDR) and the endpoint's (AXI = EP DDR).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pcie_types.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static const char *const qname[PSDMA_NQUEUES] = { "SRC", "DST", "STAS", "STAD" };

void pd_guest_error(struct vb_pcie *p, const char *fmt, ...)
{
	va_list ap;
	p->guest_errors++;
	fprintf(stderr, "sgdma virtual board: PS-PCIe DMA: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- tiny predicates ------------------------------------------------------ */

static bool enabled(const struct pd_chan *c) { return c->cntrl & PSDMA_CNTRL_ENABLE; }
static bool running(const struct pd_chan *c) { return enabled(c) && !c->errored; }
static bool q_enabled(const struct pd_queue *q) { return (q->ptrlo & PSDMA_QPTR_ENABLE) && q->sz; }
static bool q_axi(const struct pd_queue *q) { return q->ptrlo & PSDMA_QPTR_AXI; }
static uint64_t q_base(const struct pd_queue *q) { return ((uint64_t)q->ptrhi << 32) | (q->ptrlo & PSDMA_QPTR_ADDR_MASK); }
static uint32_t q_ahead(const struct pd_queue *q) { return q->sz ? (q->lmt + q->sz - q->nxt) % q->sz : 0; }
static uint32_t e_count(const struct pd_elem *e) { return e->ctrl & PSDMA_SD_COUNT; }
static bool e_axi(const struct pd_elem *e) { return e->ctrl & PSDMA_SD_AXI; }
static struct pd_elem *head(struct pd_chan *c, int q) { return &c->cache[q][c->ch_head[q]]; }
static bool is_root(const struct vb_psdma *d) { return d->side == PD_ROOT; }

static void pop(struct pd_chan *c, int q)
{
	c->ch_head[q] = (c->ch_head[q] + 1) % PSDMA_SD_CACHE;
	c->ch_n[q]--;
	c->off[q] = 0;
}

/* Reads across the link share the requester's tags: the earliest one to come back. */
static unsigned tag_first(const struct vb_psdma *d)
{
	unsigned k = 0;
	for (unsigned i = 1; i < d->p->prm.read_tags; i++)
		if (d->tag_free[i] < d->tag_free[k])
			k = i;
	return k;
}

static unsigned engine_txns(const struct vb_psdma *d)
{
	unsigned n = 0;
	for (unsigned i = 0; i < PSDMA_CHANNELS; i++)
		n += d->ch[i].t_n;
	return n;
}

static unsigned eop_in_flight(const struct pd_chan *c)
{
	unsigned n = 0;
	for (unsigned i = 0; i < c->t_n; i++)
		n += c->txn[(c->t_head + i) % PD_MAX_TXN].eop;
	return n;
}

/* ---- memory on either side --------------------------------------------------- */

static enum vb_access mem_read(struct vb_psdma *d, bool axi, uint64_t t, uint64_t a, uint32_t len,
			       enum pd_class cls, uint8_t **h, uint64_t *done)
{
	uint64_t first;
	if (axi)
		return pd_axi_read(d->p, d->side, t, a, len, cls, h, &first, done);
	return pd_pcie_read(d->p, d->side, t, a, len, cls, h, done);
}

/* *done: when the engine is finished with the write (a posted write once sent);
 * *landed (may be NULL): when the bytes are in the destination memory. */
static enum vb_access mem_write_l(struct vb_psdma *d, bool axi, uint64_t t, uint64_t a, uint32_t len,
				  enum pd_class cls, uint8_t **h, uint64_t *done, uint64_t *landed)
{
	uint64_t sent, land;
	enum vb_access acc;
	if (axi) {
		acc = pd_axi_write(d->p, d->side, t, a, len, cls, h, done);
		land = *done;
	} else {
		acc = pd_pcie_write(d->p, d->side, t, a, len, cls, h, &sent, &land);
		*done = sent;   /* posted */
	}
	if (landed)
		*landed = land;
	return acc == VB_ACC_OK ? VB_ACC_OK : acc;
}

static enum vb_access mem_write(struct vb_psdma *d, bool axi, uint64_t t, uint64_t a, uint32_t len,
				enum pd_class cls, uint8_t **h, uint64_t *done)
{
	return mem_write_l(d, axi, t, a, len, cls, h, done, NULL);
}

static const char *why_access(enum vb_access acc, bool axi)
{
	if (!axi)
		return acc == VB_ACC_DECERR ? "misses every BAR of the endpoint (Unsupported Request)"
					    : "completed with an error by the endpoint";
	return acc == VB_ACC_DECERR ? "decodes to no AXI memory on this side (a PCIe address needs bit 24 clear)"
				    : "answered SLVERR";
}

/* ---- errors ----------------------------------------------------------------- */

/* Any error stops the channel; the status element that reports it carries the
 * failing element's handle, and the AXI/PCIe error interrupt bit is set. */
static void chan_error(struct vb_psdma *d, struct pd_chan *c, unsigned queue, const struct pd_elem *e,
		       uint32_t sta_bit, uint64_t addr, uint64_t t, const char *why)
{
	struct vb_pcie *p = d->p;
	unsigned sq = queue == PSDMA_Q_DST ? PSDMA_Q_STAD : PSDMA_Q_STAS;
	struct pd_queue *q = &c->q[sq];
	uint8_t *h;
	uint64_t done;

	c->errored = true;
	c->t_n = 0;
	c->s_n = 0;
	if (is_root(d))
		c->axi_istat |= PSDMA_ISTAT_ERR;
	else
		c->pcie_istat |= PSDMA_ISTAT_ERR;
	p->err.valid = true;
	p->err.side = d->side;
	p->err.chan = c->idx;
	p->err.queue = queue;
	p->err.index = e ? e->index : 0;
	p->err.addr = addr;
	snprintf(p->err.why, sizeof(p->err.why), "%s", why);
	pd_guest_error(p, "%s DMA channel %u, %s queue element %u: address 0x%llx %s; channel stopped",
		       is_root(d) ? "root" : "endpoint", c->idx, qname[queue], p->err.index,
		       (unsigned long long)addr, why);
	if (!q_enabled(q) || q_ahead(q) == 0)
		return;
	if (mem_write(d, q_axi(q), t, q_base(q) + (uint64_t)q->nxt * PSDMA_STA_SIZE, PSDMA_STA_SIZE, PD_STATUS,
		      &h, &done) == VB_ACC_OK) {
		uint32_t w = PSDMA_STA_COMPLETED | sta_bit | PSDMA_STA_UPPER_NZ;
		uint16_t hd = e ? e->handle : 0, uid = e ? e->uid : 0;
		memcpy(h + PSDMA_STA_FLAGS, &w, 4);
		memcpy(h + PSDMA_STA_HANDLE, &hd, 2);
		memcpy(h + PSDMA_STA_UID, &uid, 2);
		q->nxt = (q->nxt + 1) % q->sz;
	}
}

/* ---- element fetch ------------------------------------------------------------ */

static bool fetch_startable(const struct pd_chan *c, int qi)
{
	const struct pd_queue *q = &c->q[qi];
	return running(c) && q_enabled(q) && !c->fetch[qi].busy && c->ch_n[qi] < PSDMA_SD_CACHE && q_ahead(q);
}

static void fetch_start(struct vb_psdma *d, struct pd_chan *c, int qi, uint64_t t)
{
	struct pd_queue *q = &c->q[qi];
	struct pd_fetch *f = &c->fetch[qi];
	uint32_t n = PSDMA_SD_CACHE - c->ch_n[qi];
	uint8_t *h;
	enum vb_access acc;

	if (n > q_ahead(q))
		n = q_ahead(q);
	if (n > q->sz - q->nxt)
		n = q->sz - q->nxt;          /* one read never wraps */
	acc = mem_read(d, q_axi(q), t, q_base(q) + (uint64_t)q->nxt * PSDMA_SD_SIZE, n * PSDMA_SD_SIZE, PD_ELEM,
		       &h, &f->t_done);
	if (!q_axi(q))
		d->tag_free[tag_first(d)] = f->t_done > t ? f->t_done : t;   /* an element read holds a tag too */
	if (acc != VB_ACC_OK) {
		struct pd_elem e = { .index = q->nxt };
		chan_error(d, c, qi, &e, PSDMA_STA_INT_ERR, q_base(q) + (uint64_t)q->nxt * PSDMA_SD_SIZE, t,
			   "(the queue) cannot be read");
		return;
	}
	f->busy = true;
	f->host = h;
	f->first = q->nxt;
	f->n = n;
	q->nxt = (q->nxt + n) % q->sz;
	c->fetches++;
}

static void fetch_done(struct pd_chan *c, int qi)
{
	struct pd_fetch *f = &c->fetch[qi];
	f->busy = false;
	for (uint32_t i = 0; i < f->n; i++) {
		struct pd_elem *e = &c->cache[qi][(c->ch_head[qi] + c->ch_n[qi]) % PSDMA_SD_CACHE];
		const uint8_t *h = f->host + (uint64_t)i * PSDMA_SD_SIZE;
		memcpy(&e->addr, h + PSDMA_SD_ADDR, 8);
		memcpy(&e->ctrl, h + PSDMA_SD_CTRL, 4);
		memcpy(&e->handle, h + PSDMA_SD_HANDLE, 2);
		memcpy(&e->uid, h + PSDMA_SD_UID, 2);
		e->index = f->first + i;
		c->ch_n[qi]++;
	}
}

/* ---- transactions ---------------------------------------------------------- */

/* Earliest time channel c could issue its next transaction, VB_NO_TIME if it
 * waits for an event (elements, a transaction slot, a status slot). */
static uint64_t issue_time(const struct vb_psdma *d, const struct pd_chan *c)
{
	const struct vb_pcie_params *m = &d->p->prm;
	uint64_t t = max64(d->issue_free, d->t_floor);
	unsigned pend;

	if (!running(c) || !c->ch_n[PSDMA_Q_SRC] || !c->ch_n[PSDMA_Q_DST] || engine_txns(d) >= m->dma_outstanding ||
	    c->t_n >= PD_MAX_TXN)
		return VB_NO_TIME;
	pend = c->s_n + eop_in_flight(c);
	if (pend >= PSDMA_STA_CACHE || q_ahead(&c->q[PSDMA_Q_STAS]) <= pend || q_ahead(&c->q[PSDMA_Q_STAD]) <= pend)
		return VB_NO_TIME;
	if (!e_axi(&c->cache[PSDMA_Q_SRC][c->ch_head[PSDMA_Q_SRC]])) {
		t = max64(t, d->tag_free[tag_first(d)]);   /* a read across the link needs a free tag */
	}
	return t;
}

static void issue(struct vb_psdma *d, struct pd_chan *c, uint64_t t)
{
	struct vb_pcie *p = d->p;
	struct pd_elem *s = head(c, PSDMA_Q_SRC), *ds = head(c, PSDMA_Q_DST);
	struct pd_txn *x;
	uint32_t len = PSDMA_TXN_BYTES;
	uint8_t *h;
	enum vb_access acc;

	if (!e_count(s) || !e_count(ds)) {
		bool src = !e_count(s);
		chan_error(d, c, src ? PSDMA_Q_SRC : PSDMA_Q_DST, src ? s : ds,
			   src ? PSDMA_STA_SRC_ERR : PSDMA_STA_DST_ERR, src ? s->addr : ds->addr, t,
			   "has a byte count of 0");
		return;
	}
	if ((!e_axi(s) || !e_axi(ds)) && !p->prm.trained) {
		bool src = !e_axi(s);
		chan_error(d, c, src ? PSDMA_Q_SRC : PSDMA_Q_DST, src ? s : ds, PSDMA_STA_INT_ERR,
			   src ? s->addr : ds->addr, t, "needs the PCIe link, which has not trained");
		return;
	}
	len = e_count(s) - c->off[0] < len ? e_count(s) - c->off[0] : len;
	len = e_count(ds) - c->off[1] < len ? e_count(ds) - c->off[1] : len;
	x = &c->txn[(c->t_head + c->t_n) % PD_MAX_TXN];
	memset(x, 0, sizeof(*x));
	x->src = s->addr + c->off[0];
	x->dst = ds->addr + c->off[1];
	x->len = len;
	x->src_axi = e_axi(s);
	x->dst_axi = e_axi(ds);
	d->issue_free = t + (uint64_t)((double)len * 8 / p->prm.dma_width_bits + 0.999) * p->dma_clk_ps;
	if (!x->src_axi) {
		unsigned k = tag_first(d);
		acc = mem_read(d, false, t, x->src, len, PD_DATA, &h, &x->t_due);
		d->tag_free[k] = max64(x->t_due, t);
	} else {
		acc = mem_read(d, true, t, x->src, len, PD_DATA, &h, &x->t_due);
	}
	if (acc != VB_ACC_OK) {
		chan_error(d, c, PSDMA_Q_SRC, s, PSDMA_STA_SRC_ERR, x->src, t, why_access(acc, x->src_axi));
		return;
	}
	x->st = TX_READ;
	x->t_read_done = x->t_due;
	c->t_n++;
	c->off[0] += len;
	c->off[1] += len;
	c->pkt_bytes += len;
	x->dst_e = *ds;
	if (c->off[0] == e_count(s)) {
		if (s->ctrl & PSDMA_SD_EOP) {
			x->eop = true;
			x->src_e = *s;
			x->pkt_bytes = c->pkt_bytes;
			c->pkt_bytes = 0;
			pop(c, PSDMA_Q_DST);     /* the packet's last DST element closes with it */
		}
		pop(c, PSDMA_Q_SRC);
	}
	if (!x->eop && c->ch_n[PSDMA_Q_DST] && c->off[1] == e_count(ds))
		pop(c, PSDMA_Q_DST);
	x->src_host = h;   /* the bytes are copied when the write is issued */
}

/* The source bytes are at the DMA: write them to the destination. */
static void txn_write(struct vb_psdma *d, struct pd_chan *c, struct pd_txn *x, uint64_t t)
{
	uint8_t *h;
	enum vb_access acc = mem_write(d, x->dst_axi, t, x->dst, x->len, PD_DATA, &h, &x->t_due);

	if (acc != VB_ACC_OK) {
		chan_error(d, c, PSDMA_Q_DST, &x->dst_e, PSDMA_STA_DST_ERR, x->dst, t, why_access(acc, x->dst_axi));
		return;
	}
	memmove(h, x->src_host, x->len);
	x->t_due = max64(x->t_due, t);
	x->st = TX_WRITE;
	c->bytes += x->len;
}

static void put_status(struct vb_psdma *d, struct pd_chan *c, unsigned qi, const struct pd_elem *e, uint32_t bytes,
		       uint64_t t, uint64_t *done, uint64_t *landed)
{
	struct pd_queue *q = &c->q[qi];
	uint8_t *h;
	uint64_t dn = t, ld = t;
	uint32_t w = PSDMA_STA_COMPLETED | SG_FIELD_PREP(PSDMA_STA_COUNT, bytes) | PSDMA_STA_UPPER_NZ;

	if (mem_write_l(d, q_axi(q), t, q_base(q) + (uint64_t)q->nxt * PSDMA_STA_SIZE, PSDMA_STA_SIZE, PD_STATUS, &h,
			&dn, &ld) != VB_ACC_OK) {
		chan_error(d, c, qi, e, PSDMA_STA_INT_ERR, q_base(q) + (uint64_t)q->nxt * PSDMA_STA_SIZE, t,
			   "(a status slot) cannot be written");
		return;
	}
	memcpy(h + PSDMA_STA_HANDLE, &e->handle, 2);
	memcpy(h + PSDMA_STA_UID, &e->uid, 2);
	memcpy(h + PSDMA_STA_FLAGS, &w, 4);
	q->nxt = (q->nxt + 1) % q->sz;
	*done = max64(*done, dn);
	*landed = max64(*landed, ld);
}

/* Retire finished transactions in issue order; a packet's last one writes
 * its STAS and STAD elements through the status FIFO. */
static void retire(struct vb_psdma *d, struct pd_chan *c, uint64_t t)
{
	while (c->t_n && c->txn[c->t_head].st == TX_DONE && !c->errored) {
		struct pd_txn *x = &c->txn[c->t_head];
		c->t_head = (c->t_head + 1) % PD_MAX_TXN;
		c->t_n--;
		if (!x->eop)
			continue;
		struct pd_status *s = &c->sta[(c->s_head + c->s_n) % PSDMA_STA_CACHE];
		s->t_done = s->t_landed = t;
		s->irq = x->src_e.ctrl & PSDMA_SD_INTR;
		put_status(d, c, PSDMA_Q_STAS, &x->src_e, x->pkt_bytes, t, &s->t_done, &s->t_landed);
		if (c->errored)
			return;
		put_status(d, c, PSDMA_Q_STAD, &x->dst_e, x->pkt_bytes, t, &s->t_done, &s->t_landed);
		if (c->errored)
			return;
		c->s_n++;
		c->packets++;
	}
}

/* A status reached memory: count an interrupt event; fire every coalesce+1
 * events (8-bit field, 1..256 events per interrupt). */
static void status_done(struct vb_psdma *d, struct pd_chan *c, uint64_t t)
{
	struct pd_status *s = &c->sta[c->s_head];
	uint32_t icntrl = is_root(d) ? c->axi_icntrl : c->pcie_icntrl;

	c->s_head = (c->s_head + 1) % PSDMA_STA_CACHE;
	c->s_n--;
	if (!s->irq)
		return;
	if (++c->coalesce_cnt <= SG_FIELD_GET(PSDMA_INTR_COALESCE, icntrl))
		return;
	c->coalesce_cnt = 0;
	/* An interrupt the host has not yet cleared stays asserted from its first
	 * event: a later one neither delays nor repeats it. */
	if (is_root(d)) {
		if (!(c->axi_istat & PSDMA_ISTAT_SGL))
			c->t_irq = t;
		c->axi_istat |= PSDMA_ISTAT_SGL;
	} else {
		/* MSI: a posted write upstream behind the status writes (it cannot pass
		 * them), decoded by the root port into the CPU's interrupt once the
		 * status is in memory */
		uint64_t msi = max64(pd_tlp(d->p, PD_UP, t, 4, 0) + d->p->rp_ps, s->t_landed);
		if (!(c->pcie_istat & PSDMA_ISTAT_SGL))
			c->t_irq = msi;
		c->pcie_istat |= PSDMA_ISTAT_SGL;
	}
}

/* ---- host writes in flight (endpoint engine) ------------------------------------ */

/* The oldest write in flight acts, at t (its arrival, or earlier when a read
 * or a full FIFO forces it out: the model's one approximation here). */
static void apply_posted(struct vb_psdma *d, uint64_t t)
{
	unsigned k = d->w_head;
	d->w_head = (d->w_head + 1) % PD_POSTED;
	d->w_n--;
	pd_dma_write(d, d->posted[k].off, d->posted[k].v, t);
}

void pd_dma_post(struct vb_psdma *d, uint64_t t_arrive, uint64_t off, uint32_t v, uint64_t now)
{
	unsigned k;
	if (d->w_n == PD_POSTED)
		apply_posted(d, now);
	d->quiet = false;
	k = (d->w_head + d->w_n) % PD_POSTED;
	d->posted[k].t = t_arrive;
	d->posted[k].off = (uint32_t)off;
	d->posted[k].v = v;
	d->w_n++;
}

void pd_dma_flush_posted(struct vb_psdma *d, uint64_t now)
{
	while (d->w_n)
		apply_posted(d, now);
}

/* ---- time ---------------------------------------------------------------------- */

/* A startable fetch goes at `now`, or when a tag returns if the queue is across the link. */
static uint64_t fetch_time(const struct vb_psdma *d, const struct pd_chan *c, int qi, uint64_t now)
{
	return q_axi(&c->q[qi]) ? now : max64(now, d->tag_free[tag_first(d)]);
}

uint64_t pd_dma_next_event(struct vb_psdma *d)
{
	uint64_t t = d->w_n ? d->posted[d->w_head].t : VB_NO_TIME, now = d->t_floor;

	for (unsigned i = 0; i < PSDMA_CHANNELS; i++) {
		struct pd_chan *c = &d->ch[i];
		for (int qi = 0; qi < 2; qi++) {
			if (c->fetch[qi].busy)
				t = min64(t, c->fetch[qi].t_done);
			else if (fetch_startable(c, qi))
				t = min64(t, fetch_time(d, c, qi, now));
		}
		for (unsigned k = 0; k < c->t_n; k++) {
			const struct pd_txn *x = &c->txn[(c->t_head + k) % PD_MAX_TXN];
			if (x->st != TX_DONE)
				t = min64(t, x->t_due);
		}
		if (c->s_n)
			t = min64(t, c->sta[c->s_head].t_done);
		t = min64(t, issue_time(d, c));
	}
	return t;
}

void pd_dma_step(struct vb_psdma *d, uint64_t t)
{
	while (d->w_n && d->posted[d->w_head].t <= t)
		apply_posted(d, t);
	d->t_floor = max64(d->t_floor, t);
	for (unsigned i = 0; i < PSDMA_CHANNELS; i++) {
		struct pd_chan *c = &d->ch[i];
		for (int qi = 0; qi < 2; qi++)
			if (c->fetch[qi].busy && c->fetch[qi].t_done <= t)
				fetch_done(c, qi);
		for (unsigned k = 0; k < c->t_n && !c->errored; k++) {
			struct pd_txn *x = &c->txn[(c->t_head + k) % PD_MAX_TXN];
			if (x->st == TX_READ && x->t_due <= t)
				txn_write(d, c, x, t);
			if (x->st == TX_WRITE && x->t_due <= t)
				x->st = TX_DONE;
		}
		while (c->s_n && c->sta[c->s_head].t_done <= t)
			status_done(d, c, t);
		retire(d, c, t);
		for (int qi = 0; qi < 2; qi++)
			if (fetch_startable(c, qi) && fetch_time(d, c, qi, d->t_floor) <= t)
				fetch_start(d, c, qi, t);
	}
	/* round-robin among channels, one transaction per grant */
	for (unsigned n = 0; n < PSDMA_CHANNELS; n++) {
		unsigned i = (d->rr + n) % PSDMA_CHANNELS;
		struct pd_chan *c = &d->ch[i];
		if (issue_time(d, c) <= t) {
			issue(d, c, t);
			d->rr = (i + 1) % PSDMA_CHANNELS;
			n = (unsigned)-1;   /* restart the scan after the granted channel */
			if (d->issue_free > t)
				break;
		}
	}
	d->quiet = pd_dma_next_event(d) == VB_NO_TIME;
}

/* ---- registers ------------------------------------------------------------------- */

static void chan_reset(struct pd_chan *c, unsigned idx)
{
	memset(c, 0, sizeof(*c));
	c->idx = idx;
}

void pd_dma_reset(struct vb_psdma *d)
{
	for (unsigned i = 0; i < PSDMA_CHANNELS; i++)
		chan_reset(&d->ch[i], i);
	d->rr = 0;
	d->quiet = true;
	d->issue_free = 0;
	d->w_head = d->w_n = 0;
	memset(d->tag_free, 0, sizeof(d->tag_free));
}

uint32_t pd_dma_read(struct vb_psdma *d, uint64_t off)
{
	struct pd_chan *c;
	unsigned r;

	if (off >= PSDMA_CHANNELS * PSDMA_CHAN_STRIDE)
		return 0;
	c = &d->ch[off / PSDMA_CHAN_STRIDE];
	r = off % PSDMA_CHAN_STRIDE;
	if (r < PSDMA_SRCQ_NXT) {
		const struct pd_queue *q = &c->q[r / PSDMA_Q_STRIDE];
		switch (r % PSDMA_Q_STRIDE) {
		case PSDMA_Q_PTRLO: return q->ptrlo;
		case PSDMA_Q_PTRHI: return q->ptrhi;
		case PSDMA_Q_SZ: return q->sz;
		default: return q->lmt;
		}
	}
	switch (r) {
	case PSDMA_SRCQ_NXT: case PSDMA_DSTQ_NXT: case PSDMA_STASQ_NXT: case PSDMA_STADQ_NXT:
		return c->q[(r - PSDMA_SRCQ_NXT) / 4].nxt;
	case PSDMA_PCIE_INTR_CNTRL: return c->pcie_icntrl;
	case PSDMA_PCIE_INTR_STATUS: return c->pcie_istat;
	case PSDMA_AXI_INTR_CNTRL: return c->axi_icntrl;
	case PSDMA_AXI_INTR_STATUS: return c->axi_istat;
	case PSDMA_CNTRL: return c->cntrl;
	case PSDMA_STATUS:
		return PSDMA_STATUS_PRESENT | SG_FIELD_PREP(PSDMA_STATUS_CHANNUM, c->idx) |
		       (running(c) || c->t_n ? PSDMA_STATUS_RUNNING : 0);
	default:
		if (r >= PSDMA_SCRATCH0 && r < PSDMA_SCRATCH0 + 16)
			return c->scratch[(r - PSDMA_SCRATCH0) / 4];
		return 0;
	}
}

static void write_queue(struct vb_psdma *d, struct pd_chan *c, unsigned r, uint32_t v)
{
	struct pd_queue *q = &c->q[r / PSDMA_Q_STRIDE];
	unsigned f = r % PSDMA_Q_STRIDE;

	if (f == PSDMA_Q_LMT) {
		if (q->sz && v >= q->sz) {
			pd_guest_error(d->p, "channel %u %s_Q_LIMIT = %u is outside the queue of %u elements; ignored",
				       c->idx, qname[r / PSDMA_Q_STRIDE], v, q->sz);
			return;
		}
		q->lmt = v;            /* the doorbell */
		return;
	}
	if (enabled(c)) {
		pd_guest_error(d->p, "channel %u: write of %s_Q_%s while the channel is enabled; clear CNTRL.enable "
			       "and wait for STATUS.dma_running = 0 first; ignored", c->idx, qname[r / PSDMA_Q_STRIDE],
			       f == PSDMA_Q_SZ ? "SIZE" : "PTR");
		return;
	}
	if (f == PSDMA_Q_PTRLO)
		q->ptrlo = v;
	else if (f == PSDMA_Q_PTRHI)
		q->ptrhi = v;
	else
		q->sz = v;
}

void pd_dma_write(struct vb_psdma *d, uint64_t off, uint32_t v, uint64_t t)
{
	struct pd_chan *c;
	unsigned r;

	if (off >= PSDMA_CHANNELS * PSDMA_CHAN_STRIDE)
		return;
	d->t_floor = max64(d->t_floor, t);
	d->quiet = false;
	c = &d->ch[off / PSDMA_CHAN_STRIDE];
	r = off % PSDMA_CHAN_STRIDE;
	if (r < PSDMA_SRCQ_NXT) {
		write_queue(d, c, r, v);
		return;
	}
	switch (r) {
	case PSDMA_SRCQ_NXT: case PSDMA_DSTQ_NXT: case PSDMA_STASQ_NXT: case PSDMA_STADQ_NXT:
		if (enabled(c)) {
			pd_guest_error(d->p, "channel %u: write of %s_Q_NEXT while the channel runs (UG1087: NEXT may be "
				       "written only while DMA enable is 0); ignored", c->idx,
				       qname[(r - PSDMA_SRCQ_NXT) / 4]);
			return;
		}
		c->q[(r - PSDMA_SRCQ_NXT) / 4].nxt = c->q[(r - PSDMA_SRCQ_NXT) / 4].sz ?
							   v % c->q[(r - PSDMA_SRCQ_NXT) / 4].sz : v;
		return;
	case PSDMA_PCIE_INTR_CNTRL: c->pcie_icntrl = v; return;
	case PSDMA_PCIE_INTR_STATUS: c->pcie_istat &= ~v; return;   /* write 1 to clear */
	case PSDMA_AXI_INTR_CNTRL: c->axi_icntrl = v; return;
	case PSDMA_AXI_INTR_STATUS: c->axi_istat &= ~v; return;
	case PSDMA_PCIE_INTR_ASSRT: c->pcie_istat |= v & PSDMA_ISTAT_SW; return;
	case PSDMA_AXI_INTR_ASSRT: c->axi_istat |= v & PSDMA_ISTAT_SW; return;
	case PSDMA_CNTRL:
		if ((v & PSDMA_CNTRL_RESET) && !(c->cntrl & PSDMA_CNTRL_RESET)) {
			chan_reset(c, c->idx);
			c->cntrl = v & ~PSDMA_CNTRL_ENABLE;
			return;
		}
		if (!(v & PSDMA_CNTRL_ENABLE))
			c->coalesce_cnt = 0;   /* UG1087: the coalesce counter clears with enable = 0 */
		c->cntrl = v;
		return;
	case PSDMA_STATUS: return;
	default:
		if (r >= PSDMA_SCRATCH0 && r < PSDMA_SCRATCH0 + 16)
			c->scratch[(r - PSDMA_SCRATCH0) / 4] = v;
		return;
	}
}
