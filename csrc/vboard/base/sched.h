/*
 * sched.h - virtual time, the ground floor of the virtual board.  `now` is the
 * CPU's time; devices that act on their own register timed ops and the
 * scheduler steps the earliest of them (a pull protocol: the scheduler asks
 * each for its next event, as gem5's EventQueue would be told it).  Devices
 * only read `now`; syncing and waiting are the initiators' business (api.c,
 * cpu/), so a device never calls up into time.
 */
#ifndef SGDMA_VBOARD_SCHED_H
#define SGDMA_VBOARD_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#define VB_SCHED_MAX 16

struct vb_timed_ops {
	/* time (ps) of the device's next self-timed event, VB_NO_TIME if none */
	uint64_t (*next_event)(void *dev);
	/* handle every event of the device due at t */
	void (*step)(void *dev, uint64_t t);
};

struct vb_timed {
	const struct vb_timed_ops *ops;
	void *dev;
};

struct vb_sched {
	uint64_t now;
	struct vb_timed dev[VB_SCHED_MAX];
	unsigned n;
};

#pragma GCC visibility push(hidden)

/* Register a timed device (in the order the machine maps them: ties go to the first); -1 when full. */
int vb_sched_add(struct vb_sched *s, const struct vb_timed_ops *ops, void *dev);
/* Earliest pending event over all devices, and the device it belongs to. */
uint64_t vb_sched_next_event(const struct vb_sched *s, const struct vb_timed **who);
void vb_sched_sync_all(struct vb_sched *s);
/* Step the earliest event if it is due by limit_ps (now moves to it); false if none. */
bool vb_sched_step_next(struct vb_sched *s, uint64_t limit_ps);
/* Step events until done(ctx) or limit_ps; done's value at the end. */
bool vb_sched_run_until(struct vb_sched *s, bool (*done)(void *ctx), void *ctx, uint64_t limit_ps);
/* Step every event up to limit_ps; now at the end. */
uint64_t vb_sched_run_quiet(struct vb_sched *s, uint64_t limit_ps);
/* Charge ps to now and catch up. */
void vb_sched_advance(struct vb_sched *s, uint64_t ps);


/* Catch the model up to now: process every event due by then.  Inline: every
 * CPU access syncs, and with one timed device there is nothing to choose. */
static inline void vb_sched_sync(struct vb_sched *s)
{
	if (s->n == 1) {
		const struct vb_timed *m = &s->dev[0];
		uint64_t t;

		while ((t = m->ops->next_event(m->dev)) <= s->now)
			m->ops->step(m->dev, t);
		return;
	}
	vb_sched_sync_all(s);
}

#pragma GCC visibility pop

#endif
