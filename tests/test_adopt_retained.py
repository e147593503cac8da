"""benchmarks/adopt_retained.py: a new retained kernel from a finished contest sweep (checks first, then the trace
swap, the superseded note and the resume line; the rebuild commands are the recorded ones with the new path).

Inputs are the committed GDN prefill traces: the retained dispatch's (``traces_contest_h200``) and the full sweep
of ``dispatch/recurrent_wy3v_bv64_401.json`` (calls BD-BE, ``profiles_v/contest_scratch_bd``), copied to a
temporary folder before anything is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks.adopt_retained import main, rebuild_commands, with_solution

REPO = Path(__file__).resolve().parents[1]
PRE = "gdn_prefill_qk4_v8_d128_k_last"
TRACES = REPO / "benchmarks" / "results" / "traces_contest_h200"
SCRATCH = REPO / "benchmarks" / "results" / "profiles_v" / "contest_scratch_bd"
NEW = f"operators/{PRE}/solutions/dispatch/recurrent_wy3v_bv64_401.json"
OLD = f"operators/{PRE}/solutions/dispatch/recurrent_wy3f_bv64_401.json"


@pytest.fixture()
def trees(tmp_path: Path) -> dict[str, Path]:
    """Copies of the retained traces, the new sweep and contest_resume.sh."""
    traces, scratch = tmp_path / "traces", tmp_path / "scratch"
    (traces / PRE).mkdir(parents=True)
    for f in ("retained.jsonl", "retained.solution.json"):
        shutil.copyfile(TRACES / PRE / f, traces / PRE / f)
    shutil.copytree(SCRATCH / PRE, scratch / PRE)
    resume = tmp_path / "contest_resume.sh"
    shutil.copyfile(REPO / "scripts" / "contest_resume.sh", resume)
    return {"traces": traces, "scratch": scratch, "resume": resume}


def _args(t: dict[str, Path], *extra: str, solution: str = NEW) -> list[str]:
    return ["--operator", PRE, "--from", str(t["scratch"]), "--solution", str(REPO / solution), "--tag", "old_one",
            "--why", "The wy3v dispatch was faster (test).", "--traces", str(t["traces"]),
            "--resume-script", str(t["resume"]), *extra]


def test_dry_run_prints_the_plan_and_writes_nothing(trees, capsys):
    before = {p: p.read_bytes() for p in trees["traces"].rglob("*") if p.is_file()}
    assert main(_args(trees, "--dry-run")) == 0
    out = capsys.readouterr().out
    assert "100 workloads, all PASSED" in out and "superseded/retained_old_one.jsonl" in out
    assert "run: python benchmarks/retained_report.py --operator " + PRE in out
    # where the change comes from: per band, the old and the new traces' means over the workloads both passed
    bands = [line for line in out.splitlines() if line.startswith("per band, old -> new: ")]
    assert [b.split(": ")[1].split(" (")[0] for b in bands] == [
        "total_seq_len 6-49", "total_seq_len 61-401", "total_seq_len 461-2284", "total_seq_len 2857-8192"]
    assert "total_seq_len 6-49 (27): " in bands[0] and " ms, new / old " in bands[0]
    assert {p: p.read_bytes() for p in trees["traces"].rglob("*") if p.is_file()} == before


def test_the_swap_moves_the_old_traces_notes_them_and_resumes_the_new_kernel(trees):
    old_bytes = (trees["traces"] / PRE / "retained.jsonl").read_bytes()
    assert main(_args(trees, "--no-rebuild")) == 0
    here = trees["traces"] / PRE
    assert (here / "superseded" / "retained_old_one.jsonl").read_bytes() == old_bytes
    assert (here / "retained.jsonl").read_bytes() == (trees["scratch"] / PRE / "retained.jsonl").read_bytes()
    assert json.loads((here / "retained.solution.json").read_text())["name"].startswith("dispatch_total_seq_len")
    note = (here / "superseded" / "README.md").read_text()
    assert "`retained_old_one.jsonl`" in note and "100 PASSED traces" in note and "faster (test)" in note
    assert "Per band, this kernel -> its successor: total_seq_len 6-49 (27): " in note
    script = trees["resume"].read_text()
    assert "recurrent_wy3v_bv64_401.json;;" in script and "recurrent_wy3f_bv64_401.json" not in script
    # the same tag again: refused before anything is written
    assert main(_args(trees, "--no-rebuild")) == 2


def test_refusals_name_the_reason(trees, capsys):
    # the traces measured another kernel than --solution
    assert main(_args(trees, "--dry-run", solution=OLD)) == 2
    assert "the traces measured" in capsys.readouterr().err
    # a sweep with a workload missing, then one with a failed workload
    f = trees["scratch"] / PRE / "retained.jsonl"
    lines = f.read_text().splitlines(keepends=True)
    f.write_text("".join(lines[:-1]))
    assert main(_args(trees, "--dry-run")) == 2
    assert "1 of 100 workloads missing" in capsys.readouterr().err
    bad = json.loads(lines[-1])
    bad["evaluation"] = {k: v for k, v in bad["evaluation"].items() if k not in ("correctness", "performance")}
    bad["evaluation"]["status"] = "RUNTIME_ERROR"
    f.write_text("".join(lines[:-1]) + json.dumps(bad) + "\n")
    assert main(_args(trees, "--dry-run")) == 2
    assert "not PASSED: " + bad["workload"]["uuid"][:8] + " RUNTIME_ERROR" in capsys.readouterr().err
    assert main(_args(trees, "--dry-run") + ["--tag", "bad/tag"]) == 2
    capsys.readouterr()
    # the kernel in place swept again (every band 1.000), a kernel outside the repository, a missing resume script
    shutil.copyfile(trees["scratch"] / PRE / "retained.solution.json", trees["traces"] / PRE / "retained.solution.json")
    f.write_text("".join(lines))
    assert main(_args(trees, "--dry-run")) == 2
    assert "the sweep measured the kernel already retained" in capsys.readouterr().err
    assert main(_args(trees, "--dry-run", "--same-kernel")) == 0
    capsys.readouterr()
    outside = trees["resume"].parent / "new.json"
    shutil.copyfile(REPO / NEW, outside)
    assert main(_args(trees, "--dry-run", "--same-kernel", solution=str(outside))) == 2
    assert "outside the repository" in capsys.readouterr().err
    assert main(_args(trees, "--dry-run", "--same-kernel") + ["--resume-script", str(outside) + ".missing"]) == 2
    assert "--resume-script: [Errno 2] No such file or directory" in capsys.readouterr().err


def test_a_sweep_on_another_card_is_refused_unless_asked_for(trees, capsys):
    """An H200 kernel's traces are not replaced by a sweep an H100 measured (the device tool may answer an H200
    call with one): every ratio of the table would compare cards."""
    f = trees["scratch"] / PRE / "retained.jsonl"
    lines = [json.loads(line) for line in f.read_text().splitlines()]
    for t in lines:
        t["evaluation"]["environment"]["hardware"] = "NVIDIA H100 80GB HBM3"
    f.write_text("".join(json.dumps(t) + "\n" for t in lines))
    assert main(_args(trees, "--dry-run")) == 2
    err = capsys.readouterr().err
    assert "measured on NVIDIA H100 80GB HBM3, but retained.jsonl beside it on NVIDIA H200" in err, err
    assert main(_args(trees, "--dry-run", "--other-hardware")) == 0


def test_rebuild_commands_are_the_recorded_ones_with_the_new_path():
    cmds = rebuild_commands(PRE, TRACES, NEW)
    contest = [c for c in cmds if "contest.py" in c]
    assert contest and all(f"{PRE}={NEW}" in c and OLD not in c for c in contest)
    assert any("--name all_h200" in c for c in contest) and any("--name gdn_prefill_h200_resumed" in c
                                                                for c in contest)
    assert any("headroom.py" in c and "--target 21078" in c for c in cmds)
    assert "python benchmarks/paper_comparison.py" in cmds  # the paper's table reads every retained kernel's traces
    assert "python benchmarks/paper_comparison.py" not in rebuild_commands(PRE, REPO / "elsewhere", NEW)
    assert cmds[-1].endswith(f"--operator {PRE} --traces benchmarks/results/traces_contest_h200 --replace")
    assert with_solution("python x.py --operators a --solution b=1 a=2", "a", "3") == \
        "python x.py --operators a --solution b=1 a=3"
    assert with_solution("python x.py --operators a", "a", "3") is None


DEC = "gdn_decode_qk4_v8_d128_k_last"
DEC_SCRATCH = REPO / "benchmarks" / "results" / "profiles_v" / "contest_scratch_dl"
DEC_NEW = f"operators/{DEC}/solutions/dispatch/picked_dl.json"


def test_with_baseline_replaces_that_baseline_by_the_same_call_sweep(tmp_path, capsys):
    traces, resume = tmp_path / "traces", tmp_path / "contest_resume.sh"
    shutil.copytree(TRACES / DEC, traces / DEC, ignore=shutil.ignore_patterns("superseded"))
    shutil.copyfile(REPO / "scripts" / "contest_resume.sh", resume)
    args = ["--operator", DEC, "--from", str(DEC_SCRATCH), "--solution", str(REPO / DEC_NEW), "--tag", "t1",
            "--why", "test", "--traces", str(traces), "--resume-script", str(resume), "--no-rebuild"]
    # a label the sweep does not hold, and the retained label itself, are refused before anything is written
    assert main([*args, "--with-baseline", "torch_compile"]) == 2
    assert "torch_compile.jsonl: not found" in capsys.readouterr().err
    assert main([*args, "--with-baseline", "retained"]) == 2
    assert "a baseline's label" in capsys.readouterr().err
    old_fla = (traces / DEC / "fla.jsonl").read_bytes()
    assert main([*args, "--with-baseline", "fla"]) == 0
    here = traces / DEC
    assert (here / "superseded" / "fla_t1.jsonl").read_bytes() == old_fla
    assert (here / "fla.jsonl").read_bytes() == (DEC_SCRATCH / DEC / "fla.jsonl").read_bytes()
    assert (here / "retained.jsonl").read_bytes() == (DEC_SCRATCH / DEC / "retained.jsonl").read_bytes()
    assert (here / "torch_compile.jsonl").read_bytes() == (TRACES / DEC / "torch_compile.jsonl").read_bytes()
    note = (here / "superseded" / "README.md").read_text()
    assert "`fla_t1.jsonl`: fla's traces (the same Solution;" in note and "contest_scratch_dl" in note
    assert "retained-vs-fla ratio stays a same-call one" in note
