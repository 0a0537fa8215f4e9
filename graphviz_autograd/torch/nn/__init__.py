"""``torch.nn``: Module, Parameter, the common layers and losses."""

from __future__ import annotations

from . import functional, init
from .conv import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    Conv1d,
    Conv2d,
    ConvTranspose1d,
    ConvTranspose2d,
    MaxPool1d,
    MaxPool2d,
)
from .layers import (
    ConstantPad1d,
    ConstantPad2d,
    Dropout1d,
    Dropout2d,
    Fold,
    PixelShuffle,
    PixelUnshuffle,
    ReflectionPad1d,
    ReflectionPad2d,
    ReplicationPad1d,
    ReplicationPad2d,
    Unfold,
    Upsample,
    ZeroPad1d,
    ZeroPad2d,
)
from .modules import (
    GELU,
    BatchNorm1d,
    BatchNorm2d,
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    L1Loss,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSoftmax,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    Sequential,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
    Softmax,
    Tanh,
)
from .norm import BatchNorm3d, GroupNorm, InstanceNorm1d, InstanceNorm2d, RMSNorm
from .parameter import Parameter
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase

__all__ = ["Module", "Parameter", "Linear", "Sequential", "ModuleList", "ModuleDict", "ReLU",
           "Tanh", "Sigmoid", "LeakyReLU", "GELU", "SiLU", "Softmax", "LogSoftmax", "Dropout",
           "Identity", "Flatten", "MSELoss", "L1Loss", "SmoothL1Loss", "CrossEntropyLoss",
           "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "Embedding", "RNNBase", "RNN", "LSTM",
           "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "LayerNorm", "BatchNorm1d",
           "BatchNorm2d", "Conv1d", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
           "functional", "init"]
__all__ += ["ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d",
            "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Upsample", "PixelShuffle",
            "PixelUnshuffle", "ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d",
            "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d",
            "Dropout1d", "Dropout2d", "Unfold", "Fold", "BatchNorm3d", "GroupNorm",
            "InstanceNorm1d", "InstanceNorm2d", "RMSNorm"]
