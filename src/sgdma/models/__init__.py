"""Cost models of the masters the board simulates in Python (the CPUs)."""
