// pl_mem_reader: a small PL memory tester on an S_AXI_HP-style master port, for the
// live co-simulation tests (sgdma.cocotb.PsMemoryPort).  On `start`: optionally one
// write burst of a counter pattern at base + 0x1000, then BURSTS read bursts of BEATS
// beats from base, one outstanding, GAP idle clocks after each RLAST.  RREADY is high
// except one clock in every RSTALL (0: never low).  BAD breaks AXI on purpose:
// 1 = an AR of 2*BEATS beats (too long for an AXI3 port), 2 = WLAST on the 2nd beat,
// 3 = RREADY never asserted.
`timescale 1ps/1fs
module pl_mem_reader #(
    parameter DATA_WIDTH = 64,
    parameter ID_WIDTH = 6,
    parameter BEATS = 16,
    parameter BURSTS = 4,
    parameter GAP = 2,
    parameter WRITE = 0,
    parameter RSTALL = 0,
    parameter BAD = 0
) (
    input  wire clk,
    input  wire rst_n,
    input  wire start,
    input  wire [31:0] base,
    output reg  done,
    output wire [ID_WIDTH-1:0] m_axi_hp0_awid,
    output reg  [31:0] m_axi_hp0_awaddr,
    output wire [7:0] m_axi_hp0_awlen,
    output wire [2:0] m_axi_hp0_awsize,
    output wire [1:0] m_axi_hp0_awburst,
    output reg  m_axi_hp0_awvalid,
    input  wire m_axi_hp0_awready,
    output reg  [DATA_WIDTH-1:0] m_axi_hp0_wdata,
    output wire [DATA_WIDTH/8-1:0] m_axi_hp0_wstrb,
    output reg  m_axi_hp0_wlast,
    output reg  m_axi_hp0_wvalid,
    input  wire m_axi_hp0_wready,
    /* verilator lint_off UNUSEDSIGNAL */  // the testbench checks responses and data on the bus
    input  wire [ID_WIDTH-1:0] m_axi_hp0_bid,
    input  wire [1:0] m_axi_hp0_bresp,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire m_axi_hp0_bvalid,
    output reg  m_axi_hp0_bready,
    output wire [ID_WIDTH-1:0] m_axi_hp0_arid,
    output reg  [31:0] m_axi_hp0_araddr,
    output wire [7:0] m_axi_hp0_arlen,
    output wire [2:0] m_axi_hp0_arsize,
    output wire [1:0] m_axi_hp0_arburst,
    output reg  m_axi_hp0_arvalid,
    input  wire m_axi_hp0_arready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [ID_WIDTH-1:0] m_axi_hp0_rid,
    input  wire [DATA_WIDTH-1:0] m_axi_hp0_rdata,
    input  wire [1:0] m_axi_hp0_rresp,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire m_axi_hp0_rlast,
    input  wire m_axi_hp0_rvalid,
    output wire m_axi_hp0_rready
);
    localparam S_IDLE = 0, S_AW = 1, S_W = 2, S_B = 3, S_AR = 4, S_R = 5, S_GAP = 6, S_DONE = 7;
    localparam integer LOG2_BYTES = $clog2(DATA_WIDTH / 8);
    localparam [2:0] SIZE = LOG2_BYTES[2:0];
    reg [2:0] state;
    reg [15:0] count, burst;
    reg [31:0] stall;
    wire [15:0] next_count = count + 16'd1;

    assign m_axi_hp0_awid = 0;
    assign m_axi_hp0_arid = 1;
    assign m_axi_hp0_awlen = BEATS - 1;
    assign m_axi_hp0_arlen = BAD == 1 ? 2 * BEATS - 1 : BEATS - 1;
    assign m_axi_hp0_awsize = SIZE;
    assign m_axi_hp0_arsize = SIZE;
    assign m_axi_hp0_awburst = 2'b01;
    assign m_axi_hp0_arburst = 2'b01;
    assign m_axi_hp0_wstrb = {DATA_WIDTH/8{1'b1}};
    assign m_axi_hp0_rready = BAD != 3 && state == S_R && !(RSTALL != 0 && stall == RSTALL - 1);

    always @(posedge clk) begin
        if (!rst_n) begin
            state <= S_IDLE;
            done <= 0;
            count <= 0;
            burst <= 0;
            stall <= 0;
            m_axi_hp0_awvalid <= 0;
            m_axi_hp0_wvalid <= 0;
            m_axi_hp0_wlast <= 0;
            m_axi_hp0_bready <= 0;
            m_axi_hp0_arvalid <= 0;
        end else begin
            stall <= (RSTALL != 0 && stall == RSTALL - 1) ? 0 : stall + 1;
            case (state)
            S_IDLE: if (start) begin
                if (WRITE != 0 || BAD == 2) begin
                    m_axi_hp0_awaddr <= base + 32'h1000;
                    m_axi_hp0_awvalid <= 1;
                    state <= S_AW;
                end else begin
                    m_axi_hp0_araddr <= base;
                    m_axi_hp0_arvalid <= 1;
                    state <= S_AR;
                end
            end
            S_AW: if (m_axi_hp0_awready) begin
                m_axi_hp0_awvalid <= 0;
                m_axi_hp0_wvalid <= 1;
                m_axi_hp0_wdata <= {DATA_WIDTH/32{32'hC0DE0000}};
                m_axi_hp0_wlast <= BEATS == 1;
                count <= 0;
                state <= S_W;
            end
            S_W: if (m_axi_hp0_wready) begin
                if (m_axi_hp0_wlast) begin
                    m_axi_hp0_wvalid <= 0;
                    m_axi_hp0_wlast <= 0;
                    m_axi_hp0_bready <= 1;
                    state <= S_B;
                end else begin
                    count <= count + 1;
                    m_axi_hp0_wdata <= {DATA_WIDTH/32{32'hC0DE0000 | {16'd0, next_count}}};
                    m_axi_hp0_wlast <= (count + 2 == BEATS) || (BAD == 2 && count == 0);
                end
            end
            S_B: if (m_axi_hp0_bvalid) begin
                m_axi_hp0_bready <= 0;
                m_axi_hp0_araddr <= base;
                m_axi_hp0_arvalid <= 1;
                state <= S_AR;
            end
            S_AR: if (m_axi_hp0_arready) begin
                m_axi_hp0_arvalid <= 0;
                state <= S_R;
            end
            S_R: if (m_axi_hp0_rvalid && m_axi_hp0_rready && m_axi_hp0_rlast) begin
                burst <= burst + 1;
                count <= 0;
                state <= burst + 1 == BURSTS ? S_DONE : S_GAP;
            end
            S_GAP: if (count + 1 >= GAP) begin
                m_axi_hp0_araddr <= base + (burst * BEATS * (DATA_WIDTH / 8));
                m_axi_hp0_arvalid <= 1;
                state <= S_AR;
            end else
                count <= count + 1;
            S_DONE: done <= 1;
            endcase
        end
    end
endmodule
