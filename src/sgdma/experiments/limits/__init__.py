"""Verdict, margin and binding resource of each experiment, decided by the model: the highest sustained
operating point is bisected, then the run is replayed with one resource at a time relaxed (the demo's
headroom method, sgdma.sequence.headroom).  The resource whose relaxation lifts the limit binds; a
resource is never named from a threshold on a figure alone.  Each module returns a JSON-able dict that the
command puts in its result record, so the report shows it without running anything."""

#: Gain a relaxation must bring before it counts as lifting a limit (below it: the model's seeded noise)
LIFT = 1.03
