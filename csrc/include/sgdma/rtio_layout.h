/*
 * rtio_layout.h - the hardware contracts of the ARTIQ-style RTIO subsystem,
 * written once.  The C model uses the macros; the binding exports the same
 * tables to Python (sgdma._core.rtio_layout), where the trace and analyzer
 * mirrors read them, so no offset is typed twice.
 *
 * Facts from /work/shared/reference/artiq-rtio.md: DMA record layout (sec. 2.4),
 * analyzer message (sec. 4.2), CRI status bits (sec. 1.2), ACPKI structures
 * (sec. 5.2).  The CSR window offsets are this model's own map (ARTIQ's are
 * generated per build by MiSoC), one 32-bit word per CSR word as on GP (sec. 5.1).
 */
#ifndef SGDMA_RTIO_LAYOUT_H
#define SGDMA_RTIO_LAYOUT_H

/* X(name, byte offset, size in bytes): one DMA trace record, little-endian fields. */
#define RTIO_RECORD_FIELDS(X) \
	X(LENGTH, 0, 1)       \
	X(CHANNEL, 1, 3)      \
	X(TIMESTAMP, 4, 8)    \
	X(ADDRESS, 12, 1)     \
	X(DATA, 13, 4)

/* X(name, byte offset, size): one 32-byte analyzer message, big-endian fields. */
#define RTIO_MESSAGE_FIELDS(X) \
	X(DATA, 0, 8)          \
	X(ADDRESS, 8, 4)       \
	X(EXCEPTION_TYPE, 11, 1) \
	X(RTIO_COUNTER, 12, 8) \
	X(TIMESTAMP, 20, 8)    \
	X(TYPE_CHANNEL, 28, 4)

/* X(name, value): scalar constants of the contracts. */
#define RTIO_CONSTANTS(X)                  \
	X(RECORD_HEADER_BYTES, 13)         \
	X(RECORD_MAX_WORDS, 16)            \
	X(RECORD_MAX_BYTES, 77)            \
	X(END_MARKER, 0)                   \
	X(TRACE_ALIGN_ZYNQ, 128)           \
	X(TRACE_ALIGN_SOFTCORE, 64)        \
	X(MESSAGE_BYTES, 32)               \
	X(MSG_OUTPUT, 0)                   \
	X(MSG_INPUT, 1)                    \
	X(MSG_EXCEPTION, 2)                \
	X(MSG_STOPPED, 3)                  \
	X(EXC_O_UNDERFLOW, 0x14)           \
	X(EXC_I_OVERFLOW, 0x21)            \
	X(DUMP_HEADER_BYTES, 16)           \
	X(O_STATUS_WAIT, 1)                \
	X(O_STATUS_UNDERFLOW, 2)           \
	X(O_STATUS_UNREACHABLE, 4)         \
	X(DMA_ERROR_UNDERFLOW, 1)          \
	X(DMA_ERROR_LINK, 2)               \
	X(TTL_ADDR_LEVEL, 0)               \
	X(TTL_ADDR_OE, 1)                  \
	X(ACP_OUT_HEADER_BYTES, 16)        \
	X(ACP_OUT_TRANSACTION_BYTES, 80)   \
	X(ACP_IN_BYTES, 24)                \
	X(ACP_REPLY_VALID, 0x10000)

/* X(name, byte offset): the RTIO CSR window (32-bit registers). */
#define RTIO_REGS(X)                      \
	/* kernel initiator (CSR over GP) */ \
	X(KI_TARGET, 0x000)               \
	X(KI_NOW_HI, 0x004)               \
	X(KI_NOW_LO, 0x008)               \
	X(KI_O_STATUS, 0x00C)             \
	X(KI_COUNTER_HI, 0x010)           \
	X(KI_COUNTER_LO, 0x014)           \
	X(KI_COUNTER_UPDATE, 0x018)       \
	X(KI_O_DATA, 0x040) /* 16 words, highest first; word 0 issues the write */ \
	/* CRI interconnect */            \
	X(CRI_SELECTED, 0x100)            \
	/* event DMA */                   \
	X(DMA_BASE_HI, 0x200)             \
	X(DMA_BASE_LO, 0x204)             \
	X(DMA_OFFSET_HI, 0x208)           \
	X(DMA_OFFSET_LO, 0x20C)           \
	X(DMA_ENABLE, 0x210)              \
	X(DMA_ERROR, 0x214)               \
	X(DMA_ERROR_CHANNEL, 0x218)       \
	X(DMA_ERROR_TS_HI, 0x21C)         \
	X(DMA_ERROR_TS_LO, 0x220)         \
	X(DMA_ERROR_ADDRESS, 0x224)       \
	X(DMA_BUS_ERROR, 0x228)           \
	/* analyzer */                    \
	X(AN_ENABLE, 0x300)               \
	X(AN_BUSY, 0x304)                 \
	X(AN_OVERFLOW, 0x308)             \
	X(AN_OVERFLOW_RESET, 0x30C)       \
	X(AN_BASE, 0x310)                 \
	X(AN_LAST, 0x314)                 \
	X(AN_RESET, 0x318)                \
	X(AN_BYTE_COUNT, 0x31C)           \
	X(AN_BUS_ERROR, 0x320)            \
	/* ACPKI */                       \
	X(ACP_IN_BASE, 0x400)             \
	X(ACP_OUT_BASE, 0x404)            \
	X(ACP_ENABLE, 0x408)              \
	X(ACP_EVENTO, 0x40C) /* the PS evento line, driven by sev (not a CPU register) */ \
	/* credit write FIFO */           \
	X(WF_TARGET, 0x500)               \
	X(WF_TS_HI, 0x504)                \
	X(WF_TS_LO, 0x508)                \
	X(WF_DATA, 0x50C) /* writing it posts the event */ \
	X(WF_SPACE, 0x510)                \
	X(WF_ERROR, 0x514)                \
	X(WF_ERROR_CHANNEL, 0x518)        \
	X(WF_ERROR_TS_HI, 0x51C)          \
	X(WF_ERROR_TS_LO, 0x520)

#define RTIO_WINDOW_SPAN 0x1000u

#define RTIO_X_ENUM_FIELD(n, o, s) RTIO_REC_##n = (o), RTIO_REC_##n##_SIZE = (s),
enum rtio_record_field { RTIO_RECORD_FIELDS(RTIO_X_ENUM_FIELD) };
#undef RTIO_X_ENUM_FIELD
#define RTIO_X_ENUM_FIELD(n, o, s) RTIO_MSG_##n = (o), RTIO_MSG_##n##_SIZE = (s),
enum rtio_message_field { RTIO_MESSAGE_FIELDS(RTIO_X_ENUM_FIELD) };
#undef RTIO_X_ENUM_FIELD
#define RTIO_X_ENUM_CONST(n, v) RTIO_##n = (v),
enum rtio_constant { RTIO_CONSTANTS(RTIO_X_ENUM_CONST) };
#undef RTIO_X_ENUM_CONST
#define RTIO_X_ENUM_REG(n, o) RTIO_R_##n = (o),
enum rtio_reg { RTIO_REGS(RTIO_X_ENUM_REG) };
#undef RTIO_X_ENUM_REG

#endif
