"""What every tracker (trackers.py) is given, a TrackedRun, and what the trackers share: the settings as flat
hyperparameters (flat_scalars), whether a server answers (unreachable) and which MLflow tracking URIs are a server's.
No tracker package is imported here."""

import json
from dataclasses import dataclass
from pathlib import Path

from ..redaction import redact

MLFLOW_SERVER_SCHEMES = ("http", "https")  # a tracking URI of these is a server's; any other, a local folder


def flat_scalars(settings: dict, prefix: str = "") -> dict:
    """`settings` as every tracker's hyperparameters (TensorBoard's, W&B's config, MLflow's parameters): nested keys
    joined by dots; a list or null as its JSON text."""
    flat = {}
    for key, value in settings.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flat_scalars(value, f"{name}."))
        else:
            flat[name] = value if isinstance(value, (bool, int, float, str)) else json.dumps(value)
    return flat


HISTORY_ROOT = ("logs", "tracking")  # the folder under which the rules keep every run's history


@dataclass(frozen=True)
class TrackedRun:
    """What every tracker is given: the run's history folder, its identity (the checkpoint fingerprint, which every
    segment and every rerun of the same settings shares), its settings (the hyperparameters) and the `tracking`
    config."""

    folder: Path
    identity: str
    settings: dict
    options: dict

    @property
    def name(self) -> str:
        """The run's name in a tracker's list: its folder under logs/tracking (pretrain/<fingerprint>,
        finetune/{task}/{model}/...; a task or model named `tracking` included), after `tracking.run_name` when that
        is set."""
        parts = self.folder.parts
        anchors = [index + 2 for index in range(len(parts) - 1) if parts[index : index + 2] == HISTORY_ROOT]
        tail = "/".join(parts[anchors[0] if anchors else len(parts) - 1 :])
        prefix = self.options.get("run_name")
        return f"{prefix}/{tail}" if prefix else tail


def unreachable(url: str) -> str | None:
    """Why `url` gets no HTTP answer from here, through the environment's proxy settings as a tracker's own client
    goes; None when it answers, whatever the status (a refusal of credentials is an answer). The reason is
    redacted: an invalid URL's error quotes it."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=5):
            return None
    except urllib.error.HTTPError:
        return None
    except (OSError, ValueError) as error:
        return redact(str(getattr(error, "reason", error)))
