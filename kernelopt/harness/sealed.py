"""Reference outputs kept sealed while candidate code runs (REFERENCE §7: copying the reference's output).

The harness holds the reference's outputs in the worker's memory: for each trial until its timed calls are
re-checked, and across candidates in the per-worker reference cache (:mod:`kernelopt.harness.tensor_cache`), keyed
by the trial's seed, which is the same for every candidate. A candidate that walks ``gc.get_objects()`` for a
tensor of its output's shape and dtype and copies it (``out.copy_(ref)``) returned the right answer at the cost of
a copy: the re-checks compared a copy of the reference with the reference (returning the reference's own tensor
is caught by :func:`kernelopt.harness.run_guards._shares_storage`; a copy is not).

So between uses a reference is **sealed**: each tensor's bytes XOR a random mask (drawn from a generator with a
secret seed, on the tensor's device, and drawn again to open), kept as flat ``uint8`` tensors that match no
output's shape or dtype; the plain tensors are **scrubbed** (zeroed in place) as soon as they have been compared,
so their memory, back in the allocator's pool, does not hand the values to a candidate's ``torch.empty`` either.
:meth:`Sealed.opened` gives plain copies for one comparison and scrubs them after.

This is obfuscation against the natural cheat, not cryptography against a targeted one: code that knows this
module can find the mask's seed in the same process.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator, Mapping
from typing import Any

import torch


def _mask(n: int, device: torch.device, seed: int) -> torch.Tensor:
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return torch.randint(0, 256, (n,), dtype=torch.uint8, device=device, generator=gen)


def _bytes(t: torch.Tensor) -> torch.Tensor:
    flat = t.detach().contiguous().reshape(-1)
    if flat.numel() <= 1:  # a one-element view may keep any stride; the bytes are contiguous anyway
        flat = flat.as_strided((flat.numel(),), (1,))
    return flat.view(torch.uint8)


class Sealed(tuple):
    """A reference output, sealed: the tuple of its tensors' masked bytes (what :class:`TensorCache` fingerprints
    and counts), plus how to open it. Build with :func:`seal`."""

    _keys: tuple[Any, ...] | None  # output names of a dict, None for a list / tuple / single value
    _single: bool
    _recipes: tuple[tuple[Any, ...], ...]  # per item: ("tensor", dtype, shape, seed) or ("value", value)

    def open(self) -> Any:
        """Plain copies of the sealed value (same container kind, names, dtypes and shapes)."""
        items = []
        for masked, recipe in zip(self, self._recipes):
            if recipe[0] == "value":
                items.append(recipe[1])
                continue
            _, dtype, shape, seed = recipe
            plain = masked ^ _mask(masked.numel(), masked.device, seed)
            items.append(plain.view(dtype).reshape(shape))
        if self._single:
            return items[0]
        return dict(zip(self._keys, items)) if self._keys is not None else items

    @contextlib.contextmanager
    def opened(self) -> Iterator[Any]:
        """:meth:`open` for the duration of a comparison; the plain copies are scrubbed afterwards."""
        value = self.open()
        try:
            yield value
        finally:
            scrub(value)


def seal(value: Any, scrub_plain: bool = True) -> Sealed:
    """Seal a reference output (a tensor, or a dict / list / tuple of tensors and other values); with
    ``scrub_plain`` the plain tensors are zeroed in place once sealed (the caller owns them)."""
    keys = tuple(value.keys()) if isinstance(value, Mapping) else None
    single = not isinstance(value, (Mapping, list, tuple))
    items = [value] if single else list(value.values()) if keys is not None else list(value)
    masked, recipes = [], []
    for item in items:
        if isinstance(item, torch.Tensor):
            raw = _bytes(item)
            seed = secrets.randbits(63)
            masked.append(raw ^ _mask(raw.numel(), raw.device, seed))
            recipes.append(("tensor", item.dtype, tuple(item.shape), seed))
        else:
            masked.append(None)
            recipes.append(("value", item))
    out = Sealed(masked)
    out._keys, out._single, out._recipes = keys, single, tuple(recipes)
    if scrub_plain:
        scrub(value)
    return out


def scrub(value: Any) -> None:
    """Zero the tensors of a plain reference value in place (a dict, list, tuple or single tensor)."""
    items = value.values() if isinstance(value, Mapping) else value if isinstance(value, (list, tuple)) else [value]
    for item in items:
        if isinstance(item, torch.Tensor) and item.numel():
            with torch.no_grad(), contextlib.suppress(RuntimeError):  # a broadcast view cannot be written
                item.zero_()
