// sgdma_csm - S0's PL timing engine: a GPIO handshake with the CPU and four
// counters in PL clocks, watching the MM2S AXI-Stream (it never drives TREADY).
//
//   setup       clock edges from RESET released to START seen
//   latency     clock edges from START seen to the first beat (TVALID & TREADY)
//   throughput  first beat to the last counted beat, inclusive (n back-to-back beats: n)
//   beats       beats counted; the engine is DONE at `gpio_length` beats, or at
//               the first TLAST when the length is 0
// Within one clock the control inputs act first, then the beat: a beat on the
// edge that sees START counts with latency 0 (as the model, csrc/vboard/csm.c).
// Register map: rtl/generated/sgdma_csm_regs.vh, generated from csm.h.
`include "sgdma_csm_regs.vh"

module sgdma_csm (
    input  wire        clk,
    input  wire        rst_n,           // synchronous, active low
    // AXI-Stream monitor
    input  wire        mon_tvalid,
    input  wire        mon_tready,
    input  wire        mon_tlast,
    // GPIO block A: ch1 control (CPU -> PL), ch2 status (PL -> CPU)
    /* verilator lint_off UNUSEDSIGNAL */      // a full GPIO channel: the contract's bits are used
    input  wire [31:0] gpio_ctl,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire [31:0] gpio_status,
    // GPIO block B: ch1 selected counter (PL -> CPU), ch2 length in beats (CPU -> PL)
    output reg  [31:0] gpio_count,
    input  wire [31:0] gpio_length
);
    localparam SW = `SGDMA_CSM_STS_STATE_MSB - `SGDMA_CSM_STS_STATE_LSB + 1;

    reg  [SW-1:0] state;
    reg  [31:0]   timer;                // clock edges since the last mark (reset release, START, first beat)
    reg  [31:0]   setup, latency, throughput, beats;
    reg           first_seen;
    reg           reset_q, start_q, ack_q;

    wire ctl_reset = gpio_ctl[`SGDMA_CSM_CTL_RESET_BIT];
    wire ctl_start = gpio_ctl[`SGDMA_CSM_CTL_START_BIT];
    wire ctl_ack   = gpio_ctl[`SGDMA_CSM_CTL_ACK_BIT];
    wire beat      = mon_tvalid & mon_tready;

    // next state, step by step: control first, then the beat
    reg  [SW-1:0] n_state;
    reg  [31:0]   now, n_setup, n_latency, n_throughput, n_beats;
    reg           n_first;
    always @* begin
        n_state = state;
        now = timer;
        n_setup = setup;
        n_latency = latency;
        n_throughput = throughput;
        n_beats = beats;
        n_first = first_seen;
        if (reset_q & ~ctl_reset) begin             // RESET released: READY
            n_state = `SGDMA_CSM_STATE_WAIT_START;
            now = 32'd0;
        end
        if (ctl_start & ~start_q && n_state == `SGDMA_CSM_STATE_WAIT_START) begin
            n_setup = now;
            n_state = `SGDMA_CSM_STATE_MM2S;
            n_first = 1'b0;
            now = 32'd0;
        end
        if (ctl_ack & ~ack_q && n_state == `SGDMA_CSM_STATE_DONE)
            n_state = `SGDMA_CSM_STATE_IDLE;
        if (beat && n_state == `SGDMA_CSM_STATE_MM2S) begin
            if (!n_first) begin
                n_latency = now;
                n_first = 1'b1;
                now = 32'd0;
            end
            n_beats = n_beats + 32'd1;
            if (gpio_length != 32'd0 ? n_beats >= gpio_length : mon_tlast) begin
                n_throughput = now + 32'd1;
                n_state = `SGDMA_CSM_STATE_DONE;
            end
        end
    end

    always @(posedge clk) begin
        if (!rst_n || ctl_reset) begin
            state <= `SGDMA_CSM_STATE_IDLE;
            timer <= 32'd0;
            setup <= 32'd0;
            latency <= 32'd0;
            throughput <= 32'd0;
            beats <= 32'd0;
            first_seen <= 1'b0;
        end else begin
            state <= n_state;
            timer <= now + 32'd1;
            setup <= n_setup;
            latency <= n_latency;
            throughput <= n_throughput;
            beats <= n_beats;
            first_seen <= n_first;
        end
        if (!rst_n) begin
            reset_q <= 1'b0;
            start_q <= 1'b0;
            ack_q <= 1'b0;
        end else begin
            reset_q <= ctl_reset;
            start_q <= ctl_start;
            ack_q <= ctl_ack;
        end
    end

    assign gpio_status = ({{(32 - SW){1'b0}}, state} << `SGDMA_CSM_STS_STATE_LSB)
                       | ({31'd0, state == `SGDMA_CSM_STATE_WAIT_START} << `SGDMA_CSM_STS_READY_BIT)
                       | ({31'd0, state == `SGDMA_CSM_STATE_DONE} << `SGDMA_CSM_STS_DONE_BIT);

    always @* begin
        case (gpio_ctl[`SGDMA_CSM_CTL_SEL_MSB:`SGDMA_CSM_CTL_SEL_LSB])
            `SGDMA_CSM_SEL_SETUP:      gpio_count = setup;
            `SGDMA_CSM_SEL_LATENCY:    gpio_count = latency;
            `SGDMA_CSM_SEL_THROUGHPUT: gpio_count = throughput;
            default:                   gpio_count = beats;
        endcase
    end
endmodule
