"""FlashInfer Trace ``Workload``: var-axis values and how each input is produced."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from kernelopt.data.base import FIBModel


class RandomInput(FIBModel):
    """Input drawn at random (regenerated every trial)."""

    type: Literal["random"]


class ScalarInput(FIBModel):
    """Input given as a literal scalar."""

    type: Literal["scalar"]
    value: int | float | bool


class SafetensorsInput(FIBModel):
    """Input loaded from a safetensors blob (identical across trials)."""

    type: Literal["safetensors"]
    path: str
    tensor_key: str


InputSpec = Annotated[RandomInput | ScalarInput | SafetensorsInput, Field(discriminator="type")]


class Workload(FIBModel):
    """One workload: a UUID, the values of the definition's var axes, and input sources."""

    uuid: str = Field(min_length=1)
    axes: dict[str, int]
    inputs: dict[str, InputSpec] = Field(default_factory=dict)

    def input_kind(self, name: str) -> str:
        """``random`` | ``scalar`` | ``safetensors`` (a missing name means random)."""
        spec = self.inputs.get(name)
        return "random" if spec is None else spec.type

    @property
    def short_id(self) -> str:
        """First 8 characters of the UUID, for tables."""
        return self.uuid.replace("-", "")[:8]
