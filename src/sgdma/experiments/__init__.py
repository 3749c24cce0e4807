"""Experiments on the board: S0 characterization, BD creation, planner, validation, self-test."""
