// pl_regs_irq: a small AXI4-Lite register block with an interrupt, for the live
// co-simulation tests (sgdma.cocotb.GpPort, PlInterrupt).  Registers (32-bit):
//   0x0 SCRATCH  read/write
//   0x4 TIMER    write N: `irq` rises N clocks later (0: never)
//   0x8 STATUS   read: bit 0 irq pending; write 1 to bit 0: clear it
// One write or read at a time; the response follows the request by one clock.
// BAD (bad-use tests): 1 never answers a write to 0xC (no BVALID); 2 raises BVALID
// with no write open when the timer fires (a response without a request).
`timescale 1ps/1fs
module pl_regs_irq #(parameter integer BAD = 0) (
    input  wire clk,
    input  wire rst_n,
    /* verilator lint_off UNUSEDSIGNAL */  // word registers: no PROT, full-word writes, addr[3:2] decoded
    input  wire [7:0] s_axil_awaddr,
    input  wire [2:0] s_axil_awprot,
    input  wire s_axil_awvalid,
    output reg  s_axil_awready,
    input  wire [31:0] s_axil_wdata,
    input  wire [3:0] s_axil_wstrb,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire s_axil_wvalid,
    output reg  s_axil_wready,
    output wire [1:0] s_axil_bresp,
    output reg  s_axil_bvalid,
    input  wire s_axil_bready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [7:0] s_axil_araddr,
    input  wire [2:0] s_axil_arprot,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire s_axil_arvalid,
    output reg  s_axil_arready,
    output reg  [31:0] s_axil_rdata,
    output wire [1:0] s_axil_rresp,
    output reg  s_axil_rvalid,
    input  wire s_axil_rready,
    output reg  irq
);
    reg [31:0] scratch, timer;
    assign s_axil_bresp = 2'b00;
    assign s_axil_rresp = 2'b00;

    always @(posedge clk) begin
        if (!rst_n) begin
            s_axil_awready <= 0;
            s_axil_wready <= 0;
            s_axil_bvalid <= 0;
            s_axil_arready <= 0;
            s_axil_rvalid <= 0;
            scratch <= 0;
            timer <= 0;
            irq <= 0;
        end else begin
            if (timer != 0) begin
                timer <= timer - 1;
                if (timer == 1) begin
                    irq <= 1;
                    if (BAD == 2)
                        s_axil_bvalid <= 1;
                end
            end
            s_axil_awready <= 0;
            s_axil_wready <= 0;
            if (s_axil_awvalid && s_axil_wvalid && !s_axil_awready && !s_axil_bvalid) begin
                s_axil_awready <= 1;
                s_axil_wready <= 1;
                s_axil_bvalid <= !(BAD == 1 && s_axil_awaddr[3:2] == 2'd3);
                case (s_axil_awaddr[3:2])
                2'd0: scratch <= s_axil_wdata;
                2'd1: timer <= s_axil_wdata;
                2'd2: if (s_axil_wdata[0]) irq <= 0;
                default: ;
                endcase
            end else if (s_axil_bvalid && s_axil_bready)
                s_axil_bvalid <= 0;
            s_axil_arready <= 0;
            if (s_axil_arvalid && !s_axil_arready && !s_axil_rvalid) begin
                s_axil_arready <= 1;
                s_axil_rvalid <= 1;
                case (s_axil_araddr[3:2])
                2'd0: s_axil_rdata <= scratch;
                2'd1: s_axil_rdata <= timer;
                2'd2: s_axil_rdata <= {31'd0, irq};
                default: s_axil_rdata <= 32'hDEADBEEF;
                endcase
            end else if (s_axil_rvalid && s_axil_rready)
                s_axil_rvalid <= 0;
        end
    end
endmodule
