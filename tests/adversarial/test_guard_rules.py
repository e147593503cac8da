"""Unit tests of the guard rules: static policy scanning, policy files, roofline floor, protected
files, thread watch, harness-integrity restore."""

from __future__ import annotations

import json
import threading
import time

import pytest
from adversarial_helpers import corpus_solution

from kernelopt.data import DataError
from kernelopt.harness import protected_files, roofline_floor, static_policy
from kernelopt.harness.guards import IntegrityGuard, ThreadWatch
from kernelopt.operators import list_operators, load_operator, operator_path

GEMM = static_policy.load_policy(operator_path("gemm_n4096_k4096")).with_mode("library")


@pytest.mark.parametrize("code,hit", [
    ("import torch\ndef run(A, B):\n    return torch.matmul(A, B.T)\n", "use of torch.matmul"),
    ("from torch import matmul as mm\ndef run(A, B):\n    return mm(A, B.T)\n", "use of torch.matmul"),
    ("import torch as t\ndef run(A, B):\n    return t.mm(A, B.t())\n", "use of torch.mm"),
    ("import torch.nn.functional as F\ndef run(A, B):\n    return F.linear(A, B)\n",
     "use of torch.nn.functional.linear"),
    ("from torch.nn import functional\ndef run(A, B):\n    return functional.linear(A, B)\n",
     "use of torch.nn.functional.linear"),
    ("import torch\ndef run(A, B):\n    return torch.ops.aten.mm.default(A, B.t())\n", "use of torch.ops.aten.mm"),
    ("def run(A, B):\n    C = A\n    C @= B.T\n    return C\n", "operator '@'"),
    ("def run(A, B):\n    return A.matmul(B.T)\n", "method call .matmul()"),
    ("import deep_gemm\ndef run(A, B):\n    return deep_gemm.gemm(A, B)\n", "import of deep_gemm"),
    ("from flashinfer.gemm import mm_fp8\ndef run(A, B):\n    return mm_fp8(A, B)\n", "import from flashinfer.gemm"),
])
def test_gemm_policy_finds_library_calls_through_aliases(code, hit):
    found = static_policy.scan_python("main.py", code, GEMM)
    assert any(hit in v for v in found), found


def test_policy_ignores_strings_comments_and_triton_dot():
    code = ('"""Like torch.matmul but tiled; flashinfer.norm is the reference."""\n'
            "import triton.language as tl\n# torch.matmul(A, B) would be cheating\n"
            "def k(a, b):\n    return tl.dot(a, b)\ns = 'A @ B'\n")
    assert static_policy.scan_python("kernel.py", code, GEMM) == []


def test_cpp_sources_are_pattern_matched():
    sol = corpus_solution("cheats", "gemm_torch_matmul").model_copy(deep=True)
    sol.sources[0].path, sol.sources[0].content = "k.cu", "#include <cublas_v2.h>\nat::matmul(a, b);\n"
    found = static_policy.scan_solution(sol, GEMM)
    assert len(found) == 2 and found[0].startswith("k.cu:1:") and found[1].startswith("k.cu:2:")


def test_modes_and_trusted_authors():
    sol = corpus_solution("cheats", "subprocess_escape")
    folder = operator_path("rmsnorm_h4096")
    assert static_policy.check(sol, folder, "library") == []
    assert static_policy.check(sol, folder, "off") == []
    assert any("import of subprocess" in v for v in static_policy.check(sol, folder, "strict"))
    lib = corpus_solution("cheats", "gemm_torch_matmul")
    trusted = lib.model_copy(update={"author": "kernelopt-baselines"})
    assert static_policy.check(trusted, operator_path("gemm_n4096_k4096"), "strict") == []


def test_every_operator_policy_loads_and_passes_its_baselines_and_seeds():
    from kernelopt.data import Solution
    from kernelopt.generators import load_seeds

    for name in list_operators():
        folder = operator_path(name)
        policy = static_policy.load_policy(folder)
        assert policy.source.endswith("policy.json"), name
        if policy.roofline_inputs is not None:
            assert set(policy.roofline_inputs) <= set(load_operator(name).definition.inputs)
        for f in sorted((folder / "solutions" / "baselines").glob("*.json")):
            sol = Solution.model_validate(json.loads(f.read_text()))
            assert static_policy.check(sol, folder, "strict") == [], f
        seeds_dir = folder / "solutions" / "seeds"
        for seed in load_seeds(name) if any(seeds_dir.glob("*/seed.json")) else []:
            assert static_policy.check(seed.instantiate(None), folder, "library") == [], seed


@pytest.mark.parametrize("content,field", [
    ("{not json", "malformed JSON"),
    ('{"banned_calls": "torch.mm"}', "field 'banned_calls'"),
    ('{"banned_operators": ["*"]}', "field 'banned_operators'"),
    ('{"banned_cpp_patterns": ["("]}', "field 'banned_cpp_patterns'"),
    ('{"precision_probe": {"atol": -1}}', "field 'precision_probe'"),
    ('{"bannedcalls": []}', "unknown field(s) ['bannedcalls']"),
])
def test_malformed_policy_names_file_and_field(tmp_path, content, field):
    (tmp_path / "policy.json").write_text(content)
    with pytest.raises(DataError) as err:
        static_policy.load_policy(tmp_path)
    assert str(tmp_path / "policy.json") in str(err.value) and field in str(err.value)


def test_roofline_floor_rule_with_fabricated_numbers():
    defn = load_operator("gemm_n4096_k4096").definition
    axes = {"M": 256}
    expected = (256 * 4096 + 4096 * 4096 + 256 * 4096) * 2
    assert roofline_floor.floor_bytes(defn, axes) == expected == defn.tensor_bytes(axes)
    peak = roofline_floor.peak_bandwidth("NVIDIA H200")
    assert peak == 4.8e12 and roofline_floor.peak_bandwidth("Intel Xeon") is None
    floor = roofline_floor.roofline_floor_ms(defn, axes, peak)
    assert floor == pytest.approx(expected / 4.8e12 * 1e3)  # ~7.9 us
    assert "faster than the memory roofline" in roofline_floor.below_floor(0.002, floor)
    assert roofline_floor.below_floor(0.050, floor) is None
    moe = load_operator("moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048").definition
    pol = static_policy.load_policy(operator_path(moe.name))
    sparse = roofline_floor.floor_bytes(moe, {"seq_len": 1}, pol.roofline_inputs)
    assert sparse < moe.tensor_bytes({"seq_len": 1}) / 100  # weights of unrouted experts not counted
    with pytest.raises(ValueError, match="not a tensor"):
        roofline_floor.floor_bytes(defn, axes, ["nope"])


def test_protected_files_see_writes_additions_and_removals(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "__pycache__").mkdir()
    before = protected_files.fingerprint([tmp_path])
    (tmp_path / "__pycache__" / "a.pyc").write_bytes(b"\0")
    assert protected_files.changes(before, protected_files.fingerprint([tmp_path])) == []
    (tmp_path / "a.py").write_text("x = 2\n")  # same size, new content
    (tmp_path / "b.json").write_text("{}")
    assert [p.split("/")[-1] for p in protected_files.changes(before, protected_files.fingerprint([tmp_path]))] \
        == ["a.py", "b.json"]


def test_thread_watch_names_threads_left_running():
    watch = ThreadWatch()
    done = threading.Event()
    t = threading.Thread(target=done.wait, name="sneaky", daemon=True)
    t.start()
    assert watch.spawned() == ["sneaky"]
    done.set()
    t.join()
    assert watch.spawned() == []


def test_integrity_guard_restores_class_methods_modules_and_builtins():
    import builtins
    import sys

    import torch

    from kernelopt.harness import timing

    g = IntegrityGuard()
    real_zero, real_sorted, real_sync = torch.Tensor.zero_, builtins.sorted, torch.cuda.synchronize
    torch.Tensor.zero_ = lambda self: self
    builtins.sorted = lambda *a, **k: []
    torch.cuda.synchronize = lambda *a, **k: None
    sys.modules["kernelopt.harness.timing"] = type(sys)("fake")
    try:
        bad = g.tampered()
        assert bad == ["builtins.sorted"]  # builtins first: the rest of the scan relies on them
        restored = g.restore()
        assert {"builtins.sorted", "torch.Tensor.zero_", "torch.cuda.synchronize",
                "sys.modules[kernelopt.harness.timing]"} <= set(restored)
        assert g.tampered() == []
        assert torch.Tensor.zero_ is real_zero and "zero_" not in torch.Tensor.__dict__
        assert builtins.sorted is real_sorted and torch.cuda.synchronize is real_sync
        assert sys.modules["kernelopt.harness.timing"] is timing
    finally:
        builtins.sorted, torch.cuda.synchronize = real_sorted, real_sync
        sys.modules["kernelopt.harness.timing"] = timing
        if "zero_" in torch.Tensor.__dict__:
            del torch.Tensor.zero_
    assert time.perf_counter() > 0


def test_thread_watch_busy_sees_cpu_burnt_by_an_earlier_thread_not_an_idle_one():
    import queue

    jobs: queue.Queue = queue.Queue()
    done: queue.Queue = queue.Queue()

    def worker() -> None:
        while (n := jobs.get()) is not None:
            sum(i * i for i in range(n))
            done.put(n)

    t = threading.Thread(target=worker, name="pool", daemon=True)
    t.start()
    jobs.put(1)  # a round trip first: the thread's start-up CPU is spent before the watch (on a loaded CI
    done.get(timeout=30)  # machine it once exceeded the threshold, 2026-12-04), then it blocks on the queue
    time.sleep(0.05)
    idle = ThreadWatch({t.ident})
    time.sleep(0.05)
    assert idle.busy() == []  # blocked on the queue: no CPU
    working = ThreadWatch({t.ident})
    jobs.put(200_000)
    deadline = time.monotonic() + 5
    while not working.busy() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert working.busy() == ["pool"]
    jobs.put(None)
    t.join()
