"""What a stop request is, shared by the training ranks (training/stop_request.py) and the launchers that relay it
(launch/): the signals that ask a run to save and stop, and the environment variable naming the folder where each
rank that stops leaves its report. Kept apart so that a launcher reads them without importing torch."""

import signal

STOP_SIGNALS = (signal.SIGTERM, signal.SIGUSR1, signal.SIGINT)
STOP_REPORTS = "SNAKEBERT_STOP_REPORTS"  # a folder a launcher names, where each rank that stops leaves a file
