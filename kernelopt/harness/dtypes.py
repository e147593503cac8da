"""FlashInfer Trace dtypes as torch dtypes, plus per-element sizes.

``float4_e2m1`` has no unpacked torch dtype (torch only offers the packed ``float4_e2m1fn_x2``), so
asking for it raises :class:`UnsupportedDTypeError` instead of silently picking a stand-in.
"""

from __future__ import annotations

import torch

from kernelopt.data.definition import DTYPE_BYTES, DType


class UnsupportedDTypeError(ValueError):
    """A FlashInfer dtype that the harness cannot materialise as a torch tensor."""


_TORCH_DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float8_e4m3fn": torch.float8_e4m3fn,
    "float8_e5m2": torch.float8_e5m2,
    "int64": torch.int64,
    "int32": torch.int32,
    "int16": torch.int16,
    "int8": torch.int8,
    "bool": torch.bool,
}

_NAMES: dict[torch.dtype, str] = {v: k for k, v in _TORCH_DTYPES.items()}

FLOAT_DTYPES = frozenset({"float32", "float16", "bfloat16"})
FP8_DTYPES = frozenset({"float8_e4m3fn", "float8_e5m2"})
INT_DTYPES = frozenset({"int64", "int32", "int16", "int8"})


def _name(dtype: DType | str) -> str:
    name = dtype.value if isinstance(dtype, DType) else str(dtype)
    if name not in DTYPE_BYTES:
        known = ", ".join(sorted(DTYPE_BYTES))
        raise UnsupportedDTypeError(f"unknown dtype '{name}' (FlashInfer Trace dtypes: {known})")
    return name


def torch_dtype(dtype: DType | str) -> torch.dtype:
    """The torch dtype of a FlashInfer Trace dtype.

    Args:
        dtype: a :class:`DType` or its string value (e.g. ``"float8_e4m3fn"``).

    Returns:
        The matching ``torch.dtype``.

    Raises:
        UnsupportedDTypeError: for ``float4_e2m1`` (no unpacked torch dtype) or an unknown name.
    """
    name = _name(dtype)
    if name == "float4_e2m1":
        raise UnsupportedDTypeError(
            "dtype 'float4_e2m1' is not supported by the kernelopt harness: torch has no unpacked "
            "fp4 dtype (only the packed float4_e2m1fn_x2), so inputs/outputs of this dtype cannot be "
            "materialised"
        )
    return _TORCH_DTYPES[name]


def dtype_name(dtype: torch.dtype) -> str:
    """The FlashInfer Trace name of a torch dtype (inverse of :func:`torch_dtype`)."""
    try:
        return _NAMES[dtype]
    except KeyError:
        raise UnsupportedDTypeError(f"torch dtype {dtype} has no FlashInfer Trace name") from None


def bytes_per_element(dtype: DType | str) -> float:
    """Bytes per element (0.5 for ``float4_e2m1``)."""
    return float(DTYPE_BYTES[_name(dtype)])


def is_floating(dtype: DType | str) -> bool:
    """True for float32/16, bfloat16 and the fp8/fp4 formats."""
    name = _name(dtype)
    return name.startswith("float") or name == "bfloat16"
