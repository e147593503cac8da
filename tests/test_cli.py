"""The `kernelopt` console script end to end (real Hydra runtime, real subprocesses, CPU executor)."""

from __future__ import annotations

import json
import os
import re
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kernelopt.cli.main import CONF_DIR, main
from kernelopt.cli.overrides import override_problem

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures" / "solutions"
TINY = ["harness=quick", "harness.warmup=0", "harness.iterations=1", "harness.trials=1", "executor=cpu"]


def _cli(args: list[str], cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONUNBUFFERED": "1"}
    return subprocess.run([sys.executable, "-m", "kernelopt.cli.main", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def test_help_lists_commands(capsys) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for cmd in ("optimize", "evaluate", "operators", "promote", "export", "report"):
        assert cmd in out
    assert main(["frobnicate"]) == 2


def test_operators_lists_the_library_with_counts(capsys) -> None:
    assert main(["operators"]) == 0
    out = capsys.readouterr().out
    expected = {"moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048": 19,
                "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64": 128,
                "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64": 23,
                "gdn_decode_qk4_v8_d128_k_last": 54, "gdn_prefill_qk4_v8_d128_k_last": 100,
                "rmsnorm_h4096": 14, "fused_add_rmsnorm_h4096": 14, "gemm_n4096_k4096": 43}
    lines = out.splitlines()
    for name, count in expected.items():  # each name whole on the row with its count
        row = next(line for line in lines if f" {name} " in line)
        assert f" {count} " in row, row


def test_operators_on_a_narrow_console_lists_blocks_with_whole_names(capsys, monkeypatch) -> None:
    from rich.console import Console

    from kernelopt.cli import admin

    monkeypatch.setattr(admin, "make_console", lambda stderr=False: Console(width=80))
    assert main(["operators"]) == 0
    lines = capsys.readouterr().out.splitlines()
    i = lines.index("moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048")
    assert lines[i + 1].startswith("  op_type: moe; workloads: 19;")


def test_evaluate_writes_traces_and_sets_exit_code(tmp_path: Path) -> None:
    out = tmp_path / "ok.jsonl"
    ok = _cli(["evaluate", "operator=rmsnorm_h4096", f"solution={FIX / 'rmsnorm_triton_ok'}", "limit=2",
               f"output={out}", *TINY], tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    traces = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(traces) == 2 and all(t["evaluation"]["status"] == "PASSED" for t in traces)
    assert traces[0]["evaluation"]["performance"]["latency_ms"] > 0
    assert "PASSED" in ok.stdout and "timer=cpu_wall" in ok.stdout

    bad = _cli(["evaluate", "operator=rmsnorm_h4096", f"solution={FIX / 'rmsnorm_triton_no_weight'}", "limit=1",
                f"output={tmp_path / 'bad.jsonl'}", *TINY], tmp_path)
    assert bad.returncode == 1
    assert "INCORRECT_NUMERICAL" in bad.stdout
    raises = _cli(["evaluate", "operator=rmsnorm_h4096", f"solution={FIX / 'rmsnorm_py_raises'}", "limit=2",
                   f"output={tmp_path / 'raises.jsonl'}", *TINY], tmp_path)
    assert raises.returncode == 1
    # why it failed is on screen, once per distinct reason (not only in the trace file)
    assert raises.stdout.count("RUNTIME_ERROR: IndexError: kernel index out of range (deliberate)") == 1, raises.stdout
    assert "timer=None" not in raises.stdout and "timer=?" not in raises.stdout


def test_evaluate_appends_each_trace_as_it_is_measured_and_resume_goes_on_from_a_cut_run(tmp_path: Path) -> None:
    import signal
    import time

    out = tmp_path / "t.jsonl"
    args = ["evaluate", "operator=rmsnorm_h4096", f"solution={FIX / 'rmsnorm_triton_ok'}", f"output={out}", *TINY]
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "kernelopt.cli.main", *args, "limit=4"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while not (out.is_file() and out.read_text().endswith("\n")) and time.monotonic() < deadline:
        time.sleep(0.02)
    running = proc.poll() is None
    proc.send_signal(signal.SIGKILL)  # cut short, as the device tool's time limit does
    proc.wait(timeout=60)
    assert running, "the first trace was written only when the whole run had ended"
    kept = [json.loads(line) for line in out.read_text().splitlines() if line.strip().endswith("}")]
    assert 1 <= len(kept) < 4 and all(t["evaluation"]["status"] == "PASSED" for t in kept)

    r = _cli([*args, "limit=4", "resume=true"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"resume: {len(kept)} of 4 workload(s) already in" in r.stdout.replace("\n", " ")
    traces = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(traces) == 4 and len({t["workload"]["uuid"] for t in traces}) == 4
    r = _cli([*args, "limit=4", "resume=true"], tmp_path)
    assert r.returncode == 0 and len(out.read_text().splitlines()) == 4, r.stdout + r.stderr
    # without resume, traces already there are appended again, and the run says so (the default file collected
    # duplicates silently)
    r = _cli([*args, "limit=1"], tmp_path)
    assert r.returncode == 0 and len(out.read_text().splitlines()) == 5, r.stdout + r.stderr
    assert "note: 1 of these workload(s) already have traces of " in " ".join(r.stdout.split()), r.stdout


def test_evaluate_resume_refuses_a_file_measured_on_another_card(tmp_path: Path) -> None:
    """Resuming a file of another machine's figures (a GPU call answered by another card) would mix two cards in
    one file: refused on the first new result, nothing appended."""
    out = tmp_path / "t.jsonl"
    args = ["evaluate", "operator=rmsnorm_h4096", f"solution={FIX / 'rmsnorm_triton_ok'}", f"output={out}", *TINY]
    assert _cli([*args, "limit=1"], tmp_path).returncode == 0
    trace = json.loads(out.read_text())
    trace["evaluation"]["environment"]["hardware"] = "NVIDIA H100 80GB HBM3"
    out.write_text(json.dumps(trace) + "\n")
    before = out.read_text()
    r = _cli([*args, "limit=2", "resume=true"], tmp_path)
    assert r.returncode != 0
    assert "measured on NVIDIA H100 80GB HBM3; this machine evaluates on" in " ".join(r.stderr.split()), r.stderr
    assert out.read_text() == before


def test_evaluate_drops_a_cut_last_record_before_appending_and_refuses_a_foreign_file(tmp_path: Path, capsys) -> None:
    """A run killed mid-write leaves a record without its newline: the next run glued its first record onto it
    (both lost, and `resume=true` then failed on the file). A file of another operator's traces, or no trace file
    at all, was appended to."""
    out = tmp_path / "t.jsonl"
    args = ["evaluate", "operator=rmsnorm_h4096", f"solution={FIX / 'rmsnorm_triton_ok'}", f"output={out}", *TINY]
    assert _cli([*args, "limit=1"], tmp_path).returncode == 0
    whole = out.read_text()
    out.write_text(whole + whole[:300])  # the second record cut mid-write
    r = _cli([*args, "limit=2", "resume=true"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "dropped an unfinished last record (300 bytes, cut mid-write)" in " ".join(r.stdout.split())
    traces = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(traces) == 2 and len({t["workload"]["uuid"] for t in traces}) == 2

    foreign = tmp_path / "decode.jsonl"
    foreign.write_text((ROOT / "operators" / "gdn_decode_qk4_v8_d128_k_last" / "retained" / "traces.jsonl")
                       .read_text().splitlines()[0] + "\n")
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, no newline at the end")
    for path, says in ((foreign, "holds traces of gdn_decode_qk4_v8_d128_k_last, not rmsnorm_h4096"),
                       (notes, "malformed JSON")):
        before = path.read_text()
        assert main([*args[:-len(TINY)], f"output={path}", *TINY]) == 2
        err = capsys.readouterr().err
        assert says in err and "give another file" in err, err
        assert path.read_text() == before


def test_evaluate_profile_writes_per_workload_profiles(tmp_path: Path) -> None:
    ref = ROOT / "operators" / "rmsnorm_h4096" / "solutions" / "baselines" / "reference.json"
    prof = tmp_path / "prof" / "p.json"
    r = _cli(["evaluate", "operator=rmsnorm_h4096", f"solution={ref}", "limit=2", f"profile={prof}",
              f"output={tmp_path / 't.jsonl'}", *TINY], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(prof.read_text())
    assert data["definition"] == "rmsnorm_h4096" and len(data["workloads"]) == 2
    assert all(p["torch"]["host_ops"] for p in data["workloads"].values())
    assert "profiles" in r.stdout and "written to" in r.stdout
    assert "(no device kernels)" in r.stdout and "0.0 /" not in r.stdout  # no device time figure on a CPU: '-'


def test_evaluate_bad_input_is_one_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x", "definition": "rmsnorm_h4096",')
    r = _cli(["evaluate", "operator=rmsnorm_h4096", f"solution={broken}", f"output={tmp_path / 't.jsonl'}",
              *TINY], tmp_path)
    assert r.returncode == 2
    assert "broken.json" in r.stderr and "malformed JSON" in r.stderr
    assert not (tmp_path / "t.jsonl").exists()
    r = _cli(["evaluate", "operator=no_such_operator", f"solution={broken}"], tmp_path)
    assert r.returncode != 0 and "no_such_operator" in (r.stdout + r.stderr)


def test_an_error_line_is_never_wrapped_nor_read_as_markup(tmp_path: Path) -> None:
    """A path longer than any console width stays whole on one line (it used to break at 80 columns when the
    output was piped), and ``[bold]`` in a message is printed as written, not taken for markup."""
    long_dir = tmp_path / ("d" * 120) / ("e[bold]" + "f" * 120)
    missing = long_dir / "no_such_specialist.json"
    r = _cli(["dispatch", "rmsnorm_h4096", "--axis", "batch_size", "--band", str(missing)], tmp_path)
    assert r.returncode == 2
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("kernelopt dispatch: ") and str(missing) in lines[0]


def test_optimize_typo_fails_before_any_work(tmp_path: Path) -> None:
    r = _cli(["optimize", "controller.max_candidtes=3"], tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip() == ("kernelopt optimize: Could not override 'controller.max_candidtes': "
                                "Key 'max_candidtes' not in 'ControllerConf'")
    assert not (tmp_path / "mlruns").exists()


@pytest.mark.parametrize(("command", "override", "says"), [
    ("optimize", "controller.max_candidates=abc", "'abc' of type 'str' could not be converted to Integer"),
    ("evaluate", "operator=rmsnorm_h409", ("Could not find 'operator/rmsnorm_h409'; Available options in "
                                          "'operator': dsa_sparse_attention")),
    ("prompt", "agent=nope", "Could not find 'agent/nope'; Available options in 'agent': agent_assisted, full_agent"),
    ("optimize", "operator.workloads=nope", "str is not a ListConfig"),
    ("evaluate", "solution=seeds/x@K=1", "mismatched input '=' expecting <EOF> (values holding '=', '@'"),
    ("optimize", "controller.max_candidates=3,4", ("Ambiguous value for argument 'controller.max_candidates=3,4'; "
                                                  "1. To use it as a list")),
    # Hydra's '+' adds a key no code reads: it composed and was silently ignored
    ("optimize", "+controller.max_candidtes=3", "has no key 'controller.max_candidtes', so nothing would read it"),
    ("evaluate", "++limits=2", "kernelopt evaluate has no key 'limits'"),
    ("optimize", "controller.surrogate=matern", "controller.surrogate: Input should be 'rbf' or 'additive'"),
    ("optimize", "controller.surrogate_turns=often", "controller.surrogate_turns: Input should be 'alternate'"),
])
def test_bad_overrides_are_one_line_and_exit_code_2(capsys, command, override, says) -> None:
    """Hydra's multi-line report of its internals (and exit code 1, what `evaluate` returns for a failed
    workload) becomes one line naming the problem, before any work."""
    assert main([command, override]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kernelopt {command}: ") and says in err and err.count("\n") == 1, err
    assert "rmsnorm_schema" not in err and "Config search path" not in err


def test_zero_launcher_jobs_is_one_line(capsys) -> None:
    """joblib's report was a traceback ('n_jobs == 0 in Parallel has no meaning')."""
    assert main(["optimize", "-m", "agent=full_agent,agent_assisted", "hydra/launcher=joblib",
                 "hydra.launcher.n_jobs=0"]) == 2
    assert capsys.readouterr().err == ("kernelopt optimize: hydra.launcher.n_jobs=0: 0 jobs run nothing; give how "
                                       "many run at once (-1: one per core)\n")


def test_the_browse_line_of_a_server_is_its_address() -> None:
    """`mlflow ui --backend-store-uri http://...` fails: the UI serves a database, not another server."""
    from kernelopt.cli.optimize import browse_line

    assert browse_line("http://127.0.0.1:5000") == "browse at: http://127.0.0.1:5000"
    assert browse_line("sqlite:////x/mlflow.db").endswith("mlflow ui --backend-store-uri sqlite:////x/mlflow.db")


def test_added_keys_are_checked_in_a_multirun_too_and_real_ones_pass(capsys) -> None:
    assert main(["optimize", "-m", "agent=full_agent,agent_assisted", "+foo=1,2"]) == 2
    assert "optimize has no key 'foo'" in capsys.readouterr().err
    problem = override_problem(CONF_DIR, "optimize", ["++controller.max_candidates=3", "+hydra.job.env_set.A=1"])
    assert problem is None


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_a_signal_ends_a_campaign_as_killed_with_its_resume_line(tmp_path: Path, signame: str) -> None:
    """SIGTERM (a Slurm time limit, a preemption) ended the process at once: the campaign run stayed RUNNING in the
    store and nothing said how to go on; Ctrl-C printed a 40-line traceback and no resume line."""
    import signal
    import time

    signum = getattr(signal, signame)
    db = tmp_path / "m.db"
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "kernelopt.cli.main", "optimize", "controller=smoke",
                             "operator.cpu_workload_limit=2", f"tracking.uri=sqlite:///{db}"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen, deadline = "", time.monotonic() + 240
    while " started on rmsnorm_h4096" not in seen and time.monotonic() < deadline:
        seen += proc.stdout.readline()
    time.sleep(1.0)
    proc.send_signal(signum)
    out = seen + proc.communicate(timeout=120)[0]
    assert proc.returncode == 128 + signum, out[-3000:]
    line = next(ln for ln in out.splitlines() if ln.startswith(f"interrupted by {signame}: campaign "))
    run_id = line.split()[4]
    assert "marked KILLED" in line and f"campaign.resume={run_id}" in line and "Traceback" not in out
    con = sqlite3.connect(db)
    assert con.execute("select status from runs where run_uuid = ?", (run_id,)).fetchone() == ("KILLED",)


def test_a_multirun_whose_jobs_fail_exits_non_zero_with_joblib(tmp_path: Path) -> None:
    """joblib runs each job in another process, whose exit code never reached the command: it exited 0 (a CI job
    or a Slurm array would read success). Each job fails at once here (executor=local needs a GPU)."""
    r = _cli(["optimize", "-m", "agent=full_agent,agent_assisted", "executor=local", "hydra/launcher=joblib",
              "hydra.launcher.n_jobs=2", f"tracking.uri=sqlite:///{tmp_path / 'm.db'}"], tmp_path, timeout=600)
    assert r.returncode == 1, r.stdout[-2000:] + r.stderr[-2000:]
    assert "executor.kind=local needs a CUDA GPU" in r.stderr
    assert re.search(r"kernelopt optimize: multirun job \d \(agent=\w+ executor=local .*\) exited with code 2", r.stderr)


@pytest.mark.slow
def test_multirun_two_agent_modes_with_joblib(tmp_path: Path) -> None:
    db = tmp_path / "store" / "mlflow.db"
    db.parent.mkdir()
    r = _cli(["optimize", "-m", "agent=full_agent,agent_assisted", "hydra/launcher=joblib",
              "hydra.launcher.n_jobs=2", "controller=smoke", "controller.max_candidates=1",
              "controller.repeats=1", "operator.cpu_workload_limit=2", "operator.gate_size=1",
              f"tracking.uri=sqlite:///{db}", *TINY], tmp_path, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    con = sqlite3.connect(db)
    modes = sorted(v for (v,) in con.execute(
        "select value from tags where key = 'kernelopt.agent_mode'"))
    assert modes == ["agent_assisted", "full_agent"], modes
    assert (tmp_path / "multirun").is_dir()
    # the two jobs share stdout: every campaign line names its job, and each job says which overrides it runs
    lines = r.stdout.splitlines()
    for n, mode in ((0, "full_agent"), (1, "agent_assisted")):
        assert any(line.startswith(f"[#{n}] multirun job {n}: agent={mode} ") for line in lines), r.stdout[-3000:]
        assert any(line.startswith(f"[#{n}] champion of rmsnorm_h4096") for line in lines), r.stdout[-3000:]
    campaign = [line for line in lines if "decide " in line or "resume with:" in line]
    assert campaign and all(re.match(r"\[#[01]\] ", line) for line in campaign), campaign


SEED = ROOT / "operators" / "rmsnorm_h4096" / "solutions" / "seeds" / "rmsnorm_rowwise"


def test_a_seed_point_is_the_seed_at_those_parameters_over_its_defaults() -> None:
    from kernelopt.cli.tasks import load_solution_arg
    from kernelopt.data import DataError
    from kernelopt.generators.base import kernelopt_extra

    sol = load_solution_arg(f"{SEED}@num_warps=4,variant=two_pass", None)
    assert kernelopt_extra(sol)["params"] == {"BLOCK_H": 4096, "ROWS_PER_PROGRAM": 1, "num_warps": 4,
                                              "variant": "two_pass"}
    assert sol.hash() != load_solution_arg(str(SEED), None).hash()
    for bad, msg in [(f"{SEED}@num_warps=3", "not among the space.s values"), (f"{SEED}@nope=1", "unknown parameter"),
                     (f"{SEED}@num_warps", "is not KEY=VALUE"),
                     (f"{FIX}/rmsnorm_py_value@num_warps=4", "apply to a seed folder"),
                     (f"{SEED}_typo@num_warps=4", "seed folder not found")]:
        with pytest.raises(DataError, match=msg):
            load_solution_arg(bad, None)


def test_evaluate_a_seed_point_from_the_command_line(tmp_path: Path) -> None:
    r = _cli(["evaluate", "operator=rmsnorm_h4096", f"solution='{SEED}@num_warps=4,variant=two_pass'", "limit=1",
              f"output={tmp_path / 't.jsonl'}", *TINY], tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    from kernelopt.cli.tasks import load_solution_arg

    want = load_solution_arg(f"{SEED}@num_warps=4,variant=two_pass", None).name
    trace = json.loads((tmp_path / "t.jsonl").read_text().splitlines()[0])
    assert trace["solution"] == want and trace["evaluation"]["status"] == "PASSED"


@pytest.mark.slow
def test_optimize_gates_included_solutions_beside_the_seeds(tmp_path: Path) -> None:
    """`campaign.include`: a seed point (and any Solution) joins the baseline round, recorded with generator
    `include`, so it can be swept, repeated and promoted through the same gates; a solution of another
    definition is one clear error before any work."""
    db = tmp_path / "store" / "mlflow.db"
    db.parent.mkdir()
    from kernelopt.cli.tasks import load_solution_arg

    point = f"{SEED}@num_warps=4,variant=two_pass,BLOCK_H=1024"
    # the point as a Solution file, included by an unquoted absolute path: '[/tmp/...]' reads as a rich closing
    # tag, and the printed resume line must keep it (call HB's lost '[operators/...]' as an unknown tag)
    point_file = tmp_path / "point.json"
    point_file.write_text(load_solution_arg(point, None).model_dump_json())
    include = f"campaign.include=[{point_file}]"
    r = _cli(["optimize", include, "controller=smoke", "controller.max_candidates=2",
              "controller.repeats=1", "operator.cpu_workload_limit=2", "operator.gate_size=1",
              f"tracking.uri=sqlite:///{db}", *TINY], tmp_path, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    # the bar is the candidate budget
    assert re.search(r"^candidates .* 2/2 ", r.stdout, re.MULTILINE), r.stdout[-3000:]
    assert "Downloading artifacts" not in r.stdout + r.stderr  # MLflow's per-download bars stay off
    # the resume line it prints works as printed: same store and overrides, the campaign reopened
    (line,) = [ln for ln in r.stdout.splitlines() if ln.startswith("resume with: ")]
    program, *args = shlex.split(line.removeprefix("resume with: "))
    # runnable as printed: `kernelopt` on PATH, else the script beside this interpreter (not activated here)
    assert program == "kernelopt" or Path(program) == Path(sys.executable).parent / "kernelopt", line
    assert args[0] == "optimize" and include in args, line
    again = _cli(args, tmp_path, timeout=900)
    assert again.returncode == 0 and " resumed on rmsnorm_h4096" in again.stdout, again.stdout[-2000:] + again.stderr

    want = load_solution_arg(point, None).name
    con = sqlite3.connect(db)
    gens = dict(con.execute(
        "select r.name, p.value from runs r join params p on p.run_uuid = r.run_uuid where p.key = 'generator'"))
    assert gens.get(f"{want}:gate") == "include", gens
    assert "offline" in gens.values()  # the seed at its defaults, from the generator, in the same round

    gemm = ROOT / "operators" / "gemm_n4096_k4096" / "solutions" / "seeds" / "gemm_tiled"
    r = _cli(["optimize", f"campaign.include=['{gemm}']", "controller=smoke",
              f"tracking.uri=sqlite:///{tmp_path / 'other.db'}", *TINY], tmp_path)
    assert r.returncode == 2 and "not solutions of 'rmsnorm_h4096'" in r.stderr, r.stderr[-2000:]
    if (tmp_path / "other.db").exists():  # the store may be opened, but no campaign run is written
        con = sqlite3.connect(tmp_path / "other.db")
        if con.execute("select count(*) from sqlite_master where name = 'runs'").fetchone()[0]:
            assert con.execute("select count(*) from runs").fetchone()[0] == 0


def test_the_profile_table_shows_the_idle_share_of_the_official_span() -> None:
    """`kernelopt evaluate profile=...` prints, per workload, the share of the official span no kernel covers
    (the H200 profile of the two-launch DSA indexer at 4 rows x 34 pages, call AB: 21.1 us of kernels in a
    41.1 us official span -> 49 %); '-' without a latency."""
    from rich.console import Console

    from kernelopt.cli.display import print_profiles

    repo = Path(__file__).resolve().parents[1]
    profiles = json.loads((repo / "benchmarks" / "results" / "indexer_probe" / "profile_radix.json").read_text())
    uuid = next(u for u in profiles["workloads"] if u.startswith("6e9056cc"))
    one = {uuid: profiles["workloads"][uuid]}
    for latencies, cell in (({uuid: 0.041061}, "49"), (None, "-")):
        console = Console(record=True, width=200)
        print_profiles(one, console, latencies)
        text = console.export_text()
        header = next(line for line in text.splitlines() if "span idle %" in line)
        row = next(line for line in text.splitlines() if "6e9056cc" in line)
        col = [c.strip() for c in re.split("[│┃]", header)].index("span idle %")
        assert re.split("[│┃]", row)[col].strip() == cell, row


def test_the_campaign_bar_counts_gated_candidates_against_the_budget() -> None:
    """`kernelopt optimize`'s bar: the decisions' gated count over `controller.max_candidates` (a resumed
    campaign starts at its count), never past the budget; sweeps and repeats do not move it."""
    import io

    from rich.console import Console

    from kernelopt.cli.optimize import LiveDisplay
    from kernelopt.data.records import Decision, Evidence

    screen = io.StringIO()
    display = LiveDisplay(Console(file=screen, width=160), max_candidates=12)

    def decide(action: str, gated: int) -> None:
        d = Decision(action=action, reason="r", evidence=[Evidence(kind="counts", subject="c", value=gated)])
        display("decision", decision=d, state=None)

    (task,) = display.progress.tasks
    assert task.total == 12 and task.completed == 0
    display.close()
    assert screen.getvalue() == ""  # nothing drawn before the campaign starts (a refused resume draws no bar)
    display("campaign_started", run_id="c", resumed=True, operator="op", workloads=1)
    assert display.started and "campaign c resumed on op (1 workload)" in screen.getvalue()
    decide("generate", 5)  # a resumed campaign: five gated before
    assert task.completed == 5
    decide("sweep", 5)
    display("evaluating", stage="sweep", solutions=["s"])
    assert task.completed == 5 and task.description == "sweep: s"
    decide("stop", 14)  # a round may overshoot the budget by its last candidates
    assert task.completed == 12
    from kernelopt.data import EvalResult, EvaluationStatus, WorkloadResult

    timeout = WorkloadResult(uuid="u1", axes={}, status=EvaluationStatus.TIMEOUT, log="started\nno answer in 10 s")
    display("evaluated", stage="gate", solution="hangs", result=EvalResult(
        definition="d", solution="hangs", solution_hash="h", results=[timeout]))
    assert "0/1 PASSED mean - TIMEOUT: no answer in 10 s" in screen.getvalue()  # a hang is told from a crash
    display("profile_skipped", reason="band profiling skipped: 87 s of the wall clock left")
    assert "band profiling skipped: 87 s of the wall clock left; roofline classes kept" in screen.getvalue()
    assert "failed" not in screen.getvalue()  # a skip is not said as a failure (call HA printed 'failed (... skipped)')
    display.close()
    assert not display.started and "12/12" in screen.getvalue()  # the bar's last state stays


def test_small_speedups_keep_their_digits() -> None:
    """The CPU interpreter is slower than the PyTorch reference: `make run`'s leaderboard read '0.00x'."""
    from kernelopt.cli.display import speedup_text

    assert speedup_text(0.00417) == "0.0042x" and speedup_text(12.345) == "12.35x" and speedup_text(None) == "-"
    assert speedup_text(0.1) == "0.10x"


def test_a_hydra_commands_help_lists_its_own_groups_and_config(capsys) -> None:
    """`kernelopt optimize --help` (and `-h`, and evaluate's / prompt's): usage, the groups a user can pick (not the
    structured configs' `*_schema` entries Hydra's help listed, headed "Main is powered by Hydra."), the config
    as the other overrides compose it; a bad override is still one line and exit 2."""
    assert main(["optimize", "--help", "controller.max_candidates=20"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: kernelopt optimize ") and "Main is powered by Hydra" not in out
    assert "  controller: default, smoke\n" in out and "_schema" not in out
    assert "max_candidates: 20\n" in out  # the config as given
    assert main(["evaluate", "-h"]) == 0
    out = capsys.readouterr().out
    assert "  harness: auto, official, quick\n" in out and "  controller:" not in out  # evaluate's own groups
    assert "e.g. harness.timeout_s=600:" in out  # an example key evaluate has
    assert main(["evaluate", "harness.timeout_s=600", "-h"]) == 0
    assert main(["optimize", "-c", "job"]) == 0  # Hydra's short flags are Hydra's (was an override parse error)
    capsys.readouterr()
    assert main(["prompt", "-h", "agent=nope"]) == 2
    assert "Could not find 'agent/nope'" in capsys.readouterr().err


def test_a_generator_that_cannot_run_here_is_refused_before_any_work(tmp_path: Path) -> None:
    """No API key / no agent executable: one line naming what to set, exit 2, no campaign (it used to run, print
    'baseline generation was tried 2 times and no candidate was evaluated', and exit 0)."""
    env_cut = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    r = subprocess.run([sys.executable, "-m", "kernelopt.cli.main", "optimize", "generator=openai",
                        f"tracking.uri=sqlite:///{tmp_path}/m.db"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300, env={**env_cut, "CUDA_VISIBLE_DEVICES": ""}, check=False)
    assert r.returncode == 2 and "set OPENAI_API_KEY in the environment" in r.stderr, r.stdout + r.stderr
    assert "campaign" not in r.stdout
    r = _cli(["optimize", "generator=claude_code", "generator.command=no-such-agent-xyz"], tmp_path)
    assert r.returncode == 2 and "executable 'no-such-agent-xyz' not found" in r.stderr, r.stdout + r.stderr


def test_the_surrogate_rule_needs_the_offline_generator(capsys, monkeypatch) -> None:
    """``controller.surrogate`` asks for 'model_guided' rounds, which only the offline generator's GP answers: with
    an LLM generator it is refused in one line before any work (the key is set: not the missing-key refusal)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert main(["optimize", "generator=openai", "controller.surrogate=rbf"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kernelopt optimize: controller.surrogate=rbf: the surrogate's rounds") and "generator=openai" \
        in err and err.count("\n") == 1, err


def test_the_campaign_display_says_why_a_generator_gave_no_candidate() -> None:
    import io

    from rich.console import Console

    from kernelopt.cli.optimize import LiveDisplay

    screen = io.StringIO()
    display = LiveDisplay(Console(file=screen, width=160), max_candidates=2)
    display("proposal_failed", reason="openai: RateLimitError: [429] slow down")
    assert "no candidate from the generator: openai: RateLimitError: [429] slow down" in screen.getvalue()


def test_an_operators_leaderboard_names_each_rows_campaign() -> None:
    """`report <operator>` ranks the runs of all its campaigns: without the column no row said which."""
    from rich.console import Console

    from kernelopt.cli.optimize import leaderboard_table

    row = {"rank": 1, "name": "k", "stage": "sweep", "pass_count": 2, "workload_count": 2, "mean_latency_ms": 1.0,
           "p95_latency_ms": 1.0, "speedup_vs_reference": 2.0, "direction": "-", "campaign": "a" * 32}
    rows = [row, {**row, "rank": 2, "campaign": "b" * 32}]
    console = Console(width=200, record=True)
    console.print(leaderboard_table(rows))
    text = console.export_text()
    assert "campaign" in text and "aaaaaaaa " in text and "bbbbbbbb " in text
    console.print(leaderboard_table(rows[:1]))  # one campaign's board: no column
    assert "campaign" not in console.export_text()
