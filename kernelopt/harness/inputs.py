"""Materialise a workload's inputs (and output buffers) as tensors.

Order of precedence for each input, in signature order:

1. ``{"type": "scalar"}`` in the workload: the literal value (python scalar for ``shape: null``).
2. ``{"type": "safetensors"}`` whose file exists (path relative to ``root``, default the operator
   folder): the stored tensor (shape and dtype checked).
3. A value returned by the operator's structured generator ``operators/<def>/inputs.py::generate(
   definition, workload, axes, device, generator) -> dict[str, Tensor]`` (page tables, ``cu_seqlens``,
   packed caches, well-scaled MoE scales, synthesised stand-ins for absent blobs, ...).
4. ``{"type": "random"}`` (or not listed): drawn as FlashInfer-Bench does (``bench/utils.py``):
   floats ``randn``; fp8 ``randn().clamp(-2, 2)`` cast; bool {0, 1}; int8 [-128, 128);
   int16/32/64 [-1024, 1024).

A safetensors input whose file is absent and which the generator does not supply is an error.

Randomness: each trial has one CPU ``torch.Generator`` seeded from (``seed``, workload UUID) —
:func:`data_generator`; every random tensor takes one 62-bit key from it and is computed on ``device``
by the counter-based draws of :mod:`kernelopt.harness.device_random` (exact integer hashing and table
lookups), so every device sees the same numbers and a GPU draws even the MoE weights (1.4 G fp8 codes)
in milliseconds. Operator generators draw their data the same way, on the device
they are given (``device_random.normal`` / ``uniform``). Generators derive seed-independent *structure* (the stand-in for data that FlashInfer
ships as blobs and keeps fixed across trials: page tables, sequence splits, routing logits) from
:func:`structure_generator` keyed by the workload UUID, on the CPU (small tensors).
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from kernelopt.data.definition import Definition, TensorSpec
from kernelopt.data.workload import SafetensorsInput, ScalarInput, Workload
from kernelopt.harness import device_random
from kernelopt.harness.dtypes import FLOAT_DTYPES, FP8_DTYPES, dtype_name, torch_dtype
from kernelopt.operators import operator_path

HOOK_FILE = "inputs.py"
_HOOKS: dict[tuple[str, int], ModuleType] = {}


class InputError(ValueError):
    """Inputs cannot be materialised; the message names the definition, workload and input."""


# -- generators ------------------------------------------------------------------------------
def _seed_of(*parts: object) -> int:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


def data_generator(seed: int, uuid: str) -> torch.Generator:
    """CPU generator for random data of one trial: seeded from (``seed``, workload ``uuid``)."""
    return torch.Generator(device="cpu").manual_seed(_seed_of("data", int(seed), uuid))


def structure_generator(key: str) -> torch.Generator:
    """CPU generator for seed-independent structure (key: a workload UUID or a fixed label)."""
    return torch.Generator(device="cpu").manual_seed(_seed_of("structure", key))


# -- random tensors --------------------------------------------------------------------------
def random_tensor(shape: tuple[int, ...] | list[int], dtype: Any, generator: torch.Generator,
                  device: str | torch.device = "cpu") -> torch.Tensor:
    """A tensor drawn as FlashInfer-Bench draws ``random`` inputs, computed on ``device`` with the
    counter-based draws of :mod:`kernelopt.harness.device_random` (the same bits on every device).

    Args:
        shape: concrete shape (``()`` for a 0-d tensor).
        dtype: FlashInfer dtype (``DType``, its string) or a ``torch.dtype``.
        generator: CPU ``torch.Generator`` (one draw consumed: the tensor's key).
        device: where the tensor is made.
    """
    name = dtype_name(dtype) if isinstance(dtype, torch.dtype) else getattr(dtype, "value", str(dtype))
    td = torch_dtype(name)
    shape = tuple(int(s) for s in shape)
    if name in FLOAT_DTYPES:
        return device_random.normal(shape, generator, device, td)
    if name in FP8_DTYPES:
        return device_random.fp8(shape, name, generator, device)
    if name == "bool":
        return device_random.integers(shape, 0, 2, generator, device, torch.uint8).bool()
    if name == "int8":
        return device_random.integers(shape, -128, 128, generator, device, td)
    return device_random.integers(shape, -1024, 1024, generator, device, td)


def _python_scalar(spec: TensorSpec, value: Any) -> Any:
    name = spec.dtype.value
    if name == "bool":
        return bool(value)
    if name.startswith("int"):
        return int(value)
    return float(value)


# -- operator hooks --------------------------------------------------------------------------
def load_input_hook(definition_name: str) -> ModuleType | None:
    """The operator's ``inputs.py`` module (cached by path and mtime), or ``None`` if absent."""
    path = operator_path(definition_name) / HOOK_FILE
    if not path.is_file():
        return None
    key = (str(path), path.stat().st_mtime_ns)
    if key not in _HOOKS:
        spec = importlib.util.spec_from_file_location(f"kernelopt_operator_inputs_{definition_name}", path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        try:
            spec.loader.exec_module(module)  # type: ignore[union-attr]
        except Exception as exc:
            raise InputError(f"{path}: failed to import: {type(exc).__name__}: {exc}") from exc
        if not callable(getattr(module, "generate", None)):
            raise InputError(f"{path}: defines no callable 'generate(definition, workload, axes, device, "
                             "generator)'")
        _HOOKS[key] = module
    return _HOOKS[key]


def _check_tensor(value: Any, spec: TensorSpec, shape: tuple[int, ...], where: str) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise InputError(f"{where}: expected a torch.Tensor, got {type(value).__name__}")
    want = torch_dtype(spec.dtype)
    if value.dtype != want or tuple(value.shape) != shape:
        raise InputError(f"{where}: got {tuple(value.shape)} {value.dtype}, the definition declares "
                         f"{shape} {want}")
    return value


def _load_blob(path: Path, key: str, spec: TensorSpec, shape: tuple[int, ...], where: str) -> torch.Tensor:
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="pt") as fh:
            if key not in fh.keys():  # noqa: SIM118 - safe_open handle, not a dict
                raise InputError(f"{where}: tensor_key '{key}' not in {path} (keys: {sorted(fh.keys())})")
            tensor = fh.get_tensor(key)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{where}: cannot read safetensors file {path}: {exc}") from exc
    return _check_tensor(tensor, spec, shape, f"{where} ({path}::{key})")


def make_inputs(definition: Definition, workload: Workload, *, device: str | torch.device = "cpu",
                seed: int = 0, root: str | Path | None = None) -> dict[str, Any]:
    """Materialise all inputs of ``workload`` in signature order (tensors on ``device``, scalars as
    python numbers).

    Args:
        definition: the operator definition.
        workload: one of its workloads.
        device: where the tensors are made (random data is drawn there; small structure tensors are drawn on
            the CPU and moved).
        seed: trial seed; random data depends on (seed, workload UUID), structure only on the UUID.
        root: folder that safetensors paths are relative to (default: the operator's folder).

    Raises:
        InputError: unknown axes/inputs, unreadable or mismatching blobs, a missing blob that no
            generator replaces, or a generator returning a tensor of the wrong shape/dtype.
    """
    where = f"{definition.name} workload {workload.uuid}"
    try:
        axes = definition.axis_values(workload.axes)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None
    unknown = sorted(set(workload.inputs) - set(definition.inputs))
    if unknown:
        raise InputError(f"{where}: field 'inputs' names {unknown}, not inputs of {definition.name}")
    base = Path(root) if root is not None else operator_path(definition.name)
    shapes = {n: tuple(axes[a] for a in s.shape) if s.shape is not None else None
              for n, s in definition.inputs.items()}
    fixed: dict[str, Any] = {}
    missing: dict[str, Path] = {}
    for name, spec in definition.inputs.items():
        src = workload.inputs.get(name)
        if isinstance(src, ScalarInput):
            shape = shapes[name]
            fixed[name] = (_python_scalar(spec, src.value) if shape is None
                           else torch.full(shape, src.value, dtype=torch_dtype(spec.dtype)))
        elif isinstance(src, SafetensorsInput):
            path = base / src.path
            if path.is_file():
                fixed[name] = _load_blob(path, src.tensor_key, spec, shapes[name] or (),
                                         f"{where}: input '{name}'")
            else:
                missing[name] = path

    generator = data_generator(seed, workload.uuid)
    hook = load_input_hook(definition.name)
    provided: dict[str, Any] = {}
    if hook is not None:
        provided = hook.generate(definition, workload, axes, device, generator) or {}
        extra = sorted(set(provided) - set(definition.inputs))
        if extra:
            raise InputError(f"{hook.__file__}: generate() returned {extra}, not inputs of {definition.name}")

    out: dict[str, Any] = {}
    for name, spec in definition.inputs.items():
        shape = shapes[name]
        if name in fixed:
            value = fixed[name]
        elif name in provided:
            value = provided[name]
            if shape is not None:
                value = _check_tensor(value, spec, shape, f"{hook.__file__}: generate() output '{name}'")
        elif name in missing:
            raise InputError(f"{where}: input '{name}' is a safetensors blob and {missing[name]} does not "
                             f"exist (no operators/{definition.name}/{HOOK_FILE} generator supplies it)")
        elif shape is None:
            value = _python_scalar(spec, random_tensor((), spec.dtype, generator).item())
        else:
            value = random_tensor(shape, spec.dtype, generator, device)
        out[name] = value.to(device) if isinstance(value, torch.Tensor) else value
    return out


def allocate_outputs(definition: Definition, workload: Workload,
                     device: str | torch.device = "cpu") -> dict[str, torch.Tensor]:
    """Uninitialised (``torch.empty``) output buffers of the declared shapes and dtypes."""
    out: dict[str, torch.Tensor] = {}
    for name, spec in definition.outputs.items():
        shape = definition.shape_of(name, workload.axes) or ()
        out[name] = torch.empty(shape, dtype=torch_dtype(spec.dtype), device=device)
    return out


def describe_inputs(definition: Definition, workload: Workload, inputs: dict[str, Any]) -> dict[str, Any]:
    """Operator-specific facts about materialised inputs (the hook's ``describe``), else ``{}``."""
    hook = load_input_hook(definition.name)
    describe = getattr(hook, "describe", None)
    return dict(describe(definition, workload, inputs)) if callable(describe) else {}


def summarise_inputs(inputs: dict[str, Any]) -> str:
    """One line per input for logs: shape, dtype, device and (small integer tensors) the range."""
    lines = []
    for name, value in inputs.items():
        if isinstance(value, torch.Tensor):
            text = f"{name}: {tuple(value.shape)} {str(value.dtype).replace('torch.', '')} {value.device}"
            if not value.is_floating_point() and 0 < value.numel() <= 1 << 20:
                lo, hi = value.min().item(), value.max().item()
                text += f" range [{lo}, {hi}]"
            lines.append(text)
        else:
            lines.append(f"{name}: {type(value).__name__} = {value!r}")
    return "\n".join(lines)
