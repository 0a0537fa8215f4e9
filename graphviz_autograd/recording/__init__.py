"""Recording: snapshots of the autograd graph around every backward, and each backward's steps."""

from .diagnose import Diagnosis, Fix, diagnose, explain
from .recorder import BackwardRecord, Recording, Step, load, record
from .snapshot import NodeInfo, Prediction, SavedInfo, Snapshot, TensorInfo


def schema() -> dict[str, object]:
    """The JSON Schema of a saved recording (and of the snapshots in it)."""
    import json
    from importlib.resources import files
    return json.loads(files(__package__).joinpath("schema.json").read_text(encoding="utf-8"))

__all__ = ["diagnose", "explain", "Diagnosis", "Fix", "record", "load", "Recording",
           "BackwardRecord", "Step", "Snapshot", "NodeInfo",
           "SavedInfo", "TensorInfo", "Prediction", "schema"]
