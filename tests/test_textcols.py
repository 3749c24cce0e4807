"""The row formatter behind the timeline writers: numbers as shortest fixed point, pieces, bad input."""
import numpy as np
import pytest

from sgdma.output.textcols import NONE, Text


def fixed(q: int, places: int) -> str:
    """q / 10**places, shortest fixed point with at least one decimal, from integer arithmetic."""
    if places == 0:
        return str(q)
    whole, frac = divmod(abs(q), 10 ** places)
    return ("-" if q < 0 else "") + f"{whole}." + (str(frac).rjust(places, "0").rstrip("0") or "0")


@pytest.mark.parametrize("places", [0, 1, 3, 6, 18])
def test_numbers_are_shortest_fixed_point(places):
    rng = np.random.default_rng(places)
    v = np.r_[[0, 1, -1, 10, 100, -100, 1200, 5000, 10 ** 18, -(10 ** 18), 2 ** 63 - 1, -(2 ** 63) + 1],
              rng.integers(-(10 ** 15), 10 ** 15, 500), rng.integers(0, 10 ** places + 1, 100) * 10 ** 0]
    x = Text()
    sep = x.string(" ")
    assert x.rows([(v, places), sep]).decode().split() == [fixed(q, places) for q in v.tolist()]


def test_pieces_nothing_and_broadcast():
    x = Text()
    a, b = x.strings(["alpha", "a much longer piece than sixteen bytes"])
    out = x.rows([np.array([a, -1, b]), (np.array([7, NONE, -3]), 0), x.string("|")])
    assert out == b"alpha7||a much longer piece than sixteen bytes-3|"
    assert x.rows([np.array([], np.int64)]) == b""


def test_bad_columns_are_refused():
    from sgdma import _core

    with pytest.raises(ValueError, match="outside"):
        _core.format_rows(b"ab", np.array([1], np.int64), np.array([5], np.int64), (-1,), (np.array([0]),))
    with pytest.raises(ValueError, match="piece 3"):
        _core.format_rows(b"ab", np.array([0], np.int64), np.array([1], np.int64), (-1,), (np.array([3]),))
    with pytest.raises(ValueError, match="values"):
        _core.format_rows(b"ab", np.array([0], np.int64), np.array([1], np.int64), (-1, 0),
                          (np.array([0, 0]), np.array([1, 2, 3])))
