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
bool vb_pcie_present(const vb_board *b);
void vb_pcie_reseed(vb_board *b, uint64_t t0);
void *vb_pcie_engine(vb_board *b, int side);
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

#endif
