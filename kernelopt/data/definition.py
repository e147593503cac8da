"""FlashInfer Trace ``Definition``: an operator's axes, signature and reference code."""

from __future__ import annotations

import ast
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from kernelopt.data.base import FIBModel


class DType(str, Enum):
    """Tensor element types allowed by the FlashInfer Trace schema."""

    float32 = "float32"
    float16 = "float16"
    bfloat16 = "bfloat16"
    float8_e4m3fn = "float8_e4m3fn"
    float8_e5m2 = "float8_e5m2"
    float4_e2m1 = "float4_e2m1"
    int64 = "int64"
    int32 = "int32"
    int16 = "int16"
    int8 = "int8"
    bool = "bool"


DTYPE_BYTES: dict[str, float] = {
    "float32": 4, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1, "float8_e5m2": 1,
    "float4_e2m1": 0.5, "int64": 8, "int32": 4, "int16": 2, "int8": 1, "bool": 1,
}


class ConstAxis(FIBModel):
    """An axis whose size is fixed by the definition."""

    type: Literal["const"]
    value: int = Field(ge=0)
    description: str | None = None


class VarAxis(FIBModel):
    """An axis whose size each workload sets."""

    type: Literal["var"]
    description: str | None = None


Axis = Annotated[ConstAxis | VarAxis, Field(discriminator="type")]


class TensorSpec(FIBModel):
    """One input or output: a shape (axis names; ``None`` = scalar) and a dtype."""

    shape: list[str] | None
    dtype: DType
    description: str | None = None
    optional: bool | None = None

    @property
    def is_scalar(self) -> bool:
        """True for scalar arguments (``shape: null``)."""
        return self.shape is None


class Definition(FIBModel):
    """An operator definition (FlashInfer Trace schema)."""

    name: str = Field(min_length=1)
    op_type: str
    description: str | None = None
    tags: list[str] = Field(default_factory=list)
    axes: dict[str, Axis]
    constraints: list[str] = Field(default_factory=list)
    inputs: dict[str, TensorSpec]
    outputs: dict[str, TensorSpec]
    reference: str

    @model_validator(mode="after")
    def _check(self) -> Definition:
        clash = set(self.inputs) & set(self.outputs)
        if clash:
            raise ValueError(f"inputs and outputs share names: {sorted(clash)}")
        for kind, specs in (("inputs", self.inputs), ("outputs", self.outputs)):
            for tname, spec in specs.items():
                for ax in spec.shape or []:
                    if ax not in self.axes:
                        raise ValueError(f"{kind}.{tname}.shape uses undeclared axis '{ax}'")
        for i, expr in enumerate(self.constraints):
            try:
                ast.parse(expr, mode="eval")
            except SyntaxError as exc:
                raise ValueError(f"constraints[{i}] is not a Python expression: {exc.msg}") from None
        try:
            tree = ast.parse(self.reference)
        except SyntaxError as exc:
            raise ValueError(f"reference does not parse (line {exc.lineno}): {exc.msg}") from None
        if not any(isinstance(n, ast.FunctionDef) and n.name == "run" for n in tree.body):
            raise ValueError("reference defines no top-level function 'run'")
        return self

    # -- helpers -----------------------------------------------------------------
    @property
    def const_axes(self) -> dict[str, int]:
        """Constant axes and their values."""
        return {k: a.value for k, a in self.axes.items() if isinstance(a, ConstAxis)}

    @property
    def var_axes(self) -> list[str]:
        """Names of the axes each workload sets."""
        return [k for k, a in self.axes.items() if isinstance(a, VarAxis)]

    def shape_axis(self, axis: str) -> tuple[int, str, int] | None:
        """``(argument index, input name, dimension)`` of the first required input whose shape names ``axis``
        (an optional input may be ``None`` at run time), else ``None``: where a composed solution can read
        ``axis`` from its arguments without a host sync."""
        for i, (name, spec) in enumerate(self.inputs.items()):
            shape = list(spec.shape or [])
            if axis in shape and not spec.optional:
                return i, name, shape.index(axis)
        return None

    def axis_values(self, workload_axes: dict[str, int]) -> dict[str, int]:
        """All axis sizes for a workload; raises ``ValueError`` naming a missing/unknown axis."""
        missing = [a for a in self.var_axes if a not in workload_axes]
        if missing:
            raise ValueError(f"workload does not set var axes {missing} of {self.name}")
        unknown = [a for a in workload_axes if a not in self.axes]
        if unknown:
            raise ValueError(f"workload sets unknown axes {unknown} of {self.name}")
        vals = dict(self.const_axes)
        vals.update({k: int(v) for k, v in workload_axes.items() if k in self.var_axes})
        return vals

    def shape_of(self, tensor: str, workload_axes: dict[str, int]) -> tuple[int, ...] | None:
        """Concrete shape of an input/output for a workload (``None`` for scalars)."""
        spec = self.inputs.get(tensor) or self.outputs.get(tensor)
        if spec is None:
            raise KeyError(f"{self.name} has no tensor '{tensor}'")
        if spec.shape is None:
            return None
        vals = self.axis_values(workload_axes)
        return tuple(vals[a] for a in spec.shape)

    def tensor_bytes(self, workload_axes: dict[str, int]) -> int:
        """Bytes of all inputs + outputs for a workload (roofline lower bound on traffic)."""
        total = 0.0
        for name, spec in {**self.inputs, **self.outputs}.items():
            shape = self.shape_of(name, workload_axes) or ()
            n = 1
            for s in shape:
                n *= s
            total += n * DTYPE_BYTES[spec.dtype.value]
        return int(total)

    def tag_value(self, key: str) -> str | None:
        """Value of a ``key:value`` tag, if present."""
        for t in self.tags:
            if t.startswith(key + ":"):
                return t.split(":", 1)[1]
        return None

    def signature(self, dps: bool) -> list[str]:
        """Positional parameter names of a solution entry point."""
        names = list(self.inputs)
        return names + list(self.outputs) if dps else names

    @classmethod
    def from_file(cls, path: Any) -> Definition:
        """Load and validate one definition JSON file (errors name the file and field)."""
        from kernelopt.data.loader import load_definition

        return load_definition(path)
