"""Aggregation and output of simulation results."""
