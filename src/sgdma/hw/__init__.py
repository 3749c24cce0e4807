"""The hardware contract and board data: PG021 constants, board presets, units, memory maps."""
