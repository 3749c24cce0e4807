/*
 * sched.c - the virtual clock and the choice of the next event.
 */
#include <stddef.h>

#include "base/sched.h"
#include "base/time.h"

int vb_sched_add(struct vb_sched *s, const struct vb_timed_ops *ops, void *dev)
{
	if (s->n == VB_SCHED_MAX)
		return -1;
	s->dev[s->n++] = (struct vb_timed){ .ops = ops, .dev = dev };
	return 0;
}

uint64_t vb_sched_next_event(const struct vb_sched *s, const struct vb_timed **who)
{
	uint64_t best = VB_NO_TIME;

	*who = NULL;
	for (unsigned i = 0; i < s->n; i++) {
		const struct vb_timed *m = &s->dev[i];
		uint64_t t = m->ops->next_event(m->dev);

		if (t < best) {
			best = t;
			*who = m;
		}
	}
	return best;
}

void vb_sched_sync_all(struct vb_sched *s)
{
	const struct vb_timed *m;
	uint64_t t;

	while ((t = vb_sched_next_event(s, &m)) <= s->now)
		m->ops->step(m->dev, t);
}

bool vb_sched_step_next(struct vb_sched *s, uint64_t limit_ps)
{
	const struct vb_timed *m;
	uint64_t t = vb_sched_next_event(s, &m);

	if (t == VB_NO_TIME || t > limit_ps)
		return false;
	if (t > s->now)
		s->now = t;
	m->ops->step(m->dev, t);
	return true;
}

/* While one device owns the earliest event it is stepped directly, without
 * asking the others again: devices interact only through memory timing,
 * charged when the other device issues, so stepping one never moves another's
 * next event. */
bool vb_sched_run_until(struct vb_sched *s, bool (*done)(void *ctx), void *ctx, uint64_t limit_ps)
{
	while (!done(ctx)) {
		const struct vb_timed *m;
		uint64_t t = vb_sched_next_event(s, &m), t_other = VB_NO_TIME;

		if (t == VB_NO_TIME || t > limit_ps)
			return done(ctx);
		for (unsigned i = 0; i < s->n; i++) {
			const struct vb_timed *o = &s->dev[i];
			if (o->dev != m->dev) {
				uint64_t to = o->ops->next_event(o->dev);
				if (to < t_other)
					t_other = to;
			}
		}
		do {
			if (t > s->now)
				s->now = t;
			m->ops->step(m->dev, t);
			if (done(ctx))
				return true;
			t = m->ops->next_event(m->dev);
		} while (t < t_other && t <= limit_ps);
	}
	return true;
}

void vb_sched_advance(struct vb_sched *s, uint64_t ps)
{
	s->now += ps;
	vb_sched_sync(s);
}

uint64_t vb_sched_run_quiet(struct vb_sched *s, uint64_t limit_ps)
{
	if (s->n == 1) {      /* one self-timed device: step it without choosing */
		const struct vb_timed *m = &s->dev[0];
		uint64_t t;

		while ((t = m->ops->next_event(m->dev)) != VB_NO_TIME && t <= limit_ps) {
			if (t > s->now)
				s->now = t;
			m->ops->step(m->dev, t);
		}
		return s->now;
	}
	while (vb_sched_step_next(s, limit_ps))
		;
	return s->now;
}
