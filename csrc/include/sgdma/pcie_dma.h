/*
 * pcie_dma.h - the contract of the Zynq UltraScale+ PS-PCIe DMA (the DMA built
 * into the PCIe controller, driven from the Root Port as in XAPP1289): channel
 * windows, register offsets, bit fields and queue-element layouts.
 * Sources: /work/shared/reference/zynqmp-pcie-dma.md sec. 1-5 (UG1085 "DMA",
 * UG1087 AXIPCIE_DMA pages, the Linux ps_pcie driver's documented layout).
 *
 * Written once here; the virtual board, the driver core and (through
 * PSDMA_EXPORTS and the binding) Python all read it.  Freestanding: <stdint.h>.
 */
#ifndef SGDMA_PCIE_DMA_H
#define SGDMA_PCIE_DMA_H

#include <stdint.h>

#include "sgdma/pg021.h"   /* SG_BIT, SG_GENMASK, SG_FIELD_GET/PREP */

/* Channels: 128 bytes of registers each, from DREG_BASE (UG1085 "DMA"; UG1087). */
#define PSDMA_AXI_BASE        0xFD0F0000u
#define PSDMA_CHANNELS        4u
#define PSDMA_CHAN_STRIDE     0x80u
#define PSDMA_REG_SPAN        0x1000u       /* DT example: reg size 0x1000 */

/* Per-channel register offsets (ref. sec. 3). */
#define PSDMA_SRCQ_PTRLO      0x00u
#define PSDMA_SRCQ_PTRHI      0x04u
#define PSDMA_SRCQ_SZ         0x08u
#define PSDMA_SRCQ_LMT        0x0Cu
#define PSDMA_DSTQ_PTRLO      0x10u
#define PSDMA_STASQ_PTRLO     0x20u
#define PSDMA_STADQ_PTRLO     0x30u
#define PSDMA_Q_STRIDE        0x10u         /* SRC, DST, STAS, STAD queue blocks */
#define PSDMA_Q_PTRLO         0x0u          /* offsets inside a queue block */
#define PSDMA_Q_PTRHI         0x4u
#define PSDMA_Q_SZ            0x8u
#define PSDMA_Q_LMT           0xCu
#define PSDMA_SRCQ_NXT        0x40u
#define PSDMA_DSTQ_NXT        0x44u
#define PSDMA_STASQ_NXT       0x48u
#define PSDMA_STADQ_NXT       0x4Cu
#define PSDMA_SCRATCH0        0x50u
#define PSDMA_PCIE_INTR_CNTRL 0x60u
#define PSDMA_PCIE_INTR_STATUS 0x64u
#define PSDMA_AXI_INTR_CNTRL  0x68u
#define PSDMA_AXI_INTR_STATUS 0x6Cu
#define PSDMA_PCIE_INTR_ASSRT 0x70u
#define PSDMA_AXI_INTR_ASSRT  0x74u
#define PSDMA_CNTRL           0x78u
#define PSDMA_STATUS          0x7Cu

/* Queue indices (register block order). */
#define PSDMA_Q_SRC           0u
#define PSDMA_Q_DST           1u
#define PSDMA_Q_STAS          2u
#define PSDMA_Q_STAD          3u
#define PSDMA_NQUEUES         4u

/* Q_PTR_LO: location, enable; base 64-byte aligned (low 6 bits masked). */
#define PSDMA_QPTR_AXI        SG_BIT(0)
#define PSDMA_QPTR_ENABLE     SG_BIT(1)
#define PSDMA_QPTR_RDATTR     SG_BIT(3)     /* root-DMA read attribute, set with AXI */
#define PSDMA_QPTR_ADDR_MASK  SG_GENMASK(31, 6)

/* CNTRL / STATUS. */
#define PSDMA_CNTRL_ENABLE    SG_BIT(0)
#define PSDMA_CNTRL_RESET     SG_BIT(1)
#define PSDMA_CNTRL_64BIT_STA SG_BIT(2)
#define PSDMA_STATUS_RUNNING  SG_BIT(0)
#define PSDMA_STATUS_CHANNUM  SG_GENMASK(13, 4)
#define PSDMA_STATUS_PRESENT  SG_BIT(15)

/* *_INTR_CNTRL / *_INTR_STATUS / *_INTR_ASSRT. */
#define PSDMA_INTR_ENABLE     SG_BIT(0)
#define PSDMA_INTR_ERR_EN     SG_BIT(1)
#define PSDMA_INTR_SGL_EN     SG_BIT(2)
#define PSDMA_INTR_COALESCE   SG_GENMASK(23, 16)
#define PSDMA_ISTAT_ERR       SG_BIT(1)
#define PSDMA_ISTAT_SGL       SG_BIT(2)
#define PSDMA_ISTAT_SW        SG_BIT(3)

/* SRC/DST element, 16 bytes: address u64, control+count u32, handle u16, id u16. */
#define PSDMA_SD_SIZE         16u
#define PSDMA_SD_ADDR         0u
#define PSDMA_SD_CTRL         8u
#define PSDMA_SD_HANDLE       12u
#define PSDMA_SD_UID          14u
#define PSDMA_SD_COUNT        SG_GENMASK(23, 0)
#define PSDMA_SD_MAX_BYTES    0xFFFFFFu
#define PSDMA_SD_AXI          SG_BIT(24)    /* buffer in AXI memory; clear = PCIe address */
#define PSDMA_SD_EOP          SG_BIT(25)    /* SRC: end of packet; DST: back-to-back pack */
#define PSDMA_SD_INTR         SG_BIT(26)    /* SRC: interrupt on completion */
#define PSDMA_SD_ATTR         SG_GENMASK(31, 29)
#define PSDMA_ATTR_AXI        3u
#define PSDMA_ATTR_PCIE       2u

/* STAS/STAD element, 8 bytes (64-bit mode): flags+count u32, handle u16, id u16. */
#define PSDMA_STA_SIZE        8u
#define PSDMA_STA_FLAGS       0u
#define PSDMA_STA_HANDLE      4u
#define PSDMA_STA_UID         6u
#define PSDMA_STA_COMPLETED   SG_BIT(0)
#define PSDMA_STA_SRC_ERR     SG_BIT(1)
#define PSDMA_STA_DST_ERR     SG_BIT(2)
#define PSDMA_STA_INT_ERR     SG_BIT(3)
#define PSDMA_STA_COUNT       SG_GENMASK(30, 4)
#define PSDMA_STA_UPPER_NZ    SG_BIT(31)
#define PSDMA_STA_ERRORS      (PSDMA_STA_SRC_ERR | PSDMA_STA_DST_ERR | PSDMA_STA_INT_ERR)

/* Channel flow control (UG1085 "DMA Channel Flow Control"). */
#define PSDMA_SD_CACHE        8u            /* SRC and DST elements cached per channel */
#define PSDMA_STA_CACHE       4u            /* completion statuses cached */
#define PSDMA_TXN_BYTES       512u          /* arbitrated transaction size, x1..x4 links */
#define PSDMA_COALESCE_MAX    255u          /* 8-bit coalesce_count */

/* PCI IDs (Linux header): root DMA and endpoint DMA. */
#define PSDMA_RC_DEVID        0xD021u
#define PSDMA_EP_DEVID        0xD024u

/* PCIe protocol constants (ref. sec. 7, Intel "Protocol Overhead"). */
#define PCIE_TLP_OVERHEAD_3DW 20u           /* STP+seq+3DW header+LCRC+END */
#define PCIE_TLP_OVERHEAD_4DW 24u
#define PCIE_DLLP_BYTES       8u
#define PCIE_8B10B_NUM        8u
#define PCIE_8B10B_DEN        10u

#define PSDMA_EXPORTS(X) \
	X(PSDMA_AXI_BASE) X(PSDMA_CHANNELS) X(PSDMA_CHAN_STRIDE) X(PSDMA_REG_SPAN) \
	X(PSDMA_SRCQ_PTRLO) X(PSDMA_SRCQ_PTRHI) X(PSDMA_SRCQ_SZ) X(PSDMA_SRCQ_LMT) X(PSDMA_DSTQ_PTRLO) \
	X(PSDMA_STASQ_PTRLO) X(PSDMA_STADQ_PTRLO) X(PSDMA_Q_STRIDE) X(PSDMA_Q_PTRLO) X(PSDMA_Q_PTRHI) \
	X(PSDMA_Q_SZ) X(PSDMA_Q_LMT) X(PSDMA_SRCQ_NXT) X(PSDMA_DSTQ_NXT) X(PSDMA_STASQ_NXT) X(PSDMA_STADQ_NXT) \
	X(PSDMA_SCRATCH0) X(PSDMA_PCIE_INTR_CNTRL) X(PSDMA_PCIE_INTR_STATUS) X(PSDMA_AXI_INTR_CNTRL) \
	X(PSDMA_AXI_INTR_STATUS) X(PSDMA_PCIE_INTR_ASSRT) X(PSDMA_AXI_INTR_ASSRT) X(PSDMA_CNTRL) X(PSDMA_STATUS) \
	X(PSDMA_Q_SRC) X(PSDMA_Q_DST) X(PSDMA_Q_STAS) X(PSDMA_Q_STAD) X(PSDMA_NQUEUES) \
	X(PSDMA_QPTR_AXI) X(PSDMA_QPTR_ENABLE) X(PSDMA_QPTR_RDATTR) X(PSDMA_QPTR_ADDR_MASK) \
	X(PSDMA_CNTRL_ENABLE) X(PSDMA_CNTRL_RESET) X(PSDMA_CNTRL_64BIT_STA) X(PSDMA_STATUS_RUNNING) \
	X(PSDMA_STATUS_CHANNUM) X(PSDMA_STATUS_PRESENT) X(PSDMA_INTR_ENABLE) X(PSDMA_INTR_ERR_EN) \
	X(PSDMA_INTR_SGL_EN) X(PSDMA_INTR_COALESCE) X(PSDMA_ISTAT_ERR) X(PSDMA_ISTAT_SGL) X(PSDMA_ISTAT_SW) \
	X(PSDMA_SD_SIZE) X(PSDMA_SD_ADDR) X(PSDMA_SD_CTRL) X(PSDMA_SD_HANDLE) X(PSDMA_SD_UID) X(PSDMA_SD_COUNT) \
	X(PSDMA_SD_MAX_BYTES) X(PSDMA_SD_AXI) X(PSDMA_SD_EOP) X(PSDMA_SD_INTR) X(PSDMA_SD_ATTR) \
	X(PSDMA_ATTR_AXI) X(PSDMA_ATTR_PCIE) X(PSDMA_STA_SIZE) X(PSDMA_STA_FLAGS) X(PSDMA_STA_HANDLE) \
	X(PSDMA_STA_UID) X(PSDMA_STA_COMPLETED) X(PSDMA_STA_SRC_ERR) X(PSDMA_STA_DST_ERR) X(PSDMA_STA_INT_ERR) \
	X(PSDMA_STA_COUNT) X(PSDMA_STA_UPPER_NZ) X(PSDMA_SD_CACHE) X(PSDMA_STA_CACHE) X(PSDMA_TXN_BYTES) \
	X(PSDMA_COALESCE_MAX) X(PSDMA_RC_DEVID) X(PSDMA_EP_DEVID) X(PCIE_TLP_OVERHEAD_3DW) \
	X(PCIE_TLP_OVERHEAD_4DW) X(PCIE_DLLP_BYTES) X(PCIE_8B10B_NUM) X(PCIE_8B10B_DEN)

#endif /* SGDMA_PCIE_DMA_H */
