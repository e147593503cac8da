"""The operator library: ``operators/<definition>/`` folders (torch-free).

Each folder holds ``definition.json`` (FlashInfer Trace definition), ``workloads.jsonl`` (trace lines
with null solution/evaluation), an optional ``inputs.py`` (structured input generator used by
:mod:`kernelopt.harness.inputs`), an optional ``harness.json`` (per-definition harness overrides)
and a ``README.md``.

The library root is ``operators/`` at the repository root, or ``$KERNELOPT_OPERATORS_DIR`` when set
(read at call time, so tests can point it at a temporary folder).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from kernelopt.data.definition import Definition
from kernelopt.data.loader import DataError, load_definition, load_traces, parse_model, read_json_object
from kernelopt.data.records import HarnessSettings
from kernelopt.data.workload import Workload

OPERATORS_DIR: Path = Path(
    os.environ.get("KERNELOPT_OPERATORS_DIR") or Path(__file__).resolve().parents[1] / "operators"
)

DEFINITION_FILE = "definition.json"
WORKLOADS_FILE = "workloads.jsonl"
SETTINGS_FILE = "harness.json"
README_FILE = "README.md"


class UnknownOperatorError(ValueError):
    """No operator folder of that name; the message lists the known ones."""


@dataclass
class Operator:
    """One operator of the library: its definition, workloads and documentation."""

    name: str
    path: Path
    definition: Definition
    workloads: list[Workload] = field(default_factory=list)
    readme: str = ""

    def workload(self, uuid: str) -> Workload:
        """The workload with this UUID (a unique prefix of at least 8 characters also works)."""
        hits = [w for w in self.workloads if w.uuid == uuid]
        if not hits and len(uuid) >= 8:
            key = uuid.replace("-", "")
            hits = [w for w in self.workloads if w.uuid.replace("-", "").startswith(key)]
        if len(hits) != 1:
            raise KeyError(f"{self.name}: {'no' if not hits else 'ambiguous'} workload '{uuid}'")
        return hits[0]


def operators_root() -> Path:
    """The library root in effect now (``$KERNELOPT_OPERATORS_DIR`` or :data:`OPERATORS_DIR`)."""
    env = os.environ.get("KERNELOPT_OPERATORS_DIR")
    return Path(env) if env else OPERATORS_DIR


def operator_path(name: str) -> Path:
    """Folder of an operator (it need not exist)."""
    return operators_root() / name


CONTEST_OPERATORS: tuple[str, ...] = (
    "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048",
    "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64",
    "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64",
    "gdn_decode_qk4_v8_d128_k_last",
    "gdn_prefill_qk4_v8_d128_k_last",
)
"""The five definitions of the MLSys 2026 FlashInfer contest (tracks A, B, C)."""
SMALL_OPERATORS: tuple[str, ...] = ("rmsnorm_h4096", "fused_add_rmsnorm_h4096", "gemm_n4096_k4096")
"""Small definitions for demos and CPU tests."""


def list_operators() -> list[str]:
    """Names of all operators (folders holding a ``definition.json``), sorted."""
    root = operators_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / DEFINITION_FILE).is_file())


def _folder(name: str) -> Path:
    path = operator_path(name)
    if not (path / DEFINITION_FILE).is_file():
        known = ", ".join(list_operators()) or "(none)"
        raise UnknownOperatorError(
            f"unknown operator '{name}' (no {path / DEFINITION_FILE}); known operators: {known}"
        )
    return path


def _check_workload(definition: Definition, w: Workload, where: str) -> None:
    var = set(definition.var_axes)
    missing = sorted(var - set(w.axes))
    if missing:
        raise DataError(f"{where}: field 'workload.axes' lacks var axes {missing} of {definition.name}")
    unknown = sorted(set(w.axes) - var)
    if unknown:
        raise DataError(f"{where}: field 'workload.axes' sets {unknown}, which are not var axes of "
                        f"{definition.name}")
    for axis, value in w.axes.items():
        if value < 0:
            raise DataError(f"{where}: field 'workload.axes.{axis}' is negative ({value})")
    extra = sorted(set(w.inputs) - set(definition.inputs))
    if extra:
        raise DataError(f"{where}: field 'workload.inputs' names {extra}, which are not inputs of "
                        f"{definition.name}")


def load_workloads(definition: Definition, path: Path) -> list[Workload]:
    """Load and check a workloads JSONL file against its definition."""
    if not path.exists():
        return []
    out: list[Workload] = []
    seen: dict[str, int] = {}
    lineno = 0
    for lineno, trace in enumerate(load_traces(path), start=1):
        where = f"{path}:{lineno}"
        if trace.definition != definition.name:
            raise DataError(f"{where}: field 'definition' is '{trace.definition}', expected "
                            f"'{definition.name}'")
        if trace.workload.uuid in seen:
            raise DataError(f"{where}: field 'workload.uuid' {trace.workload.uuid} repeats line "
                            f"{seen[trace.workload.uuid]}")
        seen[trace.workload.uuid] = lineno
        _check_workload(definition, trace.workload, where)
        out.append(trace.workload)
    return out


def load_operator(name: str) -> Operator:
    """Load one operator folder.

    Raises:
        UnknownOperatorError: no such folder (lists the known operators).
        DataError: a malformed file; the message names the file, line and field.
    """
    path = _folder(name)
    definition = load_definition(path / DEFINITION_FILE)
    if definition.name != name:
        raise DataError(f"{path / DEFINITION_FILE}: field 'name' is '{definition.name}', but the folder "
                        f"is '{name}'")
    workloads = load_workloads(definition, path / WORKLOADS_FILE)
    readme_path = path / README_FILE
    readme = readme_path.read_text() if readme_path.is_file() else ""
    return Operator(name=name, path=path, definition=definition, workloads=workloads, readme=readme)


def operator_settings(name: str) -> dict:
    """Per-definition harness overrides from ``harness.json`` (``{}`` when absent).

    Keys must be :class:`~kernelopt.data.records.HarnessSettings` fields and values must validate.

    Raises:
        UnknownOperatorError: no such operator.
        DataError: malformed JSON, not an object, an unknown key or an invalid value.
    """
    path = _folder(name) / SETTINGS_FILE
    if not path.is_file():
        return {}
    data = read_json_object(path, "a JSON object of harness settings")
    fields = HarnessSettings.model_fields
    unknown = sorted(k for k in data if k not in fields)
    if unknown:
        raise DataError(f"{path}: unknown harness setting(s) {unknown}; known: {sorted(fields)}")
    parse_model(HarnessSettings, data, str(path))
    return dict(data)
