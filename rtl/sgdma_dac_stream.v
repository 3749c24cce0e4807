// sgdma_dac_stream - the PL consumer of a gate sequence: AXI-Stream slave ->
// FIFO (FIFO_DEPTH words) -> one word every GATE_CLOCKS clocks to the DAC.
//
// Playback starts LEAD_CLOCKS after the first word is accepted; word j is due
// GATE_CLOCKS after word j-1 was played.  A word that is not there when due
// starves the DAC (`starved`): it holds, and plays the word the clock it
// arrives, so the schedule slips.  That word is an underflow, counted when it
// arrives (an ended stream is no underflow), with the gate (TLAST-delimited
// packet) of the first one.  TREADY falls while the FIFO is full, except on the
// clock a word leaves (back-pressure on the DMA).  An empty FIFO passes an
// arriving word straight to the DAC.  Behaviour of csrc/vboard/dac.c.
module sgdma_dac_stream #(
    parameter integer DATA_WIDTH  = 64,
    parameter integer FIFO_DEPTH  = 64,    // words; a power of two >= 2
    parameter integer GATE_CLOCKS = 250,   // clocks per DAC word; >= 1
    parameter integer LEAD_CLOCKS = 250    // first word accepted -> first word played; >= 0
) (
    input  wire                  clk,
    input  wire                  rst_n,    // synchronous, active low
    // AXI-Stream slave (from the AXI DMA's MM2S)
    input  wire [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,
    // DAC side
    output reg  [DATA_WIDTH-1:0] dac_data,
    output reg                   dac_valid,             // one clock per word played
    // status
    output reg                   starved,               // a word was due and the FIFO is empty
    output reg                   underflow,             // one clock per late word, when it arrives
    output reg  [31:0]           underflow_count,       // saturates
    output reg  [31:0]           first_underflow_gate,
    output reg                   first_underflow_valid
);
    // ---- parameter rules: refused at elaboration ---------------------------------
    // $fatal in a generate block is SystemVerilog (Verilator, Vivado); yosys
    // prints the message only for $error; Icarus has no elaboration tasks, so
    // there an unknown module named after the rule stops elaboration instead.
`ifdef __ICARUS__
 `define SGDMA_REFUSE(rule, msg) rule refused_();
`elsif YOSYS
 `define SGDMA_REFUSE(rule, msg) $error(msg);
`else
 `define SGDMA_REFUSE(rule, msg) $fatal(1, msg);
`endif
    generate
        if (FIFO_DEPTH < 2 || (FIFO_DEPTH & (FIFO_DEPTH - 1)) != 0) begin : bad_fifo_depth
            `SGDMA_REFUSE(sgdma_dac_stream_FIFO_DEPTH_must_be_a_power_of_two_at_least_2,
                          "sgdma_dac_stream: FIFO_DEPTH must be a power of two >= 2 (set e.g. 64)")
        end
        if (GATE_CLOCKS < 1) begin : bad_gate_clocks
            `SGDMA_REFUSE(sgdma_dac_stream_GATE_CLOCKS_must_be_at_least_1,
                          "sgdma_dac_stream: GATE_CLOCKS (the gate period) must be >= 1 clock")
        end
        if (LEAD_CLOCKS < 0) begin : bad_lead_clocks
            `SGDMA_REFUSE(sgdma_dac_stream_LEAD_CLOCKS_must_be_at_least_0,
                          "sgdma_dac_stream: LEAD_CLOCKS must be >= 0")
        end
        if (DATA_WIDTH < 1) begin : bad_data_width
            `SGDMA_REFUSE(sgdma_dac_stream_DATA_WIDTH_must_be_at_least_1,
                          "sgdma_dac_stream: DATA_WIDTH must be >= 1")
        end
    endgenerate
`undef SGDMA_REFUSE

    localparam integer AW = $clog2(FIFO_DEPTH < 2 ? 2 : FIFO_DEPTH);
    localparam [AW:0]  DEPTH = FIFO_DEPTH[AW:0];
    localparam [31:0]  GATE_LAST = GATE_CLOCKS - 1;
    localparam [31:0]  LEAD_LAST = LEAD_CLOCKS - 1;

    reg  [DATA_WIDTH-1:0] mem [0:FIFO_DEPTH-1];
    reg  [AW-1:0] wr_ptr, rd_ptr;
    reg  [AW:0]   count;
    reg           started;
    reg  [31:0]   wait_cnt;                 // clocks until the next word is due
    reg  [31:0]   gates_in;                 // TLASTs accepted: the gate of the next word to arrive

    wire due_now = started && wait_cnt == 32'd0;
    wire wr      = s_axis_tvalid && s_axis_tready;
    wire due     = due_now || (!started && wr && LEAD_CLOCKS == 0);
    wire avail   = count != {(AW + 1){1'b0}} || wr;
    wire pop     = due && avail;
    wire late    = starved && wr;          // the word the DAC waited for

    assign s_axis_tready = count != DEPTH || due_now;

    always @(posedge clk) begin
        if (wr)
            mem[wr_ptr] <= s_axis_tdata;
        if (pop)
            dac_data <= count == {(AW + 1){1'b0}} ? s_axis_tdata : mem[rd_ptr];
    end

    always @(posedge clk) begin
        if (!rst_n) begin
            wr_ptr <= {AW{1'b0}};
            rd_ptr <= {AW{1'b0}};
            count <= {(AW + 1){1'b0}};
            started <= 1'b0;
            starved <= 1'b0;
            wait_cnt <= 32'd0;
            gates_in <= 32'd0;
            dac_valid <= 1'b0;
            underflow <= 1'b0;
            underflow_count <= 32'd0;
            first_underflow_gate <= 32'd0;
            first_underflow_valid <= 1'b0;
        end else begin
            if (wr)
                wr_ptr <= wr_ptr + 1'b1;
            if (pop)
                rd_ptr <= rd_ptr + 1'b1;
            count <= count + {{AW{1'b0}}, wr} - {{AW{1'b0}}, pop};
            if (wr && s_axis_tlast)
                gates_in <= gates_in + 32'd1;
            if (wr)
                started <= 1'b1;
            if (pop)
                wait_cnt <= GATE_LAST;
            else if (!started && wr)
                wait_cnt <= LEAD_LAST;
            else if (started && wait_cnt != 32'd0)
                wait_cnt <= wait_cnt - 32'd1;
            dac_valid <= pop;
            underflow <= late;
            if (due_now && !avail)
                starved <= 1'b1;
            else if (pop)
                starved <= 1'b0;
            if (late) begin
                if (underflow_count != 32'hFFFF_FFFF)
                    underflow_count <= underflow_count + 32'd1;
                if (!first_underflow_valid) begin
                    first_underflow_gate <= gates_in;
                    first_underflow_valid <= 1'b1;
                end
            end
        end
    end
endmodule
