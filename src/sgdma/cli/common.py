"""Helpers shared by the commands: output writers and the option parsers."""
from __future__ import annotations

import json

import click

from sgdma.hw import units


def _core_constants() -> dict:
    from sgdma import _core

    return _core.constants


def _write_json(path: str | None, data) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(data, f, indent=2)
            f.write("\n")


def _write_record(path: str | None, kind: str, data, version: int = 1) -> None:
    """--json output as a result record the report layer reads (`sgdma report`): kind and version first."""
    if isinstance(data, dict):
        _write_json(path, {"kind": kind, "version": version, **data})
    else:
        _write_json(path, {"kind": kind, "version": version, "records": data})


def _list_option(name: str, default: str, help: str):
    return click.option(name, default=default, show_default=True, help=help + " (e.g. 32,64 or 2^5..2^13)")


def parse_time_ns(text: str) -> float:
    """'1us', '250ns', '2.5 us', '1e-6' (seconds) -> ns (sgdma.hw.units grammar)."""
    try:
        return units.parse_time_ns(text)
    except units.UnitError as e:
        raise click.BadParameter(str(e)) from None


def _size(text: str) -> int:
    try:
        return units.parse_size(text)
    except units.UnitError as e:
        raise click.BadParameter(str(e)) from None


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise click.BadParameter(f"{what} {text!r} is not a number (e.g. 40e6)") from None


def _flat(rec: dict) -> dict:
    out = {}
    for k, v in rec.items():
        if isinstance(v, dict):
            out.update({f"{k}_{kk}": vv for kk, vv in v.items()})
        else:
            out[k] = v
    return out


def _write_csv(path: str, records: list[dict]) -> None:
    import csv

    rows = [_flat(r) for r in records]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
