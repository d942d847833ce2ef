"""What a library logs, caught at its logger: transformers' loggers do not propagate to the root logger that pytest
watches, and their handlers keep the stream they were made with, which fd capture does not see."""

import logging
from contextlib import contextmanager


class _Messages(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def logged(name: str):
    """The messages that reach the handlers of logger `name` (its own and its children's) inside the block."""
    logger, handler = logging.getLogger(name), _Messages()
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)
