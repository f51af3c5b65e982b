"""Parameter sweeps (docs/SWEEPS.md): sweep files and axes (spec.py), running them (run.py,
executors.py), the resumable store (store.py), metrics (metrics.py), plots (plots.py)."""
