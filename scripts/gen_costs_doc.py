#!/usr/bin/env python3
"""Write docs/costs.md from the board presets (sgdma.hw.costs); tests/test_costs.py checks it is current."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from sgdma.hw import costs  # noqa: E402

if __name__ == "__main__":
    (ROOT / "docs" / "costs.md").write_text(costs.markdown())
    print(ROOT / "docs" / "costs.md")
