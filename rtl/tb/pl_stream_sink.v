// pl_stream_sink: an AXI-Stream slave for the live co-simulation tests (sgdma.cocotb.DmaStreamSource
// from the AXI DMA's MM2S).  TREADY is high on one clock in READY_EVERY (counted from reset), so
// the DMA's stream is back-pressured with a duty cycle of 1/READY_EVERY; it counts the beats and
// the packets (TLAST) it takes and the bytes TKEEP marks valid.
`timescale 1ps/1fs
module pl_stream_sink #(
    parameter DATA_WIDTH = 128,
    parameter READY_EVERY = 1
) (
    input  wire clk,
    input  wire rst_n,
    /* verilator lint_off UNUSEDSIGNAL */  // the testbench checks the data on the bus
    input  wire [DATA_WIDTH-1:0] s_axis_tdata,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [DATA_WIDTH/8-1:0] s_axis_tkeep,
    input  wire s_axis_tvalid,
    output wire s_axis_tready,
    input  wire s_axis_tlast,
    output reg  [31:0] beats,
    output reg  [31:0] packets,
    output reg  [31:0] bytes
);
    reg [15:0] phase;
    integer i;
    reg [31:0] n;
    assign s_axis_tready = rst_n && phase == 0;

    always @(*) begin
        n = 0;
        for (i = 0; i < DATA_WIDTH / 8; i = i + 1)
            n = n + {31'd0, s_axis_tkeep[i]};
    end

    always @(posedge clk) begin
        if (!rst_n) begin
            phase <= 0;
            beats <= 0;
            packets <= 0;
            bytes <= 0;
        end else begin
            phase <= phase + 1 == READY_EVERY ? 0 : phase + 1;
            if (s_axis_tvalid && s_axis_tready) begin
                beats <= beats + 1;
                packets <= packets + {31'd0, s_axis_tlast};
                bytes <= bytes + n;
            end
        end
    end
endmodule
