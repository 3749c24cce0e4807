/* api_coherency.h - the board's coherency checker as the binding asks it (api_coherency.c, api.c): each call takes
 * the board and goes to the checker's vb_coh_ function of the same name (mem/coherency.h).  Kept apart from the
 * checker's header so the devices that feed the checker never see the board's API. */
#ifndef VB_API_COHERENCY_H
#define VB_API_COHERENCY_H

#include "vboard.h"
#include "mem/coherency.h"

/* Register [addr, addr+len) with a policy; returns its id (> 0), or -1 with err
 * filled (zero length, overlap with a registered buffer, out of host memory). */
int vb_coherency_register(vb_board *b, uint64_t addr, uint64_t len, enum vb_coh_policy policy, const char *name,
			  char *err, size_t errlen);
int vb_coherency_unregister(vb_board *b, int id);   /* 0, or -1 if unknown */
size_t vb_coherency_buffer_count(const vb_board *b);

void vb_coherency_enable(vb_board *b, bool on);
bool vb_coherency_enabled(const vb_board *b);
void vb_coherency_set_speculative(vb_board *b, bool on);
bool vb_coherency_speculative(const vb_board *b);

/* The CPU's loads (write = false) and stores of [addr, addr+len): software
 * (the transport layer) tells the checker, the model cannot see them. */
void vb_coherency_cpu_access(vb_board *b, uint64_t addr, uint64_t len, bool write);   /* api.c: syncs first */
bool vb_coherency_watching(const vb_board *b);
void vb_coherency_cpu_event(vb_board *b, uint64_t addr, uint64_t len, bool write);

/* Violations: total count (all, even past VB_COH_MAX_STORED), the stored ones. */
uint64_t vb_coherency_count(const vb_board *b);
size_t vb_coherency_stored(const vb_board *b);
const struct vb_coh_violation *vb_coherency_violation(const vb_board *b, size_t i);
void vb_coherency_clear(vb_board *b);          /* forget violations; line states stay */
uint64_t vb_coherency_dma_checks(const vb_board *b);  /* DMA hooks that overlapped a SYNC buffer */

#endif
