"""Runs at scale: sweeps over seeds and agents, benchmarks, and the lifelong harness."""
