/*
 * fetch_log.c - the MM2S channel's record of BD fetches, for reports.
 */
#include "dma/dma.h"

/* Reports draw BD fetches over time; the log stops growing at VB_FETCH_LOG_MAX. */
void vb_fetch_log_add(struct vb_chan *c, uint64_t t_issue, uint64_t t_done)
{
	if (c->n_fetch_log >= VB_FETCH_LOG_MAX) {
		c->fetch_log_dropped++;
		return;
	}
	if (2 * (c->n_fetch_log + 1) > c->cap_fetch_log &&
	    !vb_grow_into(&c->fetch_log, &c->cap_fetch_log, 2 * (c->n_fetch_log + 1), sizeof(uint64_t))) {
		c->fetch_log_dropped++;
		return;
	}
	c->fetch_log[2 * c->n_fetch_log] = t_issue;
	c->fetch_log[2 * c->n_fetch_log + 1] = t_done;
	c->n_fetch_log++;
}
