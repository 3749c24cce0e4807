/*
 * api_pcie.c - the binding's questions to the PCIe subsystem (pcie/pcie_api.h),
 * asked of the board: api.c's part for the subsystem machine.c creates when
 * the preset has [pcie].  The answers come from pcie/pcie.c, on its own state.
 */
#include "board.h"
#include "pcie/pcie.h"

bool vb_pcie_present(const vb_board *b) { return b->pcie != NULL; }
void vb_pcie_apm(vb_board *b, int which, struct vb_pcie_apm *out) { pd_apm(b->pcie, which, out); }
void vb_pcie_apm_count_cpu(vb_board *b, bool write, uint64_t bytes) { pd_apm_count_cpu(b->pcie, write, bytes); }
void vb_pcie_link_stats(vb_board *b, struct vb_pcie_link_stats *out) { pd_link_stats(b->pcie, out); }
uint8_t *vb_pcie_ep_ptr(vb_board *b, uint64_t axi, uint64_t len) { return pd_ep_ptr(b->pcie, axi, len); }
bool vb_pcie_irq(vb_board *b, int side, unsigned chan, uint64_t *t_irq) { return pd_irq(b->pcie, side, chan, t_irq); }

bool vb_pcie_last_error(vb_board *b, struct vb_pcie_error *out) { return pd_last_error(b->pcie, out); }
void vb_pcie_clear_error(vb_board *b) { pd_clear_error(b->pcie); }
uint64_t vb_pcie_guest_errors(vb_board *b) { return pd_guest_errors(b->pcie); }
const struct vb_pcie_params *vb_pcie_params_of(vb_board *b) { return pd_params(b->pcie); }
void vb_pcie_set_trained(vb_board *b, bool up) { pd_set_trained(b->pcie, up); }
