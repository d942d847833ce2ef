"""A task's results (results/finetune/{task}/metrics.json), as summary.py writes them and the report and the cards
read them: frozen dataclasses whose attributes are the file's keys, in the file's order. This module alone spells the
file's path and its keys."""

from dataclasses import dataclass, fields, replace

from ..files.json_files import write_json
from ..files.json_views import as_json, built, left_out_when_absent, left_out_when_none, read_view
from .chosen_file import RateTried
from .kinds import BASELINE
from .plan import BASE, RANDOM

METRICS_FILE = "results/finetune/{task}/metrics.json"
WHAT = "fine-tuning metrics file"


@dataclass(frozen=True)
class Spread:
    """A score's median and min-max over the seeds whose score is defined (`runs` of them)."""

    median: float
    min: float
    max: float
    runs: int


Scores = dict[str, float | None]  # a split's score of each metric (None: undefined)


@dataclass(frozen=True, kw_only=True)
class FoldRun:
    """One fold's run of a pooled run, as its result holds it: the fold, the best epoch and why it diverged (a
    fine-tuning run's, None where it did not; absent from a probe's and a baseline's), the regularisation strength
    validation chose (a probe's, a baseline's that fits one), the no-answer threshold (a task whose questions may have
    no answer), its scores on validation and on test."""

    fold: int
    best_epoch: float | None = left_out_when_absent()
    strength: float | None = left_out_when_none()
    no_answer_threshold: float | None = left_out_when_none()
    validation: Scores
    test: Scores | None = left_out_when_none()
    diverged: str | None = left_out_when_absent()


@dataclass(frozen=True, kw_only=True)
class ReportedRun:
    """A model's run on the reported split, seed by seed, fine-tuned or probed: its seed, and what its result holds of
    its best epoch and why it diverged (a fine-tuning run's, None where it did not), the classes it predicted on each
    split (a fine-tuning run's), the strength and no-answer threshold validation chose, its scores on validation and
    on test (left out where the task reports validation). With folds, its runs of one seed pooled into one on every
    fold's test split: its seed, the classes it predicted (a fine-tuned classifier's), why a fold diverged (only where
    one did), its scores and each fold's run."""

    seed: int
    best_epoch: float | None = left_out_when_absent()
    classes_predicted: dict[str, int | None] | None = left_out_when_none()
    strength: float | None = left_out_when_none()
    no_answer_threshold: float | None = left_out_when_none()
    diverged: str | None = left_out_when_absent()
    validation: Scores | None = left_out_when_none()
    test: Scores | None = left_out_when_none()
    folds: tuple[FoldRun, ...] | None = left_out_when_none()


@dataclass(frozen=True, kw_only=True)
class BaselineRun:
    """A baseline's one result on the reported split (its seed None): its scores on validation and on test, the
    strength validation chose (a baseline that fits one); with folds, its results pooled into one on every fold's test
    split: its scores, the classes it predicted (a classifier's) and each fold's result. A view of its own: its keys
    come in another order than a model's run's."""

    seed: None = None
    validation: Scores | None = left_out_when_none()
    test: Scores | None = left_out_when_none()
    strength: float | None = left_out_when_none()
    classes_predicted: dict[str, int | None] | None = left_out_when_none()
    folds: tuple[FoldRun, ...] | None = left_out_when_none()


def entry_of(view, result):
    """The entry `view` (ReportedRun, BaselineRun, FoldRun) of a run's, a probe's or a baseline's `result`: each of
    its fields that the result has."""
    return built(view, {each.name: getattr(result, each.name) for each in fields(view) if hasattr(result, each.name)})


@dataclass(frozen=True, kw_only=True)
class ModelResults:
    """One model's results: its kind, its folder or Hub id (None for a baseline), its rate and search (fine-tuned
    models only), its runs on the reported split seed by seed, how many diverged (fine-tuned models only), each
    metric's spread over the seeds and how many runs answer one class to every example (None: not a classifier)."""

    kind: str
    model: str | None
    learning_rate: float | None = left_out_when_none()
    search: tuple[RateTried, ...] | None = left_out_when_none()  # as the model's chosen.json holds it
    runs: tuple[ReportedRun | BaselineRun, ...]
    diverged_runs: int | None = left_out_when_none()
    summary: dict[str, Spread | None]
    one_class_runs: int | None

    @classmethod
    def from_json(cls, data: dict) -> "ModelResults":
        """The view of a model's entry, its runs a baseline's or a model's as its kind says."""
        entry = BaselineRun if data["kind"] == BASELINE else ReportedRun
        return built(cls, data, runs=tuple(built(entry, run) for run in data["runs"]))


@dataclass(frozen=True)
class Comparison:
    """The pretrained model's main score minus another model's: the difference of their medians, its interval (None:
    the verdict says why) and the verdict."""

    metric: str
    difference: float | None
    interval: tuple[float, ...] | None
    verdict: str


@dataclass(frozen=True)
class Gain:
    """The pretrained model's main score minus another model's seed by seed (the same seed's head and data order):
    their median and min-max over the seeds, with the interval and verdict of their comparison."""

    metric: str
    median: float | None
    min: float | None
    max: float | None
    runs: int
    interval: tuple[float, ...] | None
    verdict: str


@dataclass(frozen=True)
class RateSearch:
    """The grid every model searched, the seeds each rate was tried with, and what chose each model's rate."""

    grid: tuple[float, ...]
    search_seeds: int
    chosen_on: str
    metric: str


@dataclass(frozen=True)
class Bootstrap:
    """The interval's level, its resamples, and the groups of the reported split it resamples."""

    level: float
    resamples: int
    groups: int


@dataclass(frozen=True)
class Protocol:
    """One protocol's results (fine-tuned, or the linear probe): each model beside the baselines, the pretrained
    model against each other model, and the gains over random initialisation and over a continued run's base."""

    models: dict[str, ModelResults]
    comparisons: dict[str, Comparison]
    pretraining_gain: Gain | None
    adaptation_gain: Gain | None


@dataclass(frozen=True, kw_only=True)
class TaskMetrics:
    """metrics.json: the task as task.json describes it, the seeds, the rate search (None: nothing fine-tuned), the
    fine-tuned protocol's results, the machines the runs named, the bootstrap, and the linear probe's results (None:
    not probed)."""

    task: str
    type: str
    description: str
    problem: str
    labels: tuple[str, ...] | None
    main_metric: str
    metrics: tuple[str, ...]
    reported_split: str
    tag_scheme: str | None = left_out_when_none()
    entities: str | None = left_out_when_none()  # how the tags are read as entities, for a tagging task
    splits: dict[str, dict]
    folds: int | None
    seeds: tuple[int, ...]
    learning_rates: RateSearch | None
    models: dict[str, ModelResults]
    comparisons: dict[str, Comparison]
    pretraining_gain: Gain | None
    adaptation_gain: Gain | None
    machines: tuple[dict, ...]  # each as machine.py describes it
    bootstrap: Bootstrap
    linear_probe: Protocol | None

    @classmethod
    def from_json(cls, data: dict) -> "TaskMetrics":
        """The view of a parsed metrics.json; KeyError, TypeError or AttributeError where a part is missing or is not
        of its kind."""
        return built(cls, data)

    def probed(self) -> "TaskMetrics":
        """The results as the linear probe's: the same task, the probe's models, comparisons and gains."""
        return replace(self, **{each.name: getattr(self.linear_probe, each.name) for each in fields(Protocol)})

    def gains(self) -> dict[str, Gain | None]:
        """Each gain, by the model it is measured against: random initialisation, a continued run's base."""
        return {RANDOM: self.pretraining_gain, BASE: self.adaptation_gain}


def task_metrics(**values) -> TaskMetrics:
    """The view of the results `values` (each field's value, nested parts as views or as their JSON)."""
    return built(TaskMetrics, values)


def protocol(**values) -> Protocol:
    """The view of one protocol's results `values` (each field's value, nested parts as views or as their JSON)."""
    return built(Protocol, values)


def write_task_metrics(path: str, metrics: TaskMetrics) -> None:
    write_json(path, as_json(metrics))


def read_task_metrics(path: str) -> TaskMetrics:
    """The results at `path`, refused, naming the field, where a part is missing or not of its kind (an older
    summary's, or another file's)."""
    return read_view(path, WHAT, TaskMetrics)
