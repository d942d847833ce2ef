"""Stand-in for tests: the Habana runtime is not on this machine (see tests/hpu/standins/README.md)."""
