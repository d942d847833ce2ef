"""Figures for the report: matplotlib without a display, saved as SVG files that are identical from run to run."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from ..files.atomic import atomic_path  # noqa: E402

plt.rcParams.update({"svg.hashsalt": "snakebert", "figure.dpi": 100, "font.size": 9})


def figure(columns: int, width: float = 4.2, height: float = 3.2, rows: int = 1) -> tuple[Figure, list]:
    """A figure of `columns` panels side by side (`rows` of them: the panels row by row)."""
    size = (width * columns, height * rows)
    fig, axes = plt.subplots(rows, columns, figsize=size, layout="constrained", squeeze=False)
    return fig, [axis for row in axes for axis in row]


def save_svg(fig: Figure, out: str) -> None:
    """Write `fig` to `out` atomically, without the creation date (so same data, same bytes)."""
    with atomic_path(out) as tmp:
        fig.savefig(tmp, format="svg", metadata={"Date": None})
    plt.close(fig)
