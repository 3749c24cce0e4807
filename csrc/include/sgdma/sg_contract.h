/*
 * sg_contract.h - GENERATED from spec/pg021.toml by scripts/gen_contract.py.  Do not edit:
 * change the spec and rebuild (setup.py regenerates it; tests/test_contract.py checks it).
 *
 * The driver core's side of the contract: channel numbers, fill/completion flags,
 * the default poll bound and the status codes with their rules and fixes.
 *
 * Freestanding: only <stdint.h>.
 */
#ifndef SGDMA_SG_CONTRACT_H
#define SGDMA_SG_CONTRACT_H

#include "sgdma/pg021.h"

enum sg_dir { SG_MM2S = 0, SG_S2MM = 1 };
#define SG_BD_SOF                  SG_BIT(0)     /* fill/completion flag: BD starts a packet */
#define SG_BD_EOF                  SG_BIT(1)     /* fill/completion flag: BD ends a packet */
#define SG_DEFAULT_POLL_LIMIT      1000000u      /* max register reads in any wait when cfg.poll_limit = 0 */

/* Status codes: X(name, rule, fix), in enum order. */
#define SG_STATUS_LIST(X) \
	X(SG_OK, "ok", "") \
	X(SG_E_ARG, "invalid argument", "check the arguments named in the message") \
	X(SG_E_CONFIG, "channel configuration invalid or not what the hardware reports", "match addr_width/length_width/data width/include_sg to the IP build") \
	X(SG_E_ALIGN, "address not aligned as PG021 requires", "align BDs to 64 bytes and buffers to the memory-map data width (or build with DRE)") \
	X(SG_E_LENGTH_ZERO, "buffer length is zero (PG021: DMAIntErr)", "give every BD a length >= 1") \
	X(SG_E_LENGTH_WIDTH, "length exceeds 2^length_width - 1 bytes", "split the buffer over several BDs or rebuild the IP with a wider length register") \
	X(SG_E_STREAM_MULTIPLE, "non-last BD of a packet is not a multiple of the stream width", "make every BD except the packet's last a multiple of the stream width in bytes") \
	X(SG_E_ADDR_RANGE, "address not reachable by the DMA", "use memory the DMA can see and that fits the configured address width") \
	X(SG_E_RING_FULL, "no free BD in the ring", "reclaim completed BDs or use a larger ring") \
	X(SG_E_RING_EMPTY, "nothing to submit", "fill BDs before submitting") \
	X(SG_E_PACKET_OPEN, "submission ends inside a packet (last BD lacks EOF)", "set EOF on the last BD of every packet before submitting") \
	X(SG_E_NOT_HALTED, "register may only change while the channel is halted", "halt or reset the channel first") \
	X(SG_E_TAIL_NOT_IN_RING, "tail descriptor is not a BD of this ring", "write TAILDESC with the address of a BD in the ring (cyclic mode: one outside it)") \
	X(SG_E_MODE, "operation does not exist in this build or mode", "use SG calls only when DMASR.SGIncld = 1, simple-mode calls only when it is 0") \
	X(SG_E_BUSY, "channel is busy", "wait for the running transfer to finish") \
	X(SG_E_TIMEOUT, "bounded wait expired", "inspect the register snapshot; the engine never finished") \
	X(SG_E_HW, "the DMA reported an error in DMASR", "read the decoded bits; recover with a soft reset (it resets both channels)")

/* Every name a front end (Python) may need. */
#define SG_CONTRACT_EXPORTS(X) \
	X(SG_MM2S) X(SG_S2MM) X(SG_BD_SOF) \
	X(SG_BD_EOF) X(SG_DEFAULT_POLL_LIMIT)

#endif /* SGDMA_SG_CONTRACT_H */
