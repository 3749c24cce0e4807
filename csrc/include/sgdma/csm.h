/* csm.h - the register contract of S0's PL timing state machine over
 * its two AXI GPIO blocks.  Exported to Python by CSM_EXPORTS. */
#ifndef SGDMA_CSM_H
#define SGDMA_CSM_H

#include "sgdma/pg021.h"

#define CSM_GPIO_SPAN      0x10000u   /* block B sits one span above block A */
#define MAILBOX_GPIO_BLOCK 2u         /* block C: a plain APU <-> RPU mailbox (data, flags) */
#define CSM_GPIO_DATA      0x0u       /* AXI GPIO channel 1 data (PG144) */
#define CSM_GPIO2_DATA     0x8u       /* AXI GPIO channel 2 data (PG144) */
/* block A channel 1, CPU → PL */
#define CSM_CTL_RESET      SG_BIT(0)
#define CSM_CTL_START      SG_BIT(1)
#define CSM_CTL_ACK        SG_BIT(2)
#define CSM_CTL_SEL        SG_GENMASK(5, 4)
/* block A channel 2, PL → CPU */
#define CSM_STS_READY      SG_BIT(0)
#define CSM_STS_DONE       SG_BIT(1)
#define CSM_STS_STATE      SG_GENMASK(7, 4)
/* engine states, as read in CSM_STS_STATE */
#define CSM_STATE_IDLE       0u
#define CSM_STATE_WAIT_START 1u   /* reset released: READY */
#define CSM_STATE_MM2S       2u   /* START seen: counting the stream */
#define CSM_STATE_DONE       3u   /* payload seen: DONE until ACK */
/* counter select values */
#define CSM_SEL_SETUP      0u
#define CSM_SEL_LATENCY    1u
#define CSM_SEL_THROUGHPUT 2u
#define CSM_SEL_BEATS      3u

#define CSM_EXPORTS(X) \
	X(CSM_GPIO_SPAN) X(CSM_GPIO_DATA) X(CSM_GPIO2_DATA) X(CSM_CTL_RESET) X(CSM_CTL_START) \
	X(CSM_CTL_ACK) X(CSM_CTL_SEL) X(CSM_STS_READY) X(CSM_STS_DONE) X(CSM_STS_STATE) \
	X(CSM_SEL_SETUP) X(CSM_SEL_LATENCY) X(CSM_SEL_THROUGHPUT) X(CSM_SEL_BEATS) X(MAILBOX_GPIO_BLOCK) \
	X(CSM_STATE_IDLE) X(CSM_STATE_WAIT_START) X(CSM_STATE_MM2S) X(CSM_STATE_DONE)

#endif
