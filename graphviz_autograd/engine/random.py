"""The engine's random numbers: PyTorch's CPU generator and its kernels' transformations.

A ``Generator`` is PyTorch's ``CPUGeneratorImpl``: a 32-bit Mersenne Twister (mt19937) seeded
from the low 32 bits of the seed (``init_genrand``), whose ``random()`` is one output and
``random64()`` two (the first one the high half), plus the second Box-Muller sample it keeps for
the next scalar normal draw. numpy's ``MT19937`` runs the same recurrence and hands out its raw
outputs in bulk, so each distribution draws what PyTorch's kernel draws, in the same order,
and transforms it with the same float operations (``random_math``): ``torch.manual_seed(0);
torch.randn(3)`` gives PyTorch's numbers.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as dt
from . import random_math as rm
from .device import CPU, device

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = ["Generator", "default_generator", "resolve", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "fill", "uniform", "normal", "random_from_to",
           "random_full", "top", "randperm", "bernoulli", "check_floating"]

_N = 624                                    # mt19937's state: 624 words
_DEFAULT_SEED = 67280421310721              # c10::detail::default_rng_seed_val
_STATE_SIZE = 5056                          # sizeof(CPUGeneratorImplState)
_U64 = 0xFFFF_FFFF_FFFF_FFFF


def _init_genrand(s: int) -> np.ndarray:
    key = [s & 0xFFFF_FFFF]
    for i in range(1, _N):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFF_FFFF)
    return np.array(key, dtype=np.uint32)


class Generator:
    """``torch.Generator``: PyTorch's CPU generator, seeded with its default seed."""

    __slots__ = ("_bits", "_seed", "_fresh", "_normal", "_normal_float", "__weakref__")

    def __init__(self, device: Any = "cpu") -> None:
        kind = str(getattr(device, "type", device)).split(":")[0]
        if kind != "cpu":
            raise RuntimeError(f"Cannot get {kind.upper()} generator: this engine runs on the "
                               "CPU only")
        self._bits = np.random.MT19937(0)
        self.manual_seed(_DEFAULT_SEED)

    @property
    def device(self) -> device:
        return CPU

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {id(self):#x}>"

    def manual_seed(self, seed: Any) -> Generator:
        s = int(seed)
        if not -(1 << 63) <= s <= _U64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = s & _U64             # NB: a negative seed wraps, as C++'s uint64_t cast
        self._set_key(_init_genrand(self._seed), _N)
        self._fresh = True                # NB: freshly seeded: PyTorch's next_ is 0, not 624
        self._normal: float | None = None
        self._normal_float: float | None = None
        return self

    def seed(self) -> int:
        """Seed from the operating system's randomness (64 bits, as PyTorch's ``/dev/urandom``)."""
        s = secrets.randbits(64)
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def _set_key(self, key: np.ndarray, pos: int) -> None:
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}

    # ---- raw draws

    def random(self, n: int) -> np.ndarray:
        """``n`` outputs of PyTorch's ``random()`` (32 bits each), as uint64."""
        if n:
            self._fresh = False
        return self._bits.random_raw(n)

    def random64(self, n: int) -> np.ndarray:
        """``n`` outputs of ``random64()``: two draws each, the first the high half."""
        r = self.random(2 * n)
        return (r[0::2] << np.uint64(32)) | r[1::2]

    # ---- state as bytes, in PyTorch's layout

    def get_state(self) -> Tensor:
        """PyTorch's ``CPUGeneratorImplState`` as 5056 bytes (a uint8 tensor)."""
        from .tensor import Tensor
        st = self._bits.state["state"]
        pos = int(st["pos"])
        left, nxt = (1, 0 if self._fresh else _N) if pos >= _N else (_N + 1 - pos, pos)
        buf = np.zeros(_STATE_SIZE, dtype=np.uint8)
        head = np.array([self._seed], "<u8").tobytes() + np.array([left, 1], "<i4").tobytes()
        head += np.array([nxt], "<u8").tobytes() + st["key"].astype("<u8").tobytes()
        buf[:len(head)] = np.frombuffer(head, np.uint8)
        at = len(head)                                     # normal_x, normal_y, normal_rho
        if self._normal is not None:
            buf[at + 8:at + 16] = np.frombuffer(np.array([self._normal], "<f8").tobytes(),
                                                np.uint8)
            buf[at + 24] = 1                               # normal_is_valid
        if self._normal_float is not None:
            buf[at + 32:at + 36] = np.frombuffer(
                np.array([self._normal_float], "<f4").tobytes(), np.uint8)
            buf[at + 36] = 1
        return Tensor._make(buf, dt.uint8)

    def set_state(self, new_state: Any) -> Generator:
        from .tensor import Tensor
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state._dtype is not dt.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(new_state._data).reshape(-1)
        if raw.size != _STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but "
                               f"found the input RNG state size to be {raw.size}")
        b = raw.tobytes()
        seed_, = np.frombuffer(b, "<u8", 1, 0)
        left, seeded = np.frombuffer(b, "<i4", 2, 8)
        nxt, = np.frombuffer(b, "<u8", 1, 16)
        if not seeded or not 0 < left <= _N or nxt > _N:
            raise RuntimeError("Invalid mt19937 state")
        key = np.frombuffer(b, "<u8", _N, 24).astype(np.uint32)  # NB: stored 64-bit wide
        at = 24 + 8 * _N
        normal_y, = np.frombuffer(b, "<f8", 1, at + 8)
        valid, = np.frombuffer(b, "<i4", 1, at + 24)
        normal_f, = np.frombuffer(b, "<f4", 1, at + 32)
        # NB: numpy reads key[pos] next; PyTorch reads state[next_] after ``left - 1`` more
        # draws before it twists: the two agree for every state PyTorch itself produces
        self._set_key(key, _N + 1 - int(left))
        self._seed = int(seed_)
        self._fresh = int(left) == 1 and int(nxt) == 0
        self._normal = float(normal_y) if valid else None
        self._normal_float = float(normal_f) if b[at + 36] else None
        return self


default_generator = Generator()
default_generator.seed()            # NB: as PyTorch's default generator: a random seed at start


def resolve(generator: Any) -> Generator:
    """The generator a ``generator=`` argument names (the default one for None)."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
    return generator


def manual_seed(seed: Any) -> Generator:
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    default_generator.set_state(new_state)


# ------------------------------------------------------------------ where the values go

def _order(arr: np.ndarray) -> np.ndarray:
    """``arr`` seen in the order PyTorch's serial kernels walk it: its memory order.

    A TensorIterator sorts dimensions by stride, so a transposed tensor is filled as it lies in
    memory, not in index order.
    """
    axes = sorted(range(arr.ndim), key=lambda d: -abs(arr.strides[d]) if arr.shape[d] > 1 else 0)
    return np.transpose(arr, axes)


def fill(arr: np.ndarray, values: np.ndarray) -> None:
    """Write ``values`` (one per element, in the order they were drawn) into ``arr``."""
    view = _order(arr)
    view[...] = values.reshape(view.shape)


def check_floating(d: dt.DType, kernel: str) -> None:
    if not d.is_floating_point:
        name = d.legacy[len("torch."):-len("Tensor")]
        raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


# ------------------------------------------------------------------ distributions

def _unit(gen: Generator, n: int, npd: np.dtype) -> np.ndarray:
    """``uniform_real_distribution(0, 1)``: a float's mantissa bits of one draw, scaled.

    float64 takes 53 bits of ``random64()``; float32 (and half, drawn as float32) 24 bits of
    ``random()``.
    """
    if npd == np.float64:
        return (gen.random64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53
    return (gen.random(n) & np.uint64((1 << 24) - 1)).astype(np.float32) * np.float32(2.0 ** -24)


def _cast(values: Any, npd: np.dtype) -> Any:
    """C++'s ``static_cast`` to ``npd``: a double becomes half through float."""
    if npd == np.float16 and values.dtype == np.float64:
        values = values.astype(np.float32)
    return values.astype(npd)


def uniform(gen: Generator, n: int, npd: np.dtype, low: float = 0.0,
            high: float = 1.0) -> np.ndarray:
    """``uniform_(low, high)``: ``x * (high - low) + low`` (fused in the vectorised builds).

    float32 and half compute in float32 with float32 bounds (half rounds at the end); a value
    that rounds up to ``high`` becomes ``low``, so the range stays [low, high).
    """
    x = _unit(gen, n, npd)
    if npd == np.float64:
        lo, span = float(low), float(high) - float(low)
    else:
        lo, span = float(np.float32(low)), float(np.float32(high) - np.float32(low))
    out = rm.muladd(x, span, lo, rm.vector_kernels()).astype(npd)
    out[out == _cast(np.float64(high), npd)] = _cast(np.float64(low), npd)
    return out


def _normal_scalar(gen: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """``normal_distribution<double>``, one element at a time (fewer than 16, or strided).

    Each Box-Muller pair draws ``u1`` then ``u2`` (53 bits each), returns
    ``sqrt(-2 log1p(-u2)) cos(2 pi u1)`` and keeps the sine's sample on the generator for the
    next scalar draw, even one in a later call.
    """
    out = np.empty(n)
    start = 0
    if n and gen._normal is not None:
        out[0], gen._normal, start = gen._normal, None, 1
    pairs = (n - start + 1) // 2
    if pairs:
        u = _unit(gen, 2 * pairs, np.dtype(np.float64))
        r = np.sqrt(-2.0 * rm.libm64("log1p", -u[1::2]))
        theta = 2.0 * np.pi * u[0::2]
        both = np.empty(2 * pairs)
        both[0::2] = r * rm.libm64("cos", theta)
        both[1::2] = r * rm.libm64("sin", theta)
        out[start:] = both[:n - start]
        if (n - start) % 2:
            gen._normal = float(both[-1])
    return rm.muladd(out, std, mean, rm.vector_kernels())


def _box_muller16(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """``normal_fill_16`` on rows of 16 uniforms: the first 8 give the radii, the last 8 the
    angles; the cosines fill the first half, the sines the second; then ``* std + mean``,
    fused in every build."""
    u1, u2 = 1 - u[:, :8], u[:, 8:]
    if u.dtype == np.float64:
        radius = np.sqrt(-2 * rm.libm64("log", u1))
        theta = 2.0 * np.pi * u2
        cos, sin = rm.libm64("cos", theta), rm.libm64("sin", theta)
    elif rm.vector_kernels():
        # NB: the AVX2 kernel: Cephes log and sincos in float32, theta = float(2 pi) * u2
        radius = np.sqrt(np.float32(-2) * rm.cephes_log(u1))
        sin, cos = rm.cephes_sincos(np.float32(2 * np.pi) * u2)
    else:
        radius = np.sqrt(np.float32(-2) * rm.libm32("log", u1))
        theta = (2.0 * np.pi * u2.astype(np.float64)).astype(np.float32)
        cos, sin = rm.libm32("cos", theta), rm.libm32("sin", theta)
    z = np.concatenate([radius * cos, radius * sin], axis=1)
    return rm.muladd(z, std, mean, True)


def normal(gen: Generator, arr: np.ndarray, mean: float = 0.0, std: float = 1.0) -> None:
    """``normal_(mean, std)`` into ``arr``: PyTorch's two paths.

    A contiguous tensor of 16 elements or more draws all its uniforms first and transforms
    them 16 at a time; where 16 does not divide its size, it draws 16 more and recomputes the
    last 16 elements (so the tail overlaps the block before it). Half runs the float32 kernel
    on a float32 buffer, whose tail block takes the leftover uniforms and draws only the rest.
    Anything else takes the scalar path, through the cached sample.
    """
    npd = arr.dtype
    n = arr.size
    if not (n >= 16 and arr.flags.c_contiguous):
        fill(arr, _cast(_normal_scalar(gen, n, mean, std), npd))
        return
    u = _unit(gen, n, npd)
    full, rest = n - n % 16, n % 16
    out = np.empty(n, u.dtype)
    out[:full] = _box_muller16(u[:full].reshape(-1, 16), mean, std).reshape(-1)
    if rest:
        if npd == np.float16:
            tail = np.concatenate([u[full:], _unit(gen, 16 - rest, npd)])
        else:
            tail = _unit(gen, 16, npd)
        out[n - 16:] = _box_muller16(tail.reshape(1, 16), mean, std).reshape(-1)
    arr.reshape(-1)[...] = out.astype(npd)


_INT_RANGES = {"uint8": (0, 255, "unsigned char"), "int8": (-128, 127, "signed char"),
               "int16": (-(1 << 15), (1 << 15) - 1, "short"),
               "int32": (-(1 << 31), (1 << 31) - 1, "int"),
               "int64": (-(1 << 63), (1 << 63) - 1, "long int"), "bool": (0, 1, "bool")}


def top(d: dt.DType) -> int:
    """The largest value ``random_(from, None)`` draws: the dtype's largest integer (the largest
    of a float's contiguous integers, 2**digits)."""
    floats = {"float16": 1 << 11, "float32": 1 << 24, "float64": 1 << 53}
    return floats.get(d.name) or _INT_RANGES[d.name][1]


def random_from_to(gen: Generator, n: int, d: dt.DType, low: int, high: int) -> np.ndarray:
    """``random_(low, high)`` (``randint``): one draw modulo the range, plus ``low``.

    A range of 2**28 or more takes ``random64()`` (PyTorch 2.13's threshold, found by probing:
    lower than the 2**32 of its older releases).
    """
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    if d.name in _INT_RANGES:
        lo, hi, ctype = _INT_RANGES[d.name]
        if not lo <= low <= hi:
            raise RuntimeError(f"from is out of bounds for {ctype}")
        if not lo <= high - 1 <= hi:
            raise RuntimeError(f"to - 1 is out of bounds for {ctype}")
    span = high - low
    if span == 1 << 64:                  # NB: int64's whole range: a 64-bit draw as it is
        return gen.random64(n).view(np.int64).astype(d.np)
    raw = gen.random64(n) if span >= 1 << 28 else gen.random(n)
    vals = ((raw % np.uint64(span)) + np.uint64(low & _U64)).view(np.int64)
    return vals.astype(d.np)


def random_full(gen: Generator, n: int, d: dt.DType) -> np.ndarray:
    """``random_()``: a draw modulo the dtype's largest integer + 1 (its mantissa's range for
    floats, ``2**digits + 1``); 64-bit draws for int64 and float64."""
    if d is dt.bool_:
        return (gen.random(n) & np.uint64(1)).astype(np.bool_)
    if d in (dt.int64, dt.float64):
        mod = 1 << 63 if d is dt.int64 else (1 << 53) + 1
        return (gen.random64(n) % np.uint64(mod)).astype(d.np)
    mod = {"float32": (1 << 24) + 1, "float16": (1 << 11) + 1}.get(
        d.name, _INT_RANGES.get(d.name, (0, 0, ""))[1] + 1)
    return (gen.random(n) % np.uint64(mod)).astype(d.np)


def randperm(gen: Generator, n: int) -> np.ndarray:
    """``randperm(n)``: Fisher-Yates from the front, ``i`` swapped with ``i + random() % (n-i)``.

    NB: PyTorch draws 64 bits instead only for n of 2**32 / 20 or more.
    """
    perm = list(range(n))
    if n > 1:
        z = (gen.random(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
        for i, k in enumerate(z):
            j = i + k
            perm[i], perm[j] = perm[j], perm[i]
    return np.array(perm, dtype=np.int64)


def bernoulli(gen: Generator, n: int, p: float) -> np.ndarray:
    """``bernoulli_(p)``: a 53-bit uniform per element below ``p``.

    NB: PyTorch 2.13's CPU kernel (every vendor's: no MKL stream) draws ``random64()`` each.
    """
    return _unit(gen, n, np.dtype(np.float64)) < p
