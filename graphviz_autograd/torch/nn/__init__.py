"""``torch.nn``: Module, Parameter, the common layers and losses."""

from __future__ import annotations

from . import functional, init
from .modules import (
                      GELU,
                      BCELoss,
                      BCEWithLogitsLoss,
                      CrossEntropyLoss,
                      Dropout,
                      Embedding,
                      Flatten,
                      GRUCell,
                      Identity,
                      L1Loss,
                      LeakyReLU,
                      Linear,
                      LogSoftmax,
                      LSTMCell,
                      Module,
                      ModuleDict,
                      ModuleList,
                      MSELoss,
                      NLLLoss,
                      ReLU,
                      RNNCell,
                      Sequential,
                      Sigmoid,
                      SiLU,
                      SmoothL1Loss,
                      Softmax,
                      Tanh,
)
from .parameter import Parameter

__all__ = ["Module", "Parameter", "Linear", "Sequential", "ModuleList", "ModuleDict", "ReLU",
           "Tanh", "Sigmoid", "LeakyReLU", "GELU", "SiLU", "Softmax", "LogSoftmax", "Dropout",
           "Identity", "Flatten", "MSELoss", "L1Loss", "SmoothL1Loss", "CrossEntropyLoss",
           "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "Embedding", "RNNCell", "LSTMCell",
           "GRUCell", "functional", "init"]
