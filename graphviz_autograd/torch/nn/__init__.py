"""``torch.nn``: Module, Parameter, the common layers and losses."""

from __future__ import annotations

from . import functional, init, utils
from .activation import (
    CELU,
    ELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    Mish,
    PReLU,
    ReLU6,
    RReLU,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanhshrink,
    Threshold,
)
from .attention import MultiheadAttention
from .conv import AdaptiveAvgPool2d, AvgPool2d, Conv1d, Conv2d, MaxPool2d
from .loss_modules import (
    CosineEmbeddingLoss,
    CosineSimilarity,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    LogSigmoid,
    MarginRankingLoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    PairwiseDistance,
    PoissonNLLLoss,
    SoftMarginLoss,
    TripletMarginLoss,
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
    Unflatten,
)
from .param_containers import ParameterDict, ParameterList
from .parameter import Parameter
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = ["Module", "Parameter", "Linear", "Sequential", "ModuleList", "ModuleDict", "ReLU",
           "Tanh", "Sigmoid", "LeakyReLU", "GELU", "SiLU", "Softmax", "LogSoftmax", "Dropout",
           "Identity", "Flatten", "Unflatten",
           "MSELoss", "L1Loss", "SmoothL1Loss", "CrossEntropyLoss",
           "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "Embedding", "RNNBase", "RNN", "LSTM",
           "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "LayerNorm", "BatchNorm1d",
           "BatchNorm2d", "Conv1d", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
           "ParameterList", "ParameterDict", "functional", "init", "utils",
           "HuberLoss", "KLDivLoss", "CosineSimilarity", "PairwiseDistance", "LogSigmoid",
           "SoftMarginLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss",
           "TripletMarginLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
           "MultiMarginLoss", "MultiLabelMarginLoss",
           "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer",
           "ELU", "CELU", "SELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
           "Mish", "PReLU", "ReLU6", "Softmin", "Softplus", "Softshrink", "Softsign",
           "Tanhshrink", "Threshold", "RReLU", "Softmax2d"]
