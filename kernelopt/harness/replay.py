"""Replay defences (REFERENCE §3.7 item 1, §7): new input values behind the same tensors.

The official timing reuses one set of inputs for every call of a trial, so a kernel can fingerprint
its inputs (address, shape, sampled bytes) and return a cached output. Two defences:

* :func:`refill_` + the same-address probe in ``evaluate`` (``settings.same_address_probe``, on by
  default, one extra solution and reference call per workload): new values are copied *into the
  same input tensors*; a cache keyed on addresses/shapes (or a buffer returned stale from the
  previous call) answers with the old result and fails the comparison.
* :func:`fresh_input_pass` (``settings.replay_check``, off by default): a second timing pass in
  which every timed call sees new values (in place, from pre-generated sets kept alive so the
  allocator cannot recycle addresses); every call's outputs are checked against the reference and
  the fresh-input latency is reported next to the official one (a content-fingerprint cache shows
  up as a gap: it must recompute on new values).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from kernelopt.harness.guards import poison_

#: Cap on the bytes of pre-generated fresh input sets per trial (they are cycled when fewer).
MAX_FRESH_BYTES = 2 << 30


def refill_(inputs: dict[str, Any], values: dict[str, Any]) -> None:
    """Write ``values`` into ``inputs``: tensors in place (same storage), scalars replaced."""
    for k, v in values.items():
        cur = inputs.get(k)
        if (isinstance(cur, torch.Tensor) and isinstance(v, torch.Tensor) and cur.shape == v.shape
                and cur.dtype == v.dtype):
            cur.copy_(v)
        else:
            inputs[k] = v.clone() if isinstance(v, torch.Tensor) else v


def input_bytes(inputs: dict[str, Any]) -> int:
    """Bytes held by the tensors of one input set."""
    return sum(v.numel() * v.element_size() for v in inputs.values() if isinstance(v, torch.Tensor))


def fresh_set_count(iterations: int, one_set_bytes: int) -> int:
    """How many distinct fresh sets to pre-generate (at least 2, at most ``iterations``)."""
    fit = MAX_FRESH_BYTES // max(one_set_bytes, 1)
    return max(2, min(iterations, fit))


def snapshot(value: Any) -> Any:
    """A copy of a call's outputs (a tensor, or lists / tuples / dicts of them) that later calls cannot overwrite."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (list, tuple)):
        return type(value)(snapshot(v) for v in value)
    if isinstance(value, dict):
        return {k: snapshot(v) for k, v in value.items()}
    return value


@dataclass
class FreshPass:
    """Result of :func:`fresh_input_pass`: per-call ms, the set each call saw, its outputs."""

    times_ms: list[float] = field(default_factory=list)
    set_index: list[int] = field(default_factory=list)
    outputs: list[Any] = field(default_factory=list)  # DPS: list of tensors; else the returned value


def fresh_input_pass(fn: Callable[..., Any], inputs: dict[str, Any], sets: Sequence[dict[str, Any]],
                     outs: list[torch.Tensor], iterations: int, device: torch.device, timer: str,
                     flush: Callable[[], Any] | None = None) -> FreshPass:
    """Time ``iterations`` calls of ``fn``, each on new values refilled into ``inputs``.

    Before every call (outside the measured window): the previous call's outputs are copied out,
    set ``i % len(sets)`` is written into ``inputs`` in place, DPS ``outs`` are poisoned, the L2 is
    flushed (CUDA). The window is the same as the official timer's (``cupti``: GPU activity span,
    ``cuda_event``: events, ``cpu_wall``: ``perf_counter`` around the call plus a synchronize).
    """
    res = FreshPass()
    args_of = lambda: [*inputs.values(), *outs]
    last: dict[str, Any] = {}
    cuda = device.type == "cuda"
    sync = (lambda: torch.cuda.synchronize(device)) if cuda else (lambda: None)

    def collect() -> None:
        if "value" in last:
            res.outputs.append(snapshot(list(outs) if outs else last.pop("value")))
            last.pop("value", None)

    def prepare(i: int) -> None:
        sync()
        collect()
        refill_(inputs, sets[i % len(sets)])
        res.set_index.append(i % len(sets))
        for o in outs:
            poison_(o)
        if flush is not None:
            flush()

    def call() -> None:
        last["value"] = fn(*args_of())

    if cuda and timer == "cupti":
        from kernelopt.harness.cupti_timer import time_with_cupti

        counter = iter(range(iterations))
        res.times_ms = time_with_cupti(call, iterations, lambda: prepare(next(counter)), sync)
    else:
        for i in range(iterations):
            prepare(i)
            sync()
            if cuda and timer == "cuda_event":
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                call()
                end.record()
                end.synchronize()
                res.times_ms.append(start.elapsed_time(end))
            else:
                t0 = time.perf_counter()
                call()
                sync()
                res.times_ms.append((time.perf_counter() - t0) * 1e3)
    sync()
    collect()
    return res
