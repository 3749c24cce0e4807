/*
 * pcie_api.h - what the binding may ask of the PCIe subsystem (hosted C).
 */
#ifndef SGDMA_VBOARD_PCIE_API_H
#define SGDMA_VBOARD_PCIE_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vboard.h"

#define VB_PCIE_NCLASS 4   /* data, queue elements, status elements, CPU */

struct vb_pcie_apm {
	uint64_t rd_bytes, wr_bytes, rd_txns, wr_txns;
	uint64_t rd_class[VB_PCIE_NCLASS], wr_class[VB_PCIE_NCLASS];
};
struct vb_pcie_link_stats {
	uint64_t tlps[2], wire_bytes[2], payload[2];   /* [0] downstream, [1] upstream */
	double rate_mbps;                             /* per direction, after 8b/10b and SKPs */
};
struct vb_pcie_error {
	int side;
	unsigned chan, queue, index;
	uint64_t addr;
	char why[160];
};

/* 0, or -1 with a message naming the pcie.<key>, the rule and the fix. */
int vb_pcie_check(const struct vb_pcie_params *m, char *err, size_t n);
/* The binding's questions, over the board (api_pcie.c: the board's PCIe subsystem, then pcie.c). */
bool vb_pcie_present(const vb_board *b);
void vb_pcie_apm(vb_board *b, int which, struct vb_pcie_apm *out);
void vb_pcie_apm_count_cpu(vb_board *b, bool write, uint64_t bytes);
void vb_pcie_link_stats(vb_board *b, struct vb_pcie_link_stats *out);
uint8_t *vb_pcie_ep_ptr(vb_board *b, uint64_t axi, uint64_t len);
bool vb_pcie_irq(vb_board *b, int side, unsigned chan, uint64_t *t_irq);
bool vb_pcie_last_error(vb_board *b, struct vb_pcie_error *out);
void vb_pcie_clear_error(vb_board *b);
uint64_t vb_pcie_guest_errors(vb_board *b);
const struct vb_pcie_params *vb_pcie_params_of(vb_board *b);
void vb_pcie_set_trained(vb_board *b, bool up);

/* The subsystem on its own state (pcie.c), for machine.c: created when the preset has [pcie], handed the
 * scheduler (read now), the bus (a non-posted read's answer time), the PS interconnect and memory. */
struct vb_pcie;
struct vb_sched;
struct vb_bus;
struct vb_ic;
struct vb_memory;
struct vb_rng;
struct vb_pcie *vb_pcie_new(const struct vb_pcie_params *m, struct vb_sched *sched, struct vb_bus *bus,
			    struct vb_ic *ic, struct vb_memory *memory, char *err, size_t errlen);
/* The EP DDR's refresh phase from the board's generator's state (no draw), anchored at t0. */
void vb_pcie_reseed(struct vb_pcie *p, const struct vb_rng *rng, uint64_t t0);
void vb_pcie_free(struct vb_pcie *p);
void *vb_pcie_engine(struct vb_pcie *p, int side);   /* the ops' dev of each side's engine */
extern const struct vb_device_ops vb_psdma_root_ops, vb_psdma_ep_ops;
extern const struct vb_timed_ops vb_psdma_timed;

#endif
