"""Anti-cheat guards around a solution call (REFERENCE §7).

* Output poisoning: DPS output buffers are filled before every checked call - floats with NaN (so any
  element the kernel never writes fails the non-finite check), integers with ``INT_POISON[dtype]``
  (the dtype's minimum, e.g. -2**31 for int32: never a valid index, count or -1 padding), bool with
  True - so a kernel cannot pass by leaving a stale correct result in uninitialised memory.
* Input mutation: inputs are copied before the call and compared bitwise afterwards; a difference
  is ``REJECTED`` with reason ``input mutation: <name>``.
* Plain tensors: returned outputs must be exactly ``torch.Tensor`` (no subclass / lazy tensor) with
  storage on the evaluation device.
* Harness integrity: the timing and synchronisation functions the harness relies on must be the same
  objects after the call (no monkey-patching of timers).
"""

from __future__ import annotations

import sys
import time
from typing import Any

import torch

INT_POISON: dict[torch.dtype, int] = {
    d: torch.iinfo(d).min for d in (torch.int8, torch.int16, torch.int32, torch.int64)
}
INT_POISON[torch.uint8] = 0xFF


def poison_(t: torch.Tensor) -> torch.Tensor:
    """Fill a tensor in place with its dtype's poison value (NaN, integer minimum, or True)."""
    if t.is_floating_point():
        if t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            t.view(torch.uint8).fill_(0x7F)  # NaN bit pattern in both fp8 formats
        else:
            t.fill_(float("nan"))
    elif t.dtype == torch.bool:
        t.fill_(True)
    elif t.dtype in INT_POISON:
        t.fill_(INT_POISON[t.dtype])
    else:
        t.view(torch.uint8).fill_(0xFF)
    return t


def _bytes(t: torch.Tensor) -> torch.Tensor:
    t = t.detach().contiguous()
    return t.reshape(-1).view(torch.uint8) if t.numel() else t.reshape(-1).to(torch.uint8)


class InputGuard:
    """Bitwise copies of a call's inputs, to detect mutation and to feed trusted code later."""

    def __init__(self, inputs: dict[str, Any]) -> None:
        self.copies: dict[str, Any] = {
            k: (v.detach().clone() if isinstance(v, torch.Tensor) else v) for k, v in inputs.items()
        }

    def mutated(self, inputs: dict[str, Any]) -> list[str]:
        """Names of inputs whose bytes (or shape/dtype, or scalar value) changed."""
        bad = []
        for k, ref in self.copies.items():
            cur = inputs[k]
            if isinstance(ref, torch.Tensor):
                if (not isinstance(cur, torch.Tensor) or cur.shape != ref.shape or cur.dtype != ref.dtype
                        or not torch.equal(_bytes(cur), _bytes(ref))):
                    bad.append(k)
            elif cur != ref and not (cur != cur and ref != ref):  # NaN scalars compare unequal
                bad.append(k)
        return bad

    def fresh(self) -> dict[str, Any]:
        """New clones of the pristine inputs."""
        return {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in self.copies.items()}


def _same_device(t: torch.Tensor, device: torch.device) -> bool:
    if t.device.type != device.type:
        return False
    if device.type == "cuda":
        want = device.index if device.index is not None else torch.cuda.current_device()
        return t.device.index == want
    return True


def output_problems(names: list[str], outs: list[Any], device: torch.device) -> list[str]:
    """Reasons why returned outputs are not plain, materialised tensors on ``device``."""
    problems = []
    for name, t in zip(names, outs):
        if type(t) is not torch.Tensor:
            problems.append(f"output '{name}' is a {type(t).__module__}.{type(t).__qualname__}, "
                            "not a plain torch.Tensor")
            continue
        if t.is_meta or t.layout != torch.strided:
            problems.append(f"output '{name}' has no dense storage (layout {t.layout}, meta={t.is_meta})")
        elif not _same_device(t, device):
            problems.append(f"output '{name}' is on {t.device}, expected {device}")
    return problems


def _watched() -> dict[str, Any]:
    cuda = torch.cuda
    import numpy as np

    watched: dict[str, Any] = {}
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or not mod_name.startswith("kernelopt.harness"):
            continue
        for attr, val in list(vars(mod).items()):
            if callable(val):
                watched[f"{mod_name}.{attr}"] = val
            if isinstance(val, type) and val.__module__ == mod_name:
                for meth, fn in vars(val).items():
                    if callable(fn) or isinstance(fn, (staticmethod, classmethod)):
                        watched[f"{mod_name}.{attr}.{meth}"] = fn
    return watched | {
        "numpy.median": np.median,
        "numpy.mean": np.mean,
        "numpy.percentile": np.percentile,
        "time.perf_counter": time.perf_counter,
        "time.perf_counter_ns": time.perf_counter_ns,
        "torch.cuda.synchronize": cuda.synchronize,
        "torch.cuda.Event.record": cuda.Event.record,
        "torch.cuda.Event.elapsed_time": cuda.Event.elapsed_time,
        "torch.cuda.Event.synchronize": cuda.Event.synchronize,
        "torch.Tensor.zero_": torch.Tensor.zero_,
        "torch.equal": torch.equal,
    }


class IntegrityGuard:
    """Identity snapshot of the functions the harness times and checks with."""

    def __init__(self) -> None:
        self.before = _watched()

    def tampered(self) -> list[str]:
        """Names of watched functions that were replaced since the snapshot."""
        now = _watched()
        return [k for k, f in self.before.items() if now.get(k) is not f]
