"""The gateware (rtl/): S0's timing engine and the DAC streamer in Verilog,
their register include generated from csrc/include/sgdma/csm.h, lint and
synthesis runs, cocotb tests and the co-simulation against the virtual board."""
