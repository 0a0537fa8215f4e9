"""PyTorch's user-facing error and warning texts, word for word (torch 2.13)."""

from __future__ import annotations

import ast
import os
import re
import sys
import warnings
from typing import Any

BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
VERSION_HINT = (
    " Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)
NOT_SCALAR = "grad can be implicitly created only for scalar outputs"
NO_GRAD_FN = "element {} of tensors does not require grad and does not have a grad_fn"
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE = ("a view of a leaf Variable that requires grad is being used in an in-place "
                        "operation.")
NONLEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
INT_REQUIRES_GRAD = "Only Tensors of floating point and complex dtype can require gradients"
INFERENCE_INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You "
                     "can make a clone to get a normal tensor before doing inplace update.See "
                     "https://github.com/pytorch/rfcs/pull/17 for more details.")
INFERENCE_REQUIRES_GRAD = ("Setting requires_grad=True on inference tensor outside InferenceMode "
                           "is not allowed.")
INT_REQUIRES_GRAD_ = "only Tensors of floating point dtype can require gradients"
NONLEAF_REQUIRES_GRAD = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)
UNUSED_INPUT = ("The differentiated Tensor at index {} appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior.")
INPUT_NO_GRAD = "One of the differentiated Tensors does not require grad"
RETAIN_NO_GRAD = "can't retain_grad on Tensor that has requires_grad=False"
HOOK_NO_GRAD = "cannot register a hook on a tensor that doesn't require gradient"
EMPTY_INPUTS = "`inputs` argument to `backward()` cannot be empty."
ONLY_INPUTS = ("only_inputs argument is deprecated and is ignored now (defaults to True). To "
               "accumulate gradient for other parts of the graph, please use "
               "torch.autograd.backward.")
BATCHED_MISMATCH = (
    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
    "batch dimension. The sizes of the remaining dimensions are expected to match the shape of "
    "corresponding output, but a mismatch was detected: grad_output[{}] has a shape of {} and "
    "output[{}] has a shape of {}. If you only want some tensors in `grad_output` to be "
    "considered batched, consider using vmap.")
CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak."
)
FLOAT_OF_GRAD = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                 "behavior.\nConsider using tensor.detach() first.")
ZERO_DIM_INDEX = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                  "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")


NONLEAF_REQUIRES_GRAD_SHORT = "you can only change requires_grad flags of leaf variables."
INT_REQUIRES_GRAD_SET = "only Tensors of floating point and complex dtype can require gradients"
VOLATILE = "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."
GRAD_VARIABLES = "`grad_variables` is deprecated. Use `grad_tensors` instead."
GRAD_BOTH = ("`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
             "`backward()`. Please only use `grad_tensors`.")

OVERLAPPING_WRITE = ("unsupported operation: more than one element of the written-to tensor "
                     "refers to a single memory location. Please clone() the tensor before "
                     "performing the operation.")
DETACH_VIEW = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
    "code by moving both the view and the inplace either both inside the no_grad block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked).")
ONE_ELEMENT = "only one element tensors can be converted to Python scalars"
COPY_CONSTRUCT = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).")
INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")
VOLATILE_ATTR = "volatile was removed (Variable.volatile is always False)"
# the C++ scalar-type names PyTorch's messages use
SCALAR_NAME = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
               "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
               "bfloat16": "BFloat16"}
CTYPE_NAME = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool", "uint16": "unsigned short",
              "uint32": "unsigned int", "uint64": "unsigned long",
              "bfloat16": "c10::BFloat16"}


MULTI_VIEW = ("This view is the output of a function that returns multiple views. Such functions "
              "do not allow the output views to be modified inplace. You should replace the "
              "inplace operation by an out-of-place one.")


def view_rebase_error(creation: tuple[Any, ...]) -> str:
    if creation[0] == "multi":
        return (f"Output {creation[1]} of {creation[2]} is a view and is being modified inplace. "
                + MULTI_VIEW)
    if creation[0] == "custom":
        return (f"Output {creation[1]} of {creation[2]} is a view and is being modified inplace. "
                + CUSTOM_VIEW)
    return NO_GRAD_VIEW


CUSTOM_VIEW = (
    "This view was created inside a custom Function (or because an input was returned as-is) and "
    "the autograd logic to handle view+inplace would override the custom backward associated "
    "with the custom Function, leading to incorrect gradients. This behavior is forbidden. You can "
    "fix this by cloning the output of the custom Function.")


def view_base_modified(creation: tuple[Any, ...]) -> str:
    """A custom Function's output view, or one of several views an op returned (``unbind``,
    ``split``), whose base was modified in place, at grad_fn access."""
    return (f"Output {creation[1]} of {creation[2]} is a view and its base or another view of its "
            "base has been modified inplace. " + (MULTI_VIEW if creation[0] == "multi"
                                                  else CUSTOM_VIEW))


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_user(text: str, category: type[Warning] = UserWarning) -> None:
    """A warning PyTorch gives from C++: it points at the first frame outside the package (the
    user's line)."""
    level, f = 1, sys._getframe(0)
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE):
        f = f.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(text, category, stacklevel=level)


_warned: set[str] = set()


def warn_once(text: str, category: type[Warning] = UserWarning, stacklevel: int = 3) -> None:
    """Warn the first time only, per process, as PyTorch's TORCH_WARN_ONCE does."""
    if text not in _warned:
        _warned.add(text)
        warnings.warn(text, category, stacklevel=stacklevel)


def warn_user_once(text: str, category: type[Warning] = UserWarning) -> None:
    """``warn_once``, pointing at the user's line as ``warn_user`` does."""
    if text not in _warned:
        _warned.add(text)
        warn_user(text, category)


def reset_warn_once() -> None:
    """Forget which once-only warnings were given (for tests)."""
    _warned.clear()


def shape_text(shape: tuple[int, ...]) -> str:
    """``torch.Size([2, 3])``."""
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


def version_error(legacy_type: str, shape: tuple[int, ...], producer: str | None, output_nr: int,
                  current: int, expected: int) -> str:
    """The in-place modification error; ``producer`` is None for leaves."""
    head = ("one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [{legacy_type} [{', '.join(str(s) for s in shape)}]]")
    if producer is not None:
        head += f", which is output {output_nr} of {producer},"
    return (f"{head} is at version {current}; expected version {expected} instead." + VERSION_HINT)


def size_mismatch(sa: tuple[int, ...], sb: tuple[int, ...]) -> str | None:
    """PyTorch's text for shapes that do not broadcast (None when they do)."""
    for i in range(1, min(len(sa), len(sb)) + 1):
        x, y = sa[-i], sb[-i]
        if x != y and x != 1 and y != 1:
            return (f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                    f"at non-singleton dimension {max(len(sa), len(sb)) - i}")
    return None


_NUMPY_BROADCAST = re.compile(
    r"operands could not be broadcast together with shapes (\([\d, ]*\)) (\([\d, ]*\)) *$")


def from_numpy_error(e: ValueError) -> RuntimeError | None:
    """PyTorch's error for numpy's "could not be broadcast" between two arrays (None for any
    other error): what a backward formula meets when a saved tensor's ``.data`` changed shape."""
    found = _NUMPY_BROADCAST.match(str(e))
    if found is None:
        return None
    text = size_mismatch(ast.literal_eval(found.group(1)), ast.literal_eval(found.group(2)))
    return RuntimeError(text) if text is not None else None


DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")
_DEVICE = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?$")


def device_type(text: str) -> str:
    """The type of a device string (``"cuda:0"``: ``"cuda"``), or PyTorch's error for it."""
    if not text:
        raise RuntimeError("Device string must not be empty")
    found = _DEVICE.match(text)
    if found is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    if found.group(1) not in DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of "
                           f"device string: {found.group(1)}")
    return found.group(1)


# -- saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks) ---------------------------------
PACK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack "
    "hook cannot be modified by in-place operations as this can lead to unexpected side-effects. "
    "Please open an issue if you need to perform in-place operations on the input to a pack hook.")
UNPACK_NOT_TENSOR = (
    "Output of saved tensor unpack_hook expected to be a Tensor but got result of type {}")
HOOKS_TWICE = (
    "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one "
    "pair of hooks is allowed at a time.")
HOOKS_FREED = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values "
    "of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you need "
    "to access saved variables after calling backward.")
HOOKS_NONE = "Calling register_hooks on a saved tensor with value None is forbidden"
SAVED_DETACHED = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is "
    "not supported, please use out-of-place `.detach()` instead")
