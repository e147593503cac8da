"""FlashInfer Trace ``Solution``: a candidate kernel's sources and build spec."""

from __future__ import annotations

import hashlib
import json
from enum import Enum
from pathlib import PurePosixPath

from pydantic import Field, field_validator, model_validator

from kernelopt.data.base import FIBModel


class Language(str, Enum):
    """Languages a solution may be written in."""

    python = "python"
    triton = "triton"
    cpp = "cpp"
    cuda = "cuda"
    tilelang = "tilelang"


class BuildSpec(FIBModel):
    """How to build and call a solution."""

    language: Language
    target_hardware: list[str] = Field(min_length=1)
    entry_point: str
    dependencies: list[str] = Field(default_factory=list)
    destination_passing_style: bool = True
    binding: str | None = None

    @field_validator("entry_point")
    @classmethod
    def _entry(cls, v: str) -> str:
        if v.count("::") != 1:
            raise ValueError(f"entry_point must be '<file>::<function>' with exactly one '::', got {v!r}")
        path, fn = v.split("::")
        if not path or not fn.isidentifier():
            raise ValueError(f"entry_point {v!r}: need a file path and a valid function name")
        return v

    @property
    def entry_file(self) -> str:
        """Relative path of the file holding the entry function."""
        return self.entry_point.split("::")[0]

    @property
    def entry_function(self) -> str:
        """Name of the entry function."""
        return self.entry_point.split("::")[1]


class SourceFile(FIBModel):
    """One source file of a solution."""

    path: str
    content: str

    @field_validator("path")
    @classmethod
    def _path(cls, v: str) -> str:
        p = PurePosixPath(v)
        if p.is_absolute() or ".." in p.parts or not v.strip():
            raise ValueError(f"source path must be relative without '..': {v!r}")
        return v


class Solution(FIBModel):
    """A candidate implementation of one definition."""

    name: str = Field(min_length=1)
    definition: str
    author: str
    description: str | None = None
    spec: BuildSpec
    sources: list[SourceFile] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> Solution:
        paths = [s.path for s in self.sources]
        if len(set(paths)) != len(paths):
            raise ValueError("sources: duplicate paths")
        if self.spec.entry_file not in paths:
            raise ValueError(f"sources do not contain the entry file '{self.spec.entry_file}'")
        return self

    def hash(self) -> str:
        """SHA1 of everything that affects the built artefact (not the name)."""
        payload = {
            "definition": self.definition,
            "language": self.spec.language.value,
            "entry_point": self.spec.entry_point,
            "binding": self.spec.binding,
            "dependencies": sorted(self.spec.dependencies),
            "sources": sorted((s.path, s.content) for s in self.sources),
        }
        return hashlib.sha1(json.dumps(payload, sort_keys=True).encode()).hexdigest()

    def source(self, path: str) -> str:
        """Content of one source file."""
        for s in self.sources:
            if s.path == path:
                return s.content
        raise KeyError(path)
