"""``torch.utils.data``: datasets, samplers and the single-process ``DataLoader``."""

from __future__ import annotations

from .dataloader import DataLoader, default_collate, default_convert, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .stack_dataset import StackDataset

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info", "Dataset",
           "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
           "Subset", "random_split", "Sampler", "SequentialSampler", "RandomSampler",
           "SubsetRandomSampler", "BatchSampler", "WeightedRandomSampler", "StackDataset",
           "DistributedSampler"]
