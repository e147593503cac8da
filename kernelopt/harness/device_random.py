"""Counter-based random draws computed on the device the tensor is for, bit-identical on every device.

Element ``i`` of a draw is a function of (key, i) only: the SplitMix64 finaliser of ``i * golden + key``
computed with int64 tensor arithmetic (multiplication wraps modulo 2^64 on every torch device; right
shifts are made logical by masking), then mapped to the wanted distribution by exact operations on its
top bits (a table lookup, a power-of-two scale, a shift). No transcendental function runs on the device, so the CPU and a
GPU produce the same bits, and a GPU draws a 1.4 G-element MoE weight tensor in milliseconds instead of
the seconds that drawing on the CPU and copying took (each trial of each workload draws fresh inputs).

The key comes from the trial's CPU ``torch.Generator`` (one 62-bit draw per tensor), so the seeding
scheme of :mod:`kernelopt.harness.inputs` is unchanged: (seed, workload UUID) -> generator -> keys.

Distributions (FlashInfer-Bench draws ``randn`` floats, ``randint`` integers):

* normal: inverse-CDF table of 2^20 float32 quantiles (``ndtri((j + 0.5) / 2^20)``, tails at ±4.9);
* fp8: the table of ``randn().clamp(-2, 2)`` fp8 codes at 2^16 quantiles (as before);
* uniform [0, 1): the top 24 bits times 2^-24; integers: the top bits plus the lower bound.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

_GOLDEN = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed int64
_C1 = -4658895280553007687      # 0xBF58476D1CE4E5B9
_C2 = -7723592293110705685      # 0x94D049BB133111EB
_CHUNK = 1 << 24
_NORMAL_BITS = 20
_TABLES: dict[tuple[str, str], torch.Tensor] = {}


def draw_key(generator: torch.Generator) -> int:
    """One 62-bit key from the CPU generator (consumes one draw)."""
    return int(torch.randint(0, 1 << 62, (1,), generator=generator).item())


def _xor_lsr_(z: torch.Tensor, s: int) -> torch.Tensor:
    """``z ^= z >>> s`` (logical shift) in place."""
    return z.bitwise_xor_((z >> s).bitwise_and_((1 << (64 - s)) - 1))


def bits(start: int, count: int, key: int, device: torch.device | str) -> torch.Tensor:
    """64 mixed bits (int64) for indices ``start .. start + count - 1`` under ``key``."""
    z = torch.arange(start, start + count, dtype=torch.int64, device=device)
    z.mul_(_GOLDEN).add_(key)
    _xor_lsr_(z, 30).mul_(_C1)
    _xor_lsr_(z, 27).mul_(_C2)
    return _xor_lsr_(z, 31)


def top(z: torch.Tensor, n: int) -> torch.Tensor:
    """The top ``n`` bits of each 64-bit value, as integers in [0, 2^n)."""
    return (z >> (64 - n)).bitwise_and_((1 << n) - 1)


def _table(name: str, device: torch.device) -> torch.Tensor:
    """A lookup table (built once on the CPU in float64, then cached per device)."""
    key = (name, str(device))
    if key not in _TABLES:
        cpu = _TABLES.get((name, "cpu"))
        if cpu is None:
            if name == "normal":
                n = 1 << _NORMAL_BITS
                u = (torch.arange(n, dtype=torch.float64) + 0.5) / n
                cpu = torch.special.ndtri(u).to(torch.float32)
            else:  # an fp8 dtype: codes of randn().clamp(-2, 2) at 2^16 quantiles
                u = (torch.arange(1 << 16, dtype=torch.float64) + 0.5) / (1 << 16)
                x = torch.special.ndtri(u).clamp(-2.0, 2.0).to(torch.float32)
                cpu = x.to(getattr(torch, name)).view(torch.uint8)
            _TABLES[(name, "cpu")] = cpu
        _TABLES[key] = cpu.to(device)
    return _TABLES[key]


def _fill(shape: tuple[int, ...], dtype: torch.dtype, generator: torch.Generator, device: torch.device | str,
          transform: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    dev = torch.device(device)
    key = draw_key(generator)
    out = torch.empty(shape, dtype=dtype, device=dev)
    flat = out.view(-1)
    for start in range(0, flat.numel(), _CHUNK):
        n = min(_CHUNK, flat.numel() - start)
        flat[start:start + n] = transform(bits(start, n, key, dev)).to(dtype)
    return out


def normal(shape: tuple[int, ...], generator: torch.Generator, device: torch.device | str = "cpu",
           dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Standard normal draws (``randn``-like), rounded to ``dtype``."""
    dev = torch.device(device)
    table = _table("normal", dev)
    return _fill(shape, dtype, generator, dev, lambda z: table[top(z, _NORMAL_BITS)])


def uniform(shape: tuple[int, ...], generator: torch.Generator, device: torch.device | str = "cpu") -> torch.Tensor:
    """Uniform float32 draws in [0, 1) (``rand``-like), multiples of 2^-24."""
    return _fill(shape, torch.float32, generator, device, lambda z: top(z, 24).to(torch.float32).mul_(2.0 ** -24))


def integers(shape: tuple[int, ...], low: int, high: int, generator: torch.Generator,
             device: torch.device | str = "cpu", dtype: torch.dtype = torch.int64) -> torch.Tensor:
    """Integers in [low, high) for a power-of-two span ``high - low`` <= 2^32 (``randint``-like)."""
    span = high - low
    if span <= 0 or span & (span - 1) or span > 1 << 32:
        raise ValueError(f"integers: span {span} must be a power of two <= 2^32")
    width = span.bit_length() - 1
    return _fill(shape, dtype, generator, device, lambda z: top(z, width).add_(low))


def fp8(shape: tuple[int, ...], name: str, generator: torch.Generator, device: torch.device | str = "cpu") -> torch.Tensor:
    """fp8 codes distributed as ``randn().clamp(-2, 2).to(fp8)`` (``name``: a torch fp8 dtype name)."""
    dev = torch.device(device)
    table = _table(name, dev)
    codes = _fill(shape, torch.uint8, generator, dev, lambda z: table[top(z, 16)])
    return codes.view(getattr(torch, name))
