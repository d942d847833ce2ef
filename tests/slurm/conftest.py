"""The SLURM tier's fixture: the running test cluster (test_slurm.py), for every test of the tier."""

from test_slurm import cluster  # noqa: F401 (a fixture)
