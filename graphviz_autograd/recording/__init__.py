"""Recording: snapshots of the autograd graph around every backward, and each backward's steps."""

from .diagnose import Diagnosis, Fix, diagnose, explain
from .recorder import BackwardRecord, Recording, Step, load, record
from .snapshot import NodeInfo, Prediction, SavedInfo, Snapshot, TensorInfo

__all__ = ["diagnose", "explain", "Diagnosis", "Fix", "record", "load", "Recording",
           "BackwardRecord", "Step", "Snapshot", "NodeInfo",
           "SavedInfo", "TensorInfo", "Prediction"]
