// sgdma_cosim_top - the PL as on S0's board: the AXI DMA's MM2S stream goes to
// the DAC streamer (or, with USE_DAC = 0, to a sink that is always ready) and
// the timing engine watches the handshake.  Testbench top for the co-simulation.
module sgdma_cosim_top #(
    parameter integer USE_DAC     = 1,
    parameter integer DATA_WIDTH  = 32,
    parameter integer FIFO_DEPTH  = 16,
    parameter integer GATE_CLOCKS = 25,
    parameter integer LEAD_CLOCKS = 125
) (
    input  wire                  clk,
    input  wire                  rst_n,
    input  wire [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,
    input  wire [31:0]           gpio_ctl,
    output wire [31:0]           gpio_status,
    output wire [31:0]           gpio_count,
    input  wire [31:0]           gpio_length,
    output wire                  dac_valid,
    output wire                  starved,
    output wire                  underflow,
    output wire [31:0]           underflow_count,
    output wire [31:0]           first_underflow_gate,
    output wire                  first_underflow_valid
);
    generate
        if (USE_DAC != 0) begin : dac
            /* verilator lint_off UNUSEDSIGNAL */  // the DAC's words: the testbench watches dac_valid
            wire [DATA_WIDTH-1:0] dac_data;
            /* verilator lint_on UNUSEDSIGNAL */
            sgdma_dac_stream #(.DATA_WIDTH(DATA_WIDTH), .FIFO_DEPTH(FIFO_DEPTH), .GATE_CLOCKS(GATE_CLOCKS),
                               .LEAD_CLOCKS(LEAD_CLOCKS)) u_dac (
                .clk(clk), .rst_n(rst_n), .s_axis_tdata(s_axis_tdata), .s_axis_tvalid(s_axis_tvalid),
                .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast), .dac_data(dac_data),
                .dac_valid(dac_valid), .starved(starved), .underflow(underflow),
                .underflow_count(underflow_count), .first_underflow_gate(first_underflow_gate),
                .first_underflow_valid(first_underflow_valid));
        end else begin : sink
            assign s_axis_tready = 1'b1;
            assign dac_valid = 1'b0;
            assign starved = 1'b0;
            assign underflow = 1'b0;
            assign underflow_count = 32'd0;
            assign first_underflow_gate = 32'd0;
            assign first_underflow_valid = 1'b0;
        end
    endgenerate

    sgdma_csm u_csm (
        .clk(clk), .rst_n(rst_n), .mon_tvalid(s_axis_tvalid), .mon_tready(s_axis_tready),
        .mon_tlast(s_axis_tlast), .gpio_ctl(gpio_ctl), .gpio_status(gpio_status), .gpio_count(gpio_count),
        .gpio_length(gpio_length));
endmodule
