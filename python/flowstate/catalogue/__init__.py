"""The experiment catalogue: experiment.toml files (catalogue.py), their claims (claims.py) and
derived metrics (derived.py), reproductions (reproduce.py), the bibliography (references.py)."""
