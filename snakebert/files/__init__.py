"""The pipeline's own files, each written by one job and read by the jobs after it: atomic writes, SHA-256
checksums, Arrow IPC streams and JSON files."""
