"""Shared by the tests: cached operators, their smallest workload, free host memory, script modules, kernel
scripts run in a child process (on a GPU, or skipped), and for those scripts: a definition's reference, a
solution's entry imported as the harness does, the contest's closeness rule and GDN prefill inputs."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import types
from functools import cache
from pathlib import Path
from typing import Any

import pytest

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


REPO = Path(__file__).resolve().parents[1]


def run_kernel_script(script: Path, args: list[str], device: str, timeout: int) -> Any:
    """Run ``python script *args`` in a child process and return its last stdout line as JSON. On ``cpu``
    the child gets ``TRITON_INTERPRET=1`` (it must be set before triton is imported, hence the child);
    one BLAS thread: the interpreter issues thousands of small numpy matmuls, which multi-threaded BLAS
    slows down several-fold on a busy 2-core box."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update({"PYTHONPATH": os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]),
                "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"
    proc = subprocess.run([sys.executable, str(script), *args], check=False, capture_output=True, text=True,
                          env=env, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_on_gpu(script: Path, args: list[str] | None = None, timeout: int = 600) -> Any:
    """:func:`run_kernel_script` of ``script cuda *args`` on the GPU; the calling test is skipped where there is
    no CUDA GPU."""
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    return run_kernel_script(script, ["cuda", *(args or [])], "cuda", timeout)


def run_benchmark(script: Path | str, args: list[str], interpret: bool = False,
                  timeout: int = 600) -> subprocess.CompletedProcess[str]:
    """``python script *args`` from the repository root with no GPU visible and one BLAS thread; the Triton
    interpreter on when ``interpret`` (a benchmark script's CPU check; off: a script that compiles for sm_90 here
    or refuses the CPU), never raising on its exit status."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", CUDA_VISIBLE_DEVICES="")
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    return subprocess.run([sys.executable, str(script), *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def gdn_prefill_inputs(cu: Any, opts: dict[str, Any], gen: Any) -> list:
    """Random inputs of the GDN prefill definition for the packed sequences of ``cu`` (int64 cu_seqlens):
    ``[q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale]`` on the CPU (``opts``: ``no_state`` passes
    ``state=None``, ``scale`` a non-default scale)."""
    import torch

    bf = torch.bfloat16
    n, n_seq = int(cu[-1]), cu.numel() - 1
    q = torch.randn(n, 4, 128, generator=gen).to(bf)
    k = torch.nn.functional.normalize(torch.randn(n, 4, 128, generator=gen), dim=-1).to(bf)
    v = torch.randn(n, 8, 128, generator=gen).to(bf)
    state = None if opts.get("no_state") else torch.randn(n_seq, 8, 128, 128, generator=gen) * 0.1
    a_log = torch.randn(8, generator=gen) * 0.1
    a = torch.randn(n, 8, generator=gen).to(bf)
    dt_bias = torch.randn(8, generator=gen) * 0.1
    b = torch.randn(n, 8, generator=gen).to(bf)
    return [q, k, v, state, a_log, a, dt_bias, b, cu, float(opts.get("scale", 0.0))]


def gdn_prefill_cases(cases: list[tuple[str, dict[str, Any], list[int], dict[str, Any]]], seed: int,
                      device: str) -> Any:
    """For each ``(label, params, sequence lengths, options)`` case in turn, seeded ``seed + i``: the case, its
    :func:`gdn_prefill_inputs` on ``device`` and the GDN prefill reference's ``(output, new_state)`` on the CPU."""
    import torch

    reference = reference_run("gdn_prefill_qk4_v8_d128_k_last")
    for i, (label, params, lens, opts) in enumerate(cases):
        gen = torch.Generator().manual_seed(seed + i)
        inputs = gdn_prefill_inputs(torch.cumsum(torch.tensor([0, *lens], dtype=torch.int64), 0), opts, gen)
        ref_out, ref_state = reference(*inputs)
        yield label, params, lens, [x.to(device) if hasattr(x, "to") else x for x in inputs], ref_out, ref_state


def gdn_prefill_buffers(lens: list[int], device: str) -> tuple[Any, Any]:
    """The GDN prefill output and new-state buffers of a call on sequences ``lens``, NaN-filled: every element must
    be written."""
    import torch

    return (torch.full((sum(lens), 8, 128), float("nan"), dtype=torch.bfloat16, device=device),
            torch.full((len(lens), 8, 128, 128), float("nan"), dtype=torch.float32, device=device))


def gdn_prefill_call(entry: Any, inputs: list[Any], lens: list[int], device: str) -> tuple[Any, Any]:
    """A DPS GDN prefill ``entry`` called on ``inputs`` into :func:`gdn_prefill_buffers`; its output and new state on
    the CPU."""
    out, new_state = gdn_prefill_buffers(lens, device)
    entry(*inputs, out, new_state)
    return out.cpu(), new_state.cpu()


def gdn_prefill_equal_to_seed(seed_dir: Path, base_dir: Path, cases: list[tuple[str, dict[str, Any], list[int],
                              dict[str, Any]]], seed: int, device: str, bad_chunk_words: str) -> list[dict[str, Any]]:
    """A GDN prefill seed against the seed it rewrites (``base_dir``, same params) and the reference, case by case:
    within the reference's tolerances, and equal to the base bit for bit on the CPU (the interpreter; on a GPU the
    compiler may schedule or contract differently, so there the largest difference is reported); then ``C=16``
    (outside the space) must be refused by the seed's ``run`` with ``bad_chunk_words`` in the message."""
    import sys

    import torch

    results = []
    for label, params, lens, dev_inputs, ref_out, ref_state in gdn_prefill_cases(cases, seed, device):
        out, state = gdn_prefill_call(seed_entry(seed_dir, params), dev_inputs, lens, device)
        base = gdn_prefill_call(seed_entry(base_dir, params), dev_inputs, lens, device)
        checks: dict[str, Any] = {"out_vs_reference": fib_close(out, ref_out, 1e-2, 1e-2),
                                  "state_vs_reference": fib_close(state, ref_state, 5e-3, 5e-3)}
        diff = float((out.float() - base[0].float()).abs().max()) if sum(lens) else 0.0
        same_out, same_state = bool(torch.equal(out, base[0])), bool(torch.equal(state, base[1]))
        checks["state_equals_base"] = {"ok": same_state or device != "cpu", "equal": same_state}
        checks["equals_base"] = {"ok": (same_out and same_state) or device != "cpu", "equal": same_out and same_state,
                                 "out_max_abs": diff}
        results.append({"label": label, "ok": all(c["ok"] for c in checks.values()), **checks})
    entry = seed_entry(seed_dir, {})
    sys.modules[entry.__module__].PARAMS["C"] = 16  # outside the space (the seed refuses it there): run's own check
    try:
        entry(*dev_inputs, *gdn_prefill_buffers(lens, device))  # the last case's inputs
        results.append({"label": "bad_chunk", "ok": False, "error": "C=16 was accepted"})
    except ValueError as exc:
        results.append({"label": "bad_chunk", "ok": bad_chunk_words in str(exc), "error": str(exc)})
    return results


def reference_run(def_name: str) -> Any:
    """The ``run`` of a definition's PyTorch reference code."""
    from kernelopt.data import load_definition

    d = load_definition(REPO / "operators" / def_name / "definition.json")
    ns: dict[str, Any] = {}
    exec(compile(d.reference, f"{def_name}/reference", "exec"), ns)  # noqa: S102
    return ns["run"]


def import_entry(sol: Any) -> Any:
    """A solution's entry function, imported as the harness does: the sources as one package (a seed's entry file
    may import its sibling files relatively, e.g. ``from .base import ...``)."""
    import tempfile

    from kernelopt.harness.build_cache import import_entry_module, materialize

    pkg = materialize(sol, "py", Path(tempfile.mkdtemp(prefix="seedcheck_")))
    return getattr(import_entry_module(pkg, sol.spec.entry_file), sol.spec.entry_function)


def seed_entry(seed_dir: Path, params: dict[str, Any]) -> Any:
    """The seed's entry function at ``params`` over its defaults (keys outside its space dropped: one case's params
    can serve seeds of different spaces), imported as the harness does."""
    from kernelopt.generators.seeds import load_seed

    seed = load_seed(seed_dir)
    return import_entry(seed.instantiate({**seed.spec.defaults,
                                          **{k: v for k, v in params.items() if k in seed.spec.space}}))


def fib_close(out: Any, ref: Any, atol: float, rtol: float) -> dict[str, Any]:
    """FIB rule: an element fails iff abs > atol and rel > rtol; all must pass (and be finite)."""
    import torch

    x, y = out.float().cpu(), ref.float().cpu()
    if x.shape != y.shape or not torch.isfinite(x).all():
        return {"ok": False, "why": f"shape {tuple(x.shape)} vs {tuple(y.shape)} or non-finite"}
    err = (x - y).abs()
    bad = (err > atol) & (err / (y.abs() + 1e-8) > rtol)
    return {"ok": not bool(bad.any()), "max_abs": float(err.max()) if err.numel() else 0.0, "bad": int(bad.sum())}
