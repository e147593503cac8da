"""Shared by the tests: cached operators, their smallest workload, free host memory, script modules."""

from __future__ import annotations

import importlib.util
import sys
import types
from functools import cache
from pathlib import Path

from kernelopt.data import Workload
from kernelopt.operators import Operator, load_operator

INDEXER = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
ATTENTION = "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64"
DECODE = "gdn_decode_qk4_v8_d128_k_last"
PREFILL = "gdn_prefill_qk4_v8_d128_k_last"


@cache
def op(name: str) -> Operator:
    """The operator, loaded once per test session."""
    return load_operator(name)


def smallest(name: str) -> Workload:
    """The workload with the fewest input/output bytes."""
    o = op(name)
    return min(o.workloads, key=lambda w: o.definition.tensor_bytes(w.axes))


def available_gib() -> float:
    """Host memory available now (``MemAvailable``), GiB; 0 where it cannot be read."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return 0.0


def load_script(name: str, path: Path) -> types.ModuleType:
    """A script that is not an importable module (``benchmarks/*.py``, ``scripts/*.py``) loaded as module
    ``name``, registered in ``sys.modules`` (dataclasses resolve their module by name)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod
