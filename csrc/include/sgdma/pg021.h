/*
 * pg021.h - GENERATED from spec/pg021.toml by scripts/gen_contract.py.  Do not edit:
 * change the spec and rebuild (setup.py regenerates it; tests/test_contract.py checks it).
 *
 * The hardware contract of the Xilinx AXI DMA (LogiCORE PG021 v7.1): register offsets, bit
 * fields, the buffer-descriptor layout, build limits and internal latencies.
 *
 * Freestanding: only <stdint.h>.
 */
#ifndef SGDMA_PG021_H
#define SGDMA_PG021_H

#include <stdint.h>

#define SG_BIT(n)        (1u << (n))
#define SG_GENMASK(h, l) (((~0u) >> (31 - (h))) & ~((1u << (l)) - 1u))
#define SG_FIELD_GET(mask, reg) (((reg) & (mask)) / ((mask) & ~((mask) << 1)))
#define SG_FIELD_PREP(mask, val) (((uint32_t)(val) * ((mask) & ~((mask) << 1))) & (mask))

/* ---- [map] ---- */
#define PG021_MM2S_BASE            0x00u         /* MM2S register block */
#define PG021_S2MM_BASE            0x30u         /* S2MM register block */
#define PG021_CHAN_SPAN            0x30u         /* bytes per channel block */
#define PG021_REG_SPAN             0x60u         /* bytes of register space both channels use */
#define PG021_DMACR                0x00u
#define PG021_DMASR                0x04u
#define PG021_CURDESC              0x08u
#define PG021_CURDESC_MSB          0x0Cu
#define PG021_TAILDESC             0x10u
#define PG021_TAILDESC_MSB         0x14u
#define PG021_ADDR                 0x18u         /* SA (MM2S) or DA (S2MM), simple mode */
#define PG021_ADDR_MSB             0x1Cu
#define PG021_LENGTH               0x28u         /* simple mode; a non-zero write starts */
#define PG021_SG_CTL               0x2Cu         /* absolute offset; multichannel builds only */

/* ---- [dmacr] ---- */
#define PG021_CR_RS                SG_BIT(0)
#define PG021_CR_RSVD1             SG_BIT(1)     /* reserved, reads as 1 */
#define PG021_CR_RESET             SG_BIT(2)
#define PG021_CR_KEYHOLE           SG_BIT(3)
#define PG021_CR_CYCLIC            SG_BIT(4)
#define PG021_CR_IOC_IRQEN         SG_BIT(12)
#define PG021_CR_DLY_IRQEN         SG_BIT(13)
#define PG021_CR_ERR_IRQEN         SG_BIT(14)
#define PG021_CR_IRQ_ALL           (PG021_CR_IOC_IRQEN | PG021_CR_DLY_IRQEN | PG021_CR_ERR_IRQEN)
#define PG021_CR_THRESHOLD         SG_GENMASK(23, 16)
#define PG021_CR_DELAY             SG_GENMASK(31, 24)
#define PG021_CR_IRQ_FIELDS        (PG021_CR_IRQ_ALL | PG021_CR_THRESHOLD | PG021_CR_DELAY) /* what the driver keeps across resets */
#define PG021_CR_RESET_VALUE       0x00010002u   /* DMACR after reset */

/* ---- [dmasr] ---- */
#define PG021_SR_HALTED            SG_BIT(0)
#define PG021_SR_IDLE              SG_BIT(1)
#define PG021_SR_SGINCLD           SG_BIT(3)
#define PG021_SR_DMAINTERR         SG_BIT(4)
#define PG021_SR_DMASLVERR         SG_BIT(5)
#define PG021_SR_DMADECERR         SG_BIT(6)
#define PG021_SR_SGINTERR          SG_BIT(8)
#define PG021_SR_SGSLVERR          SG_BIT(9)
#define PG021_SR_SGDECERR          SG_BIT(10)
#define PG021_SR_IOC_IRQ           SG_BIT(12)
#define PG021_SR_DLY_IRQ           SG_BIT(13)
#define PG021_SR_ERR_IRQ           SG_BIT(14)
#define PG021_SR_IRQ_ALL           (PG021_SR_IOC_IRQ | PG021_SR_DLY_IRQ | PG021_SR_ERR_IRQ)
#define PG021_SR_ERR_ALL           (PG021_SR_DMAINTERR | PG021_SR_DMASLVERR | PG021_SR_DMADECERR | PG021_SR_SGINTERR | PG021_SR_SGSLVERR | PG021_SR_SGDECERR)
#define PG021_SR_THRESHOLD_STS     SG_GENMASK(23, 16)
#define PG021_SR_DELAY_STS         SG_GENMASK(31, 24)

/* ---- [bd] ---- */
#define PG021_BD_ALIGN             0x40u
#define PG021_BD_SIZE              0x40u
#define PG021_BD_NXTDESC           0x00u
#define PG021_BD_NXTDESC_MSB       0x04u
#define PG021_BD_BUFFER            0x08u
#define PG021_BD_BUFFER_MSB        0x0Cu
#define PG021_BD_CONTROL           0x18u
#define PG021_BD_STATUS            0x1Cu
#define PG021_BD_APP0              0x20u
#define PG021_BD_APP_COUNT         0x05u
#define PG021_BD_HW_BYTES          0x34u

/* ---- [bd_fields] ---- */
#define PG021_BD_LEN_MASK          SG_GENMASK(25, 0)
#define PG021_BD_CTRL_TXEOF        SG_BIT(26)
#define PG021_BD_CTRL_TXSOF        SG_BIT(27)
#define PG021_BD_STS_RXEOF         SG_BIT(26)
#define PG021_BD_STS_RXSOF         SG_BIT(27)
#define PG021_BD_STS_INTERR        SG_BIT(28)
#define PG021_BD_STS_SLVERR        SG_BIT(29)
#define PG021_BD_STS_DECERR        SG_BIT(30)
#define PG021_BD_STS_CMPLT         SG_BIT(31)
#define PG021_BD_STS_ERR_ALL       (PG021_BD_STS_INTERR | PG021_BD_STS_SLVERR | PG021_BD_STS_DECERR)

/* ---- [limits] ---- */
#define PG021_LENGTH_WIDTH_MIN     8u
#define PG021_LENGTH_WIDTH_MAX     26u
#define PG021_LENGTH_WIDTH_DEFAULT 14u           /* IP default: max 16 383 bytes */
#define PG021_MAX_BURST_MIN        2u
#define PG021_MAX_BURST_MAX        256u
#define PG021_THRESHOLD_MAX        255u
#define PG021_BOUNDARY_4K          4096u         /* AXI bursts never cross it */

/* ---- [latency] ---- */
#define PG021_LAT_TAIL_TO_SG_AR    10u
#define PG021_LAT_SG_AR_TO_MM2S_AR 28u
#define PG021_LAT_MM2S_AR_TO_TVALID 6u
#define PG021_LAT_S2MM_TVALID_TO_AW 39u
#define PG021_LAT_S2MM_BURST_GAP   5u

/* BD in memory, little-endian words.  Laid out so a CPU can write it directly. */
struct pg021_bd {
	uint32_t nxtdesc;
	uint32_t nxtdesc_msb;
	uint32_t buffer;
	uint32_t buffer_msb;
	uint32_t rsvd[2];
	uint32_t control;
	uint32_t status;
	uint32_t app[5];
	uint32_t sw[3];
};

/* Every name a front end (Python) may need; X(name) expands to something using the macro. */
#define PG021_EXPORTS(X) \
	X(PG021_MM2S_BASE) X(PG021_S2MM_BASE) X(PG021_CHAN_SPAN) \
	X(PG021_REG_SPAN) X(PG021_DMACR) X(PG021_DMASR) \
	X(PG021_CURDESC) X(PG021_CURDESC_MSB) X(PG021_TAILDESC) \
	X(PG021_TAILDESC_MSB) X(PG021_ADDR) X(PG021_ADDR_MSB) \
	X(PG021_LENGTH) X(PG021_SG_CTL) X(PG021_CR_RS) \
	X(PG021_CR_RSVD1) X(PG021_CR_RESET) X(PG021_CR_KEYHOLE) \
	X(PG021_CR_CYCLIC) X(PG021_CR_IOC_IRQEN) X(PG021_CR_DLY_IRQEN) \
	X(PG021_CR_ERR_IRQEN) X(PG021_CR_IRQ_ALL) X(PG021_CR_THRESHOLD) \
	X(PG021_CR_DELAY) X(PG021_CR_IRQ_FIELDS) X(PG021_CR_RESET_VALUE) \
	X(PG021_SR_HALTED) X(PG021_SR_IDLE) X(PG021_SR_SGINCLD) \
	X(PG021_SR_DMAINTERR) X(PG021_SR_DMASLVERR) X(PG021_SR_DMADECERR) \
	X(PG021_SR_SGINTERR) X(PG021_SR_SGSLVERR) X(PG021_SR_SGDECERR) \
	X(PG021_SR_IOC_IRQ) X(PG021_SR_DLY_IRQ) X(PG021_SR_ERR_IRQ) \
	X(PG021_SR_IRQ_ALL) X(PG021_SR_ERR_ALL) X(PG021_SR_THRESHOLD_STS) \
	X(PG021_SR_DELAY_STS) X(PG021_BD_ALIGN) X(PG021_BD_SIZE) \
	X(PG021_BD_NXTDESC) X(PG021_BD_NXTDESC_MSB) X(PG021_BD_BUFFER) \
	X(PG021_BD_BUFFER_MSB) X(PG021_BD_CONTROL) X(PG021_BD_STATUS) \
	X(PG021_BD_APP0) X(PG021_BD_APP_COUNT) X(PG021_BD_HW_BYTES) \
	X(PG021_BD_LEN_MASK) X(PG021_BD_CTRL_TXEOF) X(PG021_BD_CTRL_TXSOF) \
	X(PG021_BD_STS_RXEOF) X(PG021_BD_STS_RXSOF) X(PG021_BD_STS_INTERR) \
	X(PG021_BD_STS_SLVERR) X(PG021_BD_STS_DECERR) X(PG021_BD_STS_CMPLT) \
	X(PG021_BD_STS_ERR_ALL) X(PG021_LENGTH_WIDTH_MIN) X(PG021_LENGTH_WIDTH_MAX) \
	X(PG021_LENGTH_WIDTH_DEFAULT) X(PG021_MAX_BURST_MIN) X(PG021_MAX_BURST_MAX) \
	X(PG021_THRESHOLD_MAX) X(PG021_BOUNDARY_4K) X(PG021_LAT_TAIL_TO_SG_AR) \
	X(PG021_LAT_SG_AR_TO_MM2S_AR) X(PG021_LAT_MM2S_AR_TO_TVALID) X(PG021_LAT_S2MM_TVALID_TO_AW) \
	X(PG021_LAT_S2MM_BURST_GAP)

#endif /* SGDMA_PG021_H */
