"""Outputs: reports, plots and timelines (VCD, Perfetto)."""
