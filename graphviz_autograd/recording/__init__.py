"""Recording: snapshots of the autograd graph around every backward, and each backward's steps."""

from .recorder import BackwardRecord, Recording, Step, load, record
from .snapshot import NodeInfo, Prediction, SavedInfo, Snapshot, TensorInfo

__all__ = ["record", "load", "Recording", "BackwardRecord", "Step", "Snapshot", "NodeInfo",
           "SavedInfo", "TensorInfo", "Prediction"]
