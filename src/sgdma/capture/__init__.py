"""Continuous capture (S2MM) and host transport: buffer pools, copy vs zero-copy APIs, cache policies.

* ``driver``: CaptureDriver (N armed buffers, IOC per buffer, buffer swapping), CPU accounting;
* ``transport``: the copy API (``read``/``write``), the zero-copy API (``acquire``/``release``) for
  capture and playback, and the batched zero-copy API (``read`` lends every completed buffer, ``write``
  gives a batch back);
* ``session``: ``run_capture`` (ADC → FIFO → S2MM → DDR → the application, verified end to end);
* ``sweep``: ``sweep_buffer_size``, ``find_max_rate``, ``plot_sweep``;
(``sgdma capture`` lives in ``sgdma.cli.capture``.)
"""
from sgdma.capture.driver import (DROPPED_BEFORE, DROPPED_WITHIN, EOF, MODES, SOF, CaptureDriver, CaptureError,  # noqa: F401
                     CaptureTimeout)
from sgdma.capture.session import CounterCheck, run_capture  # noqa: F401
from sgdma.capture.transport import (APIS, BatchReader, BufferView, CopyReader, CopyWriter, PlaybackDriver, ZeroCopyReader,  # noqa: F401
                        ZeroCopyWriter, open_rx, open_tx)
from sgdma.capture.sweep import find_max_rate, plot_sweep, sweep_buffer_size, sweep_table  # noqa: F401
