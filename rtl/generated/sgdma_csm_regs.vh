// sgdma_csm_regs.vh - the timing engine's register contract for the RTL.
// Generated from csrc/include/sgdma/csm.h by `sgdma rtl regs`: do not edit.
`ifndef SGDMA_CSM_REGS_VH
`define SGDMA_CSM_REGS_VH

// AXI GPIO (PG144) register offsets; block B sits one span above block A
`define SGDMA_CSM_GPIO_SPAN            32'h00010000
`define SGDMA_CSM_GPIO_DATA            32'h00000000
`define SGDMA_CSM_GPIO2_DATA           32'h00000008

// block A channel 1 (CPU -> PL) control, channel 2 (PL -> CPU) status
`define SGDMA_CSM_CTL_RESET_BIT        0
`define SGDMA_CSM_CTL_START_BIT        1
`define SGDMA_CSM_CTL_ACK_BIT          2
`define SGDMA_CSM_CTL_SEL_LSB          4
`define SGDMA_CSM_CTL_SEL_MSB          5
`define SGDMA_CSM_STS_READY_BIT        0
`define SGDMA_CSM_STS_DONE_BIT         1
`define SGDMA_CSM_STS_STATE_LSB        4
`define SGDMA_CSM_STS_STATE_MSB        7

// counter select values (CSM_CTL_SEL)
`define SGDMA_CSM_SEL_SETUP            2'd0
`define SGDMA_CSM_SEL_LATENCY          2'd1
`define SGDMA_CSM_SEL_THROUGHPUT       2'd2
`define SGDMA_CSM_SEL_BEATS            2'd3

// engine states (CSM_STS_STATE)
`define SGDMA_CSM_STATE_IDLE           4'd0
`define SGDMA_CSM_STATE_WAIT_START     4'd1
`define SGDMA_CSM_STATE_MM2S           4'd2
`define SGDMA_CSM_STATE_DONE           4'd3

`endif
