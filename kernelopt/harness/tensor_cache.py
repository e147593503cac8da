"""Per-worker caches of tensors that are the same for every candidate: generated inputs and
reference outputs.

For a given (definition, workload, input seed, device) the generated inputs are identical for every
candidate a persistent worker evaluates, and so are the reference's outputs on them. Regenerating
and recomputing them per candidate dominated campaigns: MoE's inputs at 14,107 tokens take seconds to
draw, GDN prefill's per-token reference loop ~2 s per call at 8,192 tokens (three trials per workload).

Safety: an entry's value is fingerprinted when stored and checked on every hit (a candidate in the
same process that wrote into cached tensors -> the entry is dropped and the caller regenerates or
recomputes, and logs it). A reference entry is also keyed on the fingerprint of the inputs it was
computed from (input generation changed -> miss). Inputs are handed out as clones, never the cached
tensors; reference outputs are stored sealed (:mod:`kernelopt.harness.sealed`: masked bytes, which is what the
fingerprint covers), so a candidate cannot find this workload's answer in the cache. Entries are evicted least recently used beyond a byte budget
(``HarnessSettings.reference_cache_mb``, ``input_cache_mb``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

Fingerprint = tuple[Any, ...]


def _words(t: torch.Tensor) -> torch.Tensor:
    """The tensor's bytes as a flat integer tensor of the widest word that divides its size."""
    flat = t.detach().contiguous().reshape(-1)
    if flat.numel() <= 1:  # a one-element view may keep any stride; the bytes are contiguous anyway
        flat = flat.as_strided((flat.numel(),), (1,))
    raw = flat.view(torch.uint8)
    for dtype, size in ((torch.int64, 8), (torch.int32, 4), (torch.int16, 2)):
        if raw.numel() % size == 0:
            return raw.view(dtype)
    return raw


def tensor_checksum(t: torch.Tensor) -> tuple[int, int, int]:
    """Exact checksum of a tensor's bytes, computed where it lives: the wrapping int64 sums of its words,
    of its words mixed with a shift (so that compensating changes rarely cancel) and of every 7th word
    (position-sensitive). Bit-exact (NaN payloads, -0.0 included) and free of float64 copies (a float64
    fingerprint of a 550 MB DSA KV cache cost seconds per trial on the host)."""
    w = _words(t)
    if w.numel() == 0:
        return (0, 0, 0)
    wide = w.to(torch.int64) if w.dtype != torch.int64 else w
    return (int(wide.sum()), int((wide ^ (wide >> 29)).sum()), int(wide[::7].sum()))


def fingerprint(values: Mapping[str, Any] | list[Any] | tuple[Any, ...]) -> Fingerprint:
    """Shapes, dtypes and byte checksums (:func:`tensor_checksum`) of the tensors; other values as-is."""
    items = values.items() if isinstance(values, Mapping) else enumerate(values)
    out = []
    for k, v in items:
        if isinstance(v, torch.Tensor):
            out.append((k, tuple(v.shape), str(v.dtype), tensor_checksum(v)))
        else:
            out.append((k, repr(v)))
    return tuple(out)


def _nbytes(values: Any) -> int:
    vals = values.values() if isinstance(values, Mapping) else values
    return sum(v.numel() * v.element_size() for v in vals if isinstance(v, torch.Tensor))


@dataclass
class _Entry:
    inputs: Fingerprint
    outputs: Any
    outputs_print: Fingerprint
    nbytes: int


class TensorCache:
    """LRU cache of tensor collections keyed by the caller, bounded by ``max_bytes``."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._bytes = 0
        self.hits = self.misses = self.tampered = 0

    def get(self, key: Hashable, inputs_print: Fingerprint = ()) -> Any | None:
        """The cached value, or ``None`` (absent, other inputs, or value changed since stored)."""
        e = self._entries.get(key)
        if e is None or e.inputs != inputs_print:
            self.misses += 1
            return None
        if fingerprint(e.outputs) != e.outputs_print:
            self.tampered += 1
            self._drop(key)
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return e.outputs

    def put(self, key: Hashable, inputs_print: Fingerprint, outputs: Any) -> None:
        """Store ``outputs`` (a dict or list of tensors and scalars; skipped when it alone exceeds the
        budget)."""
        n = _nbytes(outputs)
        if self.max_bytes <= 0 or n > self.max_bytes:
            return
        if key in self._entries:
            self._drop(key)
        self._entries[key] = _Entry(inputs_print, outputs, fingerprint(outputs), n)
        self._bytes += n
        while self._bytes > self.max_bytes:
            self._drop(next(iter(self._entries)))

    def _drop(self, key: Hashable) -> None:
        e = self._entries.pop(key)
        self._bytes -= e.nbytes

    def clear(self) -> None:
        """Forget everything (e.g. after the device's memory ran out)."""
        self._entries.clear()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)
