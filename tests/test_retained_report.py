"""benchmarks/retained_report.py: an operator's retained/ folder written from the committed contest traces
(CPU only, no GPU, no network)."""

from __future__ import annotations

import json
import shutil
import types
from pathlib import Path

import pytest

from kernelopt.operators import load_operator
from operator_helpers import load_script

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "retained_report.py"
COMMITTED = REPO / "benchmarks" / "results" / "traces_contest_h200"
INDEXER = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
GDN = "gdn_decode_qk4_v8_d128_k_last"
FL = COMMITTED / INDEXER / "superseded"  # the indexer's retained traces of 2026-12-01 (dsa_indexer_fl), kept as is
TRACES = COMMITTED  # set to the frozen copy below


@pytest.fixture(scope="module", autouse=True)
def _frozen_traces(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The tests read a copy of the committed traces whose indexer `retained` label holds the traces it had from
    2026-12-01 to 2026-12-02 (`dsa_indexer_fl`, since kept under superseded/ and never rewritten), and GDN decode's
    `retained` / `fla` labels those of call AE: the figures checked below stay true whatever kernel is adopted later."""
    global TRACES
    root = tmp_path_factory.mktemp("traces")
    for op in (INDEXER, GDN):
        shutil.copytree(COMMITTED / op, root / op, ignore=shutil.ignore_patterns("superseded"))
    shutil.copy(FL / "retained_fl_2026-12-01.jsonl", root / INDEXER / "retained.jsonl")
    shutil.copy(FL / "retained_fl_2026-12-01.solution.json", root / INDEXER / "retained.solution.json")
    # and GDN decode's `retained` / `fla` labels the traces of call AE (2026-12-01 to 2026-12-03, kept under superseded/)
    old = COMMITTED / GDN / "superseded"
    for label, name in (("retained", "retained_bv8_w8_w1_8_2026-12-03"), ("fla", "fla_2026-12-01_ae")):
        for ext in (".jsonl", ".solution.json"):
            shutil.copy(old / f"{name}{ext}", root / GDN / f"{label}{ext}")
    TRACES = root


@pytest.fixture(scope="module")
def rr() -> types.ModuleType:
    return load_script("kopt_retained_report", SCRIPT)


def _run(rr: types.ModuleType, out: Path, *extra: str, op: str = INDEXER, traces: Path | None = None) -> int:
    return rr.main(["--operator", op, "--traces", str(traces or TRACES), "--out", str(out), *extra])


def _lines(path: Path) -> list[dict]:
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]


def test_indexer_folder_from_the_committed_traces(rr: types.ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "retained"
    assert _run(rr, out) == 0
    record = json.loads((TRACES / INDEXER / "retained.solution.json").read_text())
    assert json.loads((out / "solution.json").read_text()) == record
    traces = _lines(out / "traces.jsonl")
    assert len(traces) == 128
    assert all(t["evaluation"]["status"] == "PASSED" and t["solution"] == record["name"] for t in traces)
    assert [t["workload"]["uuid"] for t in traces] == [w.uuid for w in load_operator(INDEXER).workloads]
    md = (out / "summary.md").read_text()
    assert md.startswith(f"# {INDEXER} — retained kernel (status: provisional, H200)\n")
    assert md.count(rr.BEGIN) == 1 and md.count(rr.END) == 1 and md.index(rr.BEGIN) < md.index(rr.END)
    assert "speedup vs reference: 263.02x (mean-latency ratio over the 128 workloads both passed)" in md
    assert "speedup vs torch_compile: 231.99x" in md
    assert "Workloads PASSED: 128 / 128" in md and "not a full sweep" not in md
    assert "mean 0.0243 ms · median 0.0019 ms · p95 0.0659 ms" in md
    assert f"`{record['name']}`" in md and "timer cupti" in md and "NVIDIA H200" in md
    assert "python benchmarks/retained_report.py --operator " + INDEXER in md
    for band in ("max_num_pages 1-32", "max_num_pages 33-36", "max_num_pages 38-45", "max_num_pages 82-91"):
        assert md.count(f"| {band} |") == 2  # the latency and the roofline-fraction rows
    assert "| max_num_pages 82-91 | memory | 0.03 (145 GB/s, n=20) |" in md
    assert md.rstrip().endswith("are met and which are not, and what comes next._")  # the History stub


def test_rerun_keeps_hand_written_text_and_refreshes_the_block(rr: types.ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "retained"
    assert _run(rr, out) == 0
    summary = out / "summary.md"
    text = summary.read_text().replace("## History\n", "## History\n\nHand-written: tried BLOCKS=4.\n")
    text = text.replace("- Status: provisional", "- Status: provisional\n- STALE LINE")
    summary.write_text("Preamble kept.\n" + text)
    (out / "traces.jsonl").write_text("")
    assert _run(rr, out) == 0
    md = summary.read_text()
    assert md.startswith("Preamble kept.\n# ")
    assert "Hand-written: tried BLOCKS=4." in md and "STALE LINE" not in md
    assert md.count(rr.BEGIN) == 1 and "263.02x" in md
    assert len(_lines(out / "traces.jsonl")) == 128
    assert _run(rr, out, "--status", "final") == 0  # the title's status follows the block's
    md = summary.read_text()
    assert f"# {INDEXER} — retained kernel (status: final, H200)\n" in md and "- Status: final" in md
    assert "(status: provisional" not in md and "Hand-written: tried BLOCKS=4." in md


def test_block_goes_after_the_first_heading_of_a_file_without_markers(rr: types.ModuleType,
                                                                       tmp_path: Path) -> None:
    out = tmp_path / "retained"
    out.mkdir()
    (out / "summary.md").write_text("# My title\n\nIntro paragraph.\n\n## Notes\n\nkeep me\n")
    assert _run(rr, out) == 0
    md = (out / "summary.md").read_text()
    assert md.startswith("# My title\n\n" + rr.BEGIN)
    assert md.endswith(rr.END + "\n\nIntro paragraph.\n\n## Notes\n\nkeep me\n")


def test_a_different_solution_is_refused_unless_replace(rr: types.ModuleType, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "retained"
    out.mkdir()
    other = (TRACES / INDEXER / "reference.solution.json").read_text()
    (out / "solution.json").write_text(other)
    assert _run(rr, out) == 2
    err = capsys.readouterr().err
    assert json.loads(other)["name"] in err and "dsa_indexer_fl_d92352cf" in err and "--replace" in err
    assert sorted(p.name for p in out.iterdir()) == ["solution.json"]  # nothing written
    assert (out / "solution.json").read_text() == other
    assert _run(rr, out, "--replace") == 0
    assert (out / "solution.json").read_text() == (TRACES / INDEXER / "retained.solution.json").read_text()


def test_the_same_kernel_spelt_differently_is_kept(rr: types.ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "retained"
    out.mkdir()
    record = json.loads((TRACES / INDEXER / "retained.solution.json").read_text())
    record["spec"].pop("binding", None)  # absent instead of an explicit null: the same Solution
    kept = json.dumps(record)
    (out / "solution.json").write_text(kept)
    assert _run(rr, out) == 0
    assert (out / "solution.json").read_text() == kept


def test_the_same_kernel_with_other_metadata_is_rewritten_without_replace(rr: types.ModuleType,
                                                                          tmp_path: Path) -> None:
    out = tmp_path / "retained"
    out.mkdir()
    record = json.loads((TRACES / INDEXER / "retained.solution.json").read_text())
    record["description"] = "an older description"
    (out / "solution.json").write_text(json.dumps(record))
    assert _run(rr, out) == 0
    assert (out / "solution.json").read_text() == (TRACES / INDEXER / "retained.solution.json").read_text()


def test_bad_input_exits_2(rr: types.ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(rr, tmp_path / "a", op="no_such_operator") == 2
    assert "unknown operator 'no_such_operator'" in capsys.readouterr().err
    assert _run(rr, tmp_path / "b", "--label", "nope") == 2
    assert "no traces of label 'nope'" in capsys.readouterr().err
    folder = tmp_path / "tr" / INDEXER
    folder.mkdir(parents=True)
    for name in ("retained.jsonl", "reference.jsonl", "reference.solution.json"):
        shutil.copy(TRACES / INDEXER / name, folder / name)
    assert _run(rr, tmp_path / "c", traces=tmp_path / "tr") == 2
    assert "retained.solution.json: no solution record" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()
    record = TRACES / INDEXER / "retained.solution.json"
    assert _run(rr, tmp_path / "c", "--solution", str(record), traces=tmp_path / "tr") == 0
    assert "speedup vs reference: 263.02x" in (tmp_path / "c" / "summary.md").read_text()
    wrong = TRACES / INDEXER / "torch_compile.solution.json"
    assert _run(rr, tmp_path / "d", "--solution", str(wrong), traces=tmp_path / "tr") == 2
    assert "holds traces of ['dsa_indexer_fl_d92352cf']" in capsys.readouterr().err
    first = (folder / "retained.jsonl").read_text().splitlines(keepends=True)[0]
    with (folder / "retained.jsonl").open("a") as fh:
        fh.write(first)
    assert _run(rr, tmp_path / "e", "--solution", str(record), traces=tmp_path / "tr") == 2
    assert "traced more than once" in capsys.readouterr().err


def test_a_partial_sweep_is_flagged_and_cannot_be_final(rr: types.ModuleType, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "tr" / INDEXER
    shutil.copytree(TRACES / INDEXER, folder, ignore=shutil.ignore_patterns("superseded"))
    lines = (folder / "retained.jsonl").read_text().splitlines(keepends=True)
    (folder / "retained.jsonl").write_text("".join(lines[:100]))
    assert _run(rr, tmp_path / "final", "--status", "final", traces=tmp_path / "tr") == 2
    assert "--status final needs every workload PASSED" in capsys.readouterr().err
    assert _run(rr, tmp_path / "out", traces=tmp_path / "tr") == 0
    md = (tmp_path / "out" / "summary.md").read_text()
    assert "not a full sweep: 100 of 128" in md and "Workloads PASSED: 100 / 128 (100 evaluated)" in md
    assert "speedup vs reference" in md and "over the 100 workloads both passed" in md


def test_gdn_decode_with_an_incomplete_baseline(rr: types.ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "retained"
    assert _run(rr, out, op=GDN) == 0
    assert len(_lines(out / "traces.jsonl")) == 54
    md = (out / "summary.md").read_text()
    assert "Workloads PASSED: 54 / 54" in md and "not a full sweep" not in md
    assert "speedup vs torch_compile:" in md and "over the 46 workloads both passed" in md
    assert "speedup vs fla: 1.042x (mean-latency ratio over the 54 workloads both passed)" in md
    assert "TIMEOUT" in md and "| batch_size 64 | memory |" in md


def test_a_partial_sweep_does_not_replace_a_fuller_one_nor_a_cut_one_any(rr: types.ModuleType, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A sweep of 5 workloads replaced the retained folder's 54 (exit 0); a sweep cut mid-write was written too."""
    out = tmp_path / "retained"
    assert _run(rr, out, op=GDN) == 0
    whole = (out / "traces.jsonl").read_text()
    folder = tmp_path / "tr" / GDN
    shutil.copytree(TRACES / GDN, folder)
    lines = (folder / "retained.jsonl").read_text().splitlines(keepends=True)
    (folder / "retained.jsonl").write_text("".join(lines[:5]))
    assert _run(rr, out, op=GDN, traces=tmp_path / "tr") == 2
    assert "the new traces cover 5 of the 54 workloads" in capsys.readouterr().err
    assert (out / "traces.jsonl").read_text() == whole
    (folder / "retained.jsonl").write_text("".join(lines[:5]) + lines[5][:61])
    assert _run(rr, tmp_path / "fresh", op=GDN, traces=tmp_path / "tr") == 2
    assert "its last record was cut mid-write" in capsys.readouterr().err
    (folder / "retained.jsonl").write_text("".join(lines[:5]))
    assert _run(rr, out, "--replace", op=GDN, traces=tmp_path / "tr") == 0
    assert len(_lines(out / "traces.jsonl")) == 5


def test_output_paths_are_checked_before_anything_is_written(rr: types.ModuleType, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert _run(rr, afile, op=GDN) == 2
    assert "is a file; give a folder" in capsys.readouterr().err
    out = tmp_path / "retained"
    (out / "summary.md").mkdir(parents=True)  # solution.json and traces.jsonl were written before it failed
    assert _run(rr, out, op=GDN) == 2
    assert "summary.md: is a folder" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["summary.md"]
