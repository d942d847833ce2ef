"""The report's training curves: training and held-out loss by step, and the learning rate and gradient norm, with
the boundaries of the sequence-length phases marked."""

from ..errors import DataError
from ..training.eval_metrics import read_eval_metrics
from ..training.log_history import history_path, read_log_history
from ..training.training_metrics import read_training_metrics
from .figures import figure, save_svg


def series(history: list[dict], key: str) -> tuple[list[int], list[float]]:
    entries = [entry for entry in history if key in entry]
    return [entry["step"] for entry in entries], [entry[key] for entry in entries]


def plot_training(model_dir: str, eval_metrics: str, out: str) -> None:
    history = read_log_history(model_dir)
    steps, losses = series(history, "loss")
    if not steps:
        logged = history_path(model_dir)
        raise DataError(f"{logged}: no training loss was logged (pretrain.logging_steps above max_steps?)")
    held_out = read_eval_metrics(eval_metrics)
    phases = read_training_metrics(model_dir).phases
    fig, (loss, schedule) = figure(2)
    for phase in phases[1:]:  # each boundary, on both plots
        boundary = phase.first_step - 1
        for axes in (loss, schedule):
            axes.axvline(boundary, color="C7", linestyle="--", linewidth=0.8)
        late = boundary > steps[-1] / 2  # its label left of the line, inside the axes, rather than past their edge
        loss.annotate(
            f" phase {phase.phase}: {phase.block_size}-token blocks ",
            (boundary, 0.98),
            xycoords=("data", "axes fraction"),
            ha="right" if late else "left",
            va="top",
            fontsize="small",
        )

    loss.plot(
        steps, losses, color="C0", label="training (each phase's blocks and masking)" if phases[1:] else "training"
    )
    loss.plot(*series(history, "eval_loss"), "o-", color="C1", label="validation, during training")
    loss.axhline(held_out.mlm_loss, color="C3", linestyle=":", label=f"evaluation: {held_out.mlm_loss:.3f}")
    loss.set(title="Masked language modelling loss", xlabel="step", ylabel="loss (nats per masked token)")
    loss.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize="small", frameon=False)  # below the plot

    schedule.plot(*series(history, "learning_rate"), color="C2")
    schedule.set(title="Learning rate and gradient norm", xlabel="step", ylabel="learning rate")
    steps_norm, norms = series(history, "grad_norm")
    if steps_norm:
        norm = schedule.twinx()
        norm.plot(steps_norm, norms, color="C7", linewidth=0.8)
        norm.set_ylabel("gradient norm (grey)")
    save_svg(fig, out)
