/*
 * rtio_acpki.h - the ACP kernel initiator (rtio_acpki.c).
 */
#ifndef SGDMA_VBOARD_PL_RTIO_ACPKI_H
#define SGDMA_VBOARD_PL_RTIO_ACPKI_H

#include "pl/rtio_types.h"

void rtio_acp_evento(struct vb_rtio *r, uint64_t t);
uint64_t rtio_acp_next(struct vb_rtio *r);
void rtio_acp_step(struct vb_rtio *r, uint64_t t);
void rtio_acp_resume(struct vb_rtio *r, uint32_t status, uint64_t t);

#endif
