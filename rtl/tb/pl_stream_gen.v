// pl_stream_gen: an AXI-Stream packet source for the live co-simulation tests
// (sgdma.cocotb.DmaStreamSink into the AXI DMA's S2MM).  On `start`: PACKETS packets of
// BEATS beats; beat k carries the word 0xA0000000 + k in every 32-bit lane, TLAST on each
// packet's last beat; TVALID stays high until the last beat is taken.
`timescale 1ps/1fs
module pl_stream_gen #(
    parameter DATA_WIDTH = 64,
    parameter BEATS = 8,
    parameter PACKETS = 2
) (
    input  wire clk,
    input  wire rst_n,
    input  wire start,
    output reg  done,
    output wire [DATA_WIDTH-1:0] m_axis_tdata,
    output reg  m_axis_tvalid,
    input  wire m_axis_tready,
    output wire m_axis_tlast
);
    reg [31:0] k;
    assign m_axis_tdata = {DATA_WIDTH/32{32'hA0000000 | k}};
    assign m_axis_tlast = (k % BEATS) == BEATS - 1;

    always @(posedge clk) begin
        if (!rst_n) begin
            k <= 0;
            done <= 0;
            m_axis_tvalid <= 0;
        end else if (start && !m_axis_tvalid && !done) begin
            m_axis_tvalid <= 1;
        end else if (m_axis_tvalid && m_axis_tready) begin
            k <= k + 1;
            if (k + 1 == BEATS * PACKETS) begin
                m_axis_tvalid <= 0;
                done <= 1;
            end
        end
    end
endmodule
