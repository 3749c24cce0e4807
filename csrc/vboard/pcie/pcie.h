/*
 * pcie.h - the PCIe subsystem's top (pcie.c): its device ops and the answers
 * to the binding's questions, which api_pcie.c asks for the board.
 */
#ifndef SGDMA_VBOARD_PCIE_H
#define SGDMA_VBOARD_PCIE_H

#include "pcie/pcie_types.h"

void pd_apm(struct vb_pcie *p, int which, struct vb_pcie_apm *out);
void pd_apm_count_cpu(struct vb_pcie *p, bool write, uint64_t bytes);
void pd_link_stats(struct vb_pcie *p, struct vb_pcie_link_stats *out);
uint8_t *pd_ep_ptr(struct vb_pcie *p, uint64_t axi, uint64_t len);
bool pd_irq(struct vb_pcie *p, int side, unsigned chan, uint64_t *t_irq);
bool pd_last_error(struct vb_pcie *p, struct vb_pcie_error *out);
void pd_clear_error(struct vb_pcie *p);
uint64_t pd_guest_errors(struct vb_pcie *p);
const struct vb_pcie_params *pd_params(struct vb_pcie *p);
void pd_set_trained(struct vb_pcie *p, bool up);

#endif
