"""benchmarks/paper_comparison.py: the retained kernels against the paper's Table 3, the speedup vs the reference split
into the kernels' latency ratio and the references' - checked on the committed H200 contest traces and on a folder
built here whose numbers are known."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from operator_helpers import load_script

from kernelopt.data import load_traces
from kernelopt.data.loader import dump_jsonl

REPO = Path(__file__).resolve().parents[1]
TRACES = REPO / "benchmarks" / "results" / "traces_contest_h200"
DECODE = "gdn_decode_qk4_v8_d128_k_last"


def _module():  # type: ignore[no-untyped-def]
    return load_script("paper_comparison", REPO / "benchmarks" / "paper_comparison.py")


def test_the_committed_traces_give_the_retained_summaries_speedups() -> None:
    m = _module()
    rows = {r["definition"]: r for r in (m.compare(d, TRACES) for d in m.PAPER)}
    # the retained summaries' "speedup vs reference" (ratio of means over the workloads both passed)
    assert rows[DECODE]["ours_speedup"] == pytest.approx(5658.55, rel=1e-5)
    assert rows["gdn_prefill_qk4_v8_d128_k_last"]["ours_speedup"] == pytest.approx(9369.58, rel=1e-5)
    for r in rows.values():
        # x ref = reference mean / kernel mean on each side, so ours / paper's splits exactly into the two ratios
        assert r["ours_speedup"] / r["paper_speedup"] == pytest.approx(r["reference_ratio"] / r["kernel_ratio"])
        assert r["paper_reference_ms"] == pytest.approx(r["paper_ms"] * r["paper_speedup"])
        assert r["hardware"] == "NVIDIA H200"


def test_means_are_over_the_workloads_both_passed_and_a_missing_folder_is_refused(tmp_path: Path, capsys) -> None:
    m = _module()
    src = TRACES / DECODE
    dst = tmp_path / DECODE
    dst.mkdir()
    kernel = load_traces(src / "retained.jsonl")
    reference = load_traces(src / "reference.jsonl")
    # two workloads: the kernel at 1 and 3 us, the reference at 10 and 50 ms; a third only the kernel passed
    a, b, c = kernel[0].workload.uuid, kernel[1].workload.uuid, kernel[2].workload.uuid
    ks = [t.model_copy(deep=True) for t in kernel[:3]]
    for t, ms in zip(ks, (0.001, 0.003, 0.5)):
        t.evaluation.performance.latency_ms = ms
    rs = [t.model_copy(deep=True) for t in reference if t.workload.uuid in (a, b)]
    for t in rs:
        t.evaluation.performance.latency_ms = 10.0 if t.workload.uuid == a else 50.0
    dump_jsonl(ks, dst / "retained.jsonl")
    dump_jsonl(rs, dst / "reference.jsonl")
    r = m.compare(DECODE, tmp_path)
    assert r["workloads"] == 2 and c not in (a, b)
    assert r["ours_ms"] == pytest.approx(0.002) and r["ours_reference_ms"] == pytest.approx(30.0)
    assert r["ours_speedup"] == pytest.approx(15000.0)
    assert r["kernel_ratio"] == pytest.approx(0.002 / 0.006201)

    shutil.rmtree(dst)
    with pytest.raises(SystemExit) as exc:
        m.main(["--traces", str(tmp_path / "nope")])
    assert exc.value.code == 2 and "no such trace folder" in capsys.readouterr().err


def test_the_committed_results_file_is_what_the_script_writes_now() -> None:
    m = _module()
    committed = json.loads((REPO / "benchmarks" / "results" / "paper_comparison_h200.json").read_text())
    fresh = [m.compare(d, TRACES) for d in m.PAPER]
    assert [r["definition"] for r in committed["rows"]] == [r["definition"] for r in fresh]
    assert committed["rows"] == fresh, "rerun python benchmarks/paper_comparison.py"
