"""Hypothesis profiles for the suite, loaded by conftest.py before any test module builds its @settings.

"ci" (the default): fresh random examples every run, so each CI run explores new inputs; a failure prints the
reproduce blob (@reproduce_failure), so a red run is replayable. No deadline: the examples run the
timed model, whose wall time on a shared or loaded machine says nothing about correctness, and a deadline would
fail at random. HealthCheck.too_slow is off for the same reason (it times data generation in wall clock); the
health checks that flag a bad generator (filter_too_much, data_too_large) stay on.

"derandomized": the same examples every run (HYPOTHESIS_PROFILE=derandomized), for bisecting.

SGDMA_HYPOTHESIS_SCALE=N multiplies every property test's max_examples (those set in @settings too), for an
audit of the generators against the tests' fixtures; for example
    SGDMA_HYPOTHESIS_SCALE=20 pytest --hypothesis-seed=7 tests/test_dma_fuzz.py
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", deadline=None, print_blob=True, derandomize=False,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("derandomized", settings.get_profile("ci"), derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _scale() -> int:
    text = os.environ.get("SGDMA_HYPOTHESIS_SCALE", "1")
    try:
        k = int(text)
    except ValueError:
        k = 0
    if k < 1:
        raise pytest.UsageError(f"SGDMA_HYPOTHESIS_SCALE={text!r}: must be a whole number >= 1 "
                                f"(the factor on each property test's max_examples); unset it for 1")
    return k


def pytest_collection_modifyitems(items):
    k = _scale()
    if k == 1:
        return
    seen = set()
    for item in items:
        fn = getattr(item, "obj", None)
        fn = getattr(fn, "__func__", fn)          # a test method: the function, where attributes can be set
        if getattr(fn, "hypothesis", None) is None or id(fn) in seen:
            continue                              # parametrized items share one function: scale it once
        seen.add(id(fn))
        # hypothesis keeps a test's @settings on this attribute; a copy with more examples replaces it
        own = getattr(fn, "_hypothesis_internal_use_settings", None) or settings()
        fn._hypothesis_internal_use_settings = settings(own, max_examples=own.max_examples * k)
