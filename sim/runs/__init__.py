"""Running many games: what to simulate (config), batches through the kernel's referee,
backends (this machine, Dask), the saved folder (manifest, Parquet records, summary), running
totals and the whole run.

It may import :mod:`sim.kernel` and the built-in :mod:`strategies` (to resolve names), never
:mod:`sim.studies`, :mod:`reports` or :mod:`sim.cli`.
"""
