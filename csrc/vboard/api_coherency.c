/*
 * api_coherency.c - the binding's questions to the coherency checker
 * (mem/coherency.h), asked of the board: api.c's part for the checker
 * machine.c creates.  The answers come from mem/coherency.c, on its own state;
 * the CPU-side events are stamped with the CPU's now.
 */
#include "board.h"
#include "api_coherency.h"

int vb_coherency_register(vb_board *b, uint64_t addr, uint64_t len, enum vb_coh_policy policy, const char *name,
			  char *err, size_t errlen)
{
	return vb_coh_register(b->coh, &b->memory, addr, len, policy, name, err, errlen);
}

int vb_coherency_unregister(vb_board *b, int id) { return vb_coh_unregister(b->coh, id); }
size_t vb_coherency_buffer_count(const vb_board *b) { return vb_coh_buffer_count(b->coh); }
void vb_coherency_enable(vb_board *b, bool on) { vb_coh_enable(b->coh, on); }
bool vb_coherency_enabled(const vb_board *b) { return vb_coh_enabled(b->coh); }
void vb_coherency_set_speculative(vb_board *b, bool on) { vb_coh_set_speculative(b->coh, on); }
bool vb_coherency_speculative(const vb_board *b) { return vb_coh_speculative(b->coh); }
bool vb_coherency_watching(const vb_board *b) { return vb_coh_watching(b->coh); }

void vb_coherency_cpu_event(vb_board *b, uint64_t addr, uint64_t len, bool write)
{
	vb_coh_cpu_event(b->coh, addr, len, write, b->sched.now);
}

uint64_t vb_coherency_count(const vb_board *b) { return vb_coh_count(b->coh); }
size_t vb_coherency_stored(const vb_board *b) { return vb_coh_stored(b->coh); }

const struct vb_coh_violation *vb_coherency_violation(const vb_board *b, size_t i)
{
	return vb_coh_violation(b->coh, i);
}

void vb_coherency_clear(vb_board *b) { vb_coh_clear(b->coh); }
uint64_t vb_coherency_dma_checks(const vb_board *b) { return vb_coh_dma_checks(b->coh); }
