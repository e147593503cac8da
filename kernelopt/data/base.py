"""Shared pydantic base for FlashInfer-Trace and kernelopt records.

Unknown keys are kept (``extra="allow"``) and dumps exclude unset fields, so a
parse -> dump -> parse cycle reproduces the original document.
"""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel, ConfigDict


class FIBModel(BaseModel):
    """Base model: lenient on unknown keys, lossless on dump."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, validate_assignment=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict holding exactly the keys that were set (plus unknown ones)."""
        return self.model_dump(mode="json", exclude_unset=True, by_alias=True)

    def to_json(self, indent: int | None = None) -> str:
        """Serialise to JSON text (non-finite floats already turned into strings)."""
        return json.dumps(self.to_dict(), indent=indent)


def encode_float(x: float | None) -> float | str | None:
    """FlashInfer Trace convention: NaN / inf are written as strings."""
    if x is None:
        return None
    if isinstance(x, float) and not math.isfinite(x):
        if math.isnan(x):
            return "NaN"
        return "Infinity" if x > 0 else "-Infinity"
    return x


def decode_float(x: Any) -> Any:
    """Inverse of :func:`encode_float` (accepts "nan", "inf", "-inf" spellings too)."""
    if isinstance(x, str):
        low = x.strip().lower()
        if low in ("nan", "+nan", "-nan"):
            return math.nan
        if low in ("inf", "+inf", "infinity", "+infinity"):
            return math.inf
        if low in ("-inf", "-infinity"):
            return -math.inf
    return x
