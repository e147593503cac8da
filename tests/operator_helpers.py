"""Shared by the operator-library tests: cached operators, their smallest workload, free host memory."""

from __future__ import annotations

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
