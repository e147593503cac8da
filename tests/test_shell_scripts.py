"""The device-session shell scripts (scripts/*.sh): each parses (``bash -n``), and gpu_env.sh's workload filters
pick the contest workloads they name. A syntax error found here costs nothing; found on the lent GPU it costs a
call's device time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted([*(REPO / "scripts").glob("*.sh"), *(REPO / "scripts" / "sessions").glob("*.sh")])


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_script_parses(script: Path) -> None:
    res = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr


def _helper(call: str) -> list[str]:
    """``call`` run after sourcing gpu_env.sh's helpers (not its wheel install) in the checkout."""
    env = REPO / "scripts" / "gpu_env.sh"
    script = f"eval \"$(sed -n '/^axis_band()/,$p' {env})\"; {call}"
    res = subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60, check=False)
    assert res.returncode == 0, res.stderr
    return [u for u in res.stdout.strip().split(",") if u]


def _workloads(op: str) -> list[dict]:
    return [json.loads(line)["workload"] for line in (REPO / "operators" / op / "workloads.jsonl").open()]


def test_axis_band_and_prefill_band_pick_the_band() -> None:
    idx = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
    want = [w["uuid"] for w in _workloads(idx) if 33 <= w["axes"]["max_num_pages"] < 1000]
    assert _helper(f"axis_band {idx} max_num_pages 33 1000") == want and len(want) == 59
    pre = _workloads("gdn_prefill_qk4_v8_d128_k_last")
    assert _helper("prefill_band 2857 9000") == [w["uuid"] for w in pre if w["axes"]["total_seq_len"] >= 2857]
    assert len(_helper("prefill_band 2857 9000")) == 22
    few = _helper("prefill_points 5709:2 3028:5 3999:13")
    assert sorted((w["axes"]["total_seq_len"], w["axes"]["num_seqs"]) for w in pre if w["uuid"] in few) == [
        (3028, 5), (3999, 13), (5709, 2)]


def test_keep_call_results_packs_the_calls_results_and_no_other_calls(tmp_path: Path) -> None:
    import tarfile

    res_dir = tmp_path / "benchmarks" / "results"
    (res_dir / "profiles_v").mkdir(parents=True)
    (tmp_path / "extra").mkdir()
    for name in ("profiles_v/a.jsonl", "contest_moe_zz.md", "contest_moe_yy.md", "span_anatomy_h200_moe_zz.md",
                 "ncu_sections_h200_moe_zz.json", "ncu_sections_h200_moe_yy.json"):
        (res_dir / name).write_text("x")
    (tmp_path / "extra" / "e.txt").write_text("x")
    out = tmp_path / "out"
    (out / "cache").mkdir(parents=True)
    (out / "cache" / "c.json").write_text("{}")
    env = REPO / "scripts" / "gpu_env.sh"
    script = (f"eval \"$(sed -n '/^axis_band()/,$p' {env})\"; CALL=zz; P=benchmarks/results/profiles_v; OUT={out}; "
              "keep_call_results extra \"$OUT/cache\"; finish_packing")
    res = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert res.returncode == 0, res.stderr
    with tarfile.open(out / "results_zz.tgz") as tar:
        names = {n for n in tar.getnames() if not n.endswith("/")}
    assert {"benchmarks/results/profiles_v/a.jsonl", "benchmarks/results/contest_moe_zz.md",
            "benchmarks/results/span_anatomy_h200_moe_zz.md", "benchmarks/results/ncu_sections_h200_moe_zz.json",
            "extra/e.txt"} <= names
    assert not {"benchmarks/results/contest_moe_yy.md", "benchmarks/results/ncu_sections_h200_moe_yy.json"} & names
    # a path under $OUT comes back by itself: packed too, it was unpacked into the checkout as root/out/... (call MB)
    assert not [n for n in names if n.endswith("cache/c.json")]


def test_fastest_in_turn_keeps_the_first_unless_a_later_trace_passed_as_much_and_is_faster(tmp_path: Path) -> None:
    import os
    import sys

    sys.path.insert(0, str(REPO / "tests"))
    from test_trace_agreement import BF, PRE, _scaled

    _scaled(BF, tmp_path / "x_slow_y.jsonl", 1.2, 0, 100000)
    _scaled(BF, tmp_path / "x_quick_y.jsonl", 0.8, 0, 100000)
    _scaled(BF, tmp_path / "x_short_y.jsonl", 0.5, 0, 100000, drop=1)  # faster, but one workload short
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # the helper's python3: this one
    (shim / "python3").chmod(0o755)
    env = {**os.environ, "PATH": f"{shim}:{os.environ['PATH']}"}
    gpu_env = REPO / "scripts" / "gpu_env.sh"

    def helper(call: str) -> str:
        """stdout of ``call`` after the helpers from ``step`` on (P: the traces here, L: a log here)."""
        script = f"eval \"$(sed -n '/^step()/,$p' {gpu_env})\"; P={tmp_path}; L={tmp_path}/log; {call}"
        res = subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120, env=env,
                             check=False)
        assert res.returncode == 0, res.stderr
        return res.stdout.strip()

    def pick(*names: str) -> str:
        return helper(f"fastest_in_turn {PRE} x_ _y.jsonl {' '.join(names)}")

    assert pick("slow", "quick", "short") == "quick"
    assert pick("quick", "slow", "short", "absent") == "quick"
    assert pick("absent", "slow") == "slow"
    (tmp_path / "x_empty_y.jsonl").write_text("")  # never written to: replaced as a missing one is
    assert pick("empty", "slow") == "slow" and pick("slow", "empty") == "slow"

    # side_by_side: each name's trace evaluated unless it exists (all do here), then the same pick, alone on stdout
    assert helper(f"side_by_side {PRE} x_ _y.jsonl u1,u2 sol_%s.json slow quick short") == "quick"
    # side_by_side_again: the same pick, logged, then the first one evaluated again into its own trace (here the
    # evaluation of the absent sol_slow.json is started and fails: the pick stands)
    compared = f"{PRE} x_ _y.jsonl u1,u2 sol_%s.json slow quick short"
    assert helper(f"side_by_side_again {compared}") == "quick"
    log = (tmp_path / "log").read_text()
    assert "=== the fastest of x_*_y.jsonl: quick" in log
    assert "solution='sol_slow.json'" in log and f"output={tmp_path}/x_slow_y_again.jsonl.part" in log
    _scaled(BF, tmp_path / "x_slow_y_again.jsonl", 1.2, 0, 100000)  # the later calls find it there
    # side_by_side_if: the variants join the first only when the test command passed (its step lines on stderr)
    assert helper(f"side_by_side_if 30 true {compared}") == "quick"
    assert helper(f"side_by_side_if 30 'exit 3' {compared}") == "slow"
    # moe_seed_side_by_side: side_by_side_if (here a stand-in printing its arguments) with the seed's GPU tests and the
    # MoE workloads of the band (the three above 80 tokens)
    moe = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"
    args = helper(f"side_by_side_if() {{ echo \"$@\"; }}; MOE={moe}; "
                  "moe_seed_side_by_side q8zz x_ _y.jsonl 81 100000 sol_%s.json slow quick").split(" ")
    assert args[:2] == ["200", "python3"] and "tests/test_moe_q8.py" in args and args[args.index("-k") + 1] == "q8zz"
    uuids = args[-4].split(",")
    assert args[-7:-4] == [moe, "x_", "_y.jsonl"] and args[-3:] == ["sol_%s.json", "slow", "quick"]
    assert len(uuids) == 3 and {u[:8] for u in uuids} == {"1a4c6ba1", "58a34f27", "5e8dc11c"}
    # sweep_unless_kept: no sweep when the pick is the kept kernel; else the pick's dispatch swept (here the sweep of
    # the absent sol_quick.json is started and fails: its step is logged)
    before = (tmp_path / "log").read_text()
    helper("left() { echo 30; }; sweep_unless_kept op slow slow sol_%s.json name scratch")
    assert (tmp_path / "log").read_text() == before
    helper("left() { echo 30; }; sweep_unless_kept op quick slow sol_%s.json name scratch")
    swept = (tmp_path / "log").read_text()[len(before):]
    assert "benchmarks/contest.py --operators op" in swept and "--solution op=sol_quick.json" in swept
    assert "--name name --traces scratch --resume" in swept
    # prefill_pick_sweep: side_by_side_again over GDN prefill's dispatch files, the kept one first, then
    # sweep_unless_kept of the pick (both stand-ins printing their arguments)
    out = helper("side_by_side_again() { echo \"$@\" >&2; echo quick; }; sweep_unless_kept() { echo \"$@\"; }; "
                 "PRE=pre; PRE_DISPATCH=d; CALL=zz; prefill_pick_sweep u1,u2 slow quick short")
    assert out == f"pre quick slow d/%s.json prefill_quick_zz {tmp_path}/contest_scratch_zz"
    # indexer_side_by_side_sweep: the names' traces (here they exist), the first again last (started here and
    # failing: the pick stands), the pick logged; no sweep when the pick is the first, else the pick's contest
    # sweep and the replay of the near-tie workloads (stand-ins printing their arguments)
    for name, scale in (("slow", 1.2), ("quick", 0.8)):
        _scaled(BF, tmp_path / f"indexer_t_{name}.jsonl", scale, 0, 100000)
    stand_ins = (f"IDX={PRE}; CALL=t; left() {{ echo 30; }}; of() {{ echo \"sol_$1.json\"; }}; "
                 "contest_sweep() { echo \"SWEEP $*\"; }; step() { echo \"STEP $*\"; }; ")
    assert helper(stand_ins + "indexer_side_by_side_sweep of u1,u2 slow") == ""
    assert "=== the fastest of indexer_t_*: slow" in (tmp_path / "log").read_text()
    out = helper(stand_ins + "indexer_side_by_side_sweep of u1,u2 slow quick").splitlines()
    assert out[0] == f"SWEEP {PRE} sol_quick.json indexer_quick_t {tmp_path}/contest_scratch_t"
    assert out[1] == "STEP 30 env PARTS=2 SEED=sol_quick.json TAG=_quick_t bash scripts/indexer_probe.sh"
    assert "solution='sol_slow.json'" in (tmp_path / "log").read_text()
    # decode_side_by_side_sweep: the same for the GDN decode's dispatch files on the workloads of batch > 8 (here a
    # stand-in), the pick's sweep with fla unless the first is the pick
    for name, scale in (("slow", 1.2), ("quick", 0.8)):
        _scaled(BF, tmp_path / f"decode_t_{name}.jsonl", scale, 0, 100000)
    stand_ins = (f"DEC={PRE}; CALL=t; left() {{ echo 30; }}; axis_band() {{ echo \"BAND $*\" >&2; echo u1,u2; }}; "
                 "step() { echo \"STEP $*\"; }; ")
    assert helper(stand_ins + "decode_side_by_side_sweep slow") == ""
    out = helper(stand_ins + "decode_side_by_side_sweep slow quick")
    assert out == (f"STEP 30 python3 benchmarks/contest.py --operators {PRE} --baselines fla --solution "
                   f"{PRE}=operators/{PRE}/solutions/dispatch/quick.json --budget-s 100000 --name decode_quick_t "
                   f"--traces {tmp_path}/contest_scratch_t --resume")
    log = (tmp_path / "log").read_text()
    assert "=== the fastest of decode_t_*.jsonl: slow" in log and "=== the fastest of decode_t_*.jsonl: quick" in log
    # decode_pick_sweep: the rows side by side, the picker's dispatch, and its sweep with fla unless the pick is the
    # previous dispatch byte for byte (cmp) or the picker failed (stand-ins print the steps)
    stand_ins = (f"DEC={PRE}; CALL=t; left() {{ echo 30; }}; step() {{ echo \"STEP $*\"; }}; "
                 "decode_fla_sweep() { echo \"SWEEP $*\"; }; ")
    out = helper(stand_ins + "last_step_passed() { return 0; }; decode_pick_sweep 1,8 '' 'a=s/x@BV=4' 'b=s/y'")
    d = f"operators/{PRE}/solutions/dispatch"
    assert out.splitlines() == [
        ("STEP 30 python3 benchmarks/decode_copy_ceiling.py --name t --batches 1,8 --no-fla --solution a=s/x@BV=4 "
         "--solution b=s/y"),
        ("STEP 60 python3 benchmarks/decode_bands.py --results benchmarks/results/decode_copy_ceiling_h200_t.json "
         f"--above operators/{PRE}/solutions/seeds/gdn_decode_lean@OUT_FROM_OLD=0 --min-gain 0.01 -o {d}/picked_t.json"),
        f"SWEEP picked_t decode_picked_t {tmp_path}/contest_scratch_t"]
    out = helper(stand_ins + "last_step_passed() { return 0; }; cmp() { return 0; }; decode_pick_sweep 1 prev 'a=s/x'")
    assert "SWEEP" not in out and "=== the pick is prev again: no sweep" in (tmp_path / "log").read_text()
    out = helper(stand_ins + "last_step_passed() { return 1; }; decode_pick_sweep 1 '' 'a=s/x'")
    assert len(out.splitlines()) == 2 and "SWEEP" not in out
    # decode_rows: the retained dispatches' Triton kernels, each a seed folder of the decode with valid parameters
    from kernelopt.cli.tasks import load_solution_arg

    dec = "gdn_decode_qk4_v8_d128_k_last"
    rows = helper(f"DEC={dec}; mapfile -t R < <(decode_rows); printf '%s\\n' \"${{R[@]}}\"").splitlines()
    names = [r.split("=", 1)[0] for r in rows]
    assert names == ["vtile_w8", "lean4", "lean8n", "lean16n"]
    for row in rows:
        assert load_solution_arg(str(REPO / row.split("=", 1)[1]), None).definition == dec
    # decode_cuda_pick: the CUDA seed's GPU points, then the pick over decode_rows and the given rows
    out = helper(stand_ins.replace(f"DEC={PRE}", f"DEC={dec}")
                 + "last_step_passed() { return 1; }; decode_cuda_pick prev 'c=s/cuda@R=8'").splitlines()
    assert out[0] == "STEP 200 python3 -m pytest -q -m gpu tests/test_seeds.py -k gdn_decode_cuda"
    assert out[1].startswith("STEP 30 python3 benchmarks/decode_copy_ceiling.py --name t --batches 1,4,8,16,32,48,64 "
                             "--no-fla --solution vtile_w8=") and out[1].endswith("--solution c=s/cuda@R=8")
    assert out[1].count("--solution") == 5


def _wheel(path: Path, files: dict[str, str]) -> None:
    import zipfile

    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)


def test_pack_site_archives_the_unpacked_wheels_and_gpu_env_extracts_them(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels / "alpha-1.0-py3-none-any.whl", {"alpha/__init__.py": "X = 1\n",
                                                   "alpha-1.0.dist-info/METADATA": "Name: alpha\n",
                                                   "alpha-1.0.data/scripts/alpha": "#!python\n",
                                                   "alpha-1.0.data/purelib/alpha_extra.py": "Z = 3\n"})
    _wheel(wheels / "beta-2.0-py3-none-any.whl", {"beta.py": "Y = 2\n"})
    out = tmp_path / "packed"
    res = subprocess.run(["bash", str(REPO / "scripts" / "pack_site.sh"), str(wheels), str(out)], capture_output=True,
                         text=True, timeout=60, check=False)
    assert res.returncode == 0, res.stderr
    assert "from 2 wheels" in res.stdout
    # gpu_env.sh's install step (its lines up to the exports), with WHEELS at the archive's folder and /tmp/site
    # redirected into tmp_path
    env = (REPO / "scripts" / "gpu_env.sh").read_text()
    install = env[env.index('if [ -f "${WHEELS:-.whl}/site.tar.xz" ]'):env.index("export PYTHONPATH")]
    site = tmp_path / "site"
    res = subprocess.run(["bash", "-c", install.replace("/tmp/site", str(site))], capture_output=True, text=True,
                         timeout=60, check=False, env={"WHEELS": str(out), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0 and not res.stdout, res.stdout + res.stderr
    got = sorted(str(p.relative_to(site)) for p in site.rglob("*") if p.is_file())
    # a .data folder's purelib joins the site; its scripts do not
    assert got == ["alpha-1.0.dist-info/METADATA", "alpha/__init__.py", "alpha_extra.py", "beta.py"]

    empty = tmp_path / "empty"
    empty.mkdir()
    res = subprocess.run(["bash", str(REPO / "scripts" / "pack_site.sh"), str(empty), str(out)], capture_output=True,
                         text=True, timeout=60, check=False)
    assert res.returncode == 1 and "no wheels" in res.stderr


def _fake_nvidia_smi(folder: Path, card: str | None) -> None:
    """``folder/nvidia-smi`` printing ``card`` as the GPU's name (``None``: failing, as on a machine without a
    driver); put ``folder`` first on ``PATH``."""
    folder.mkdir(exist_ok=True)
    smi = folder / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\necho '{card}'\n" if card else "#!/bin/sh\nexit 9\n")
    smi.chmod(0o755)


def test_only_card_stops_a_session_on_another_gpu_before_anything_runs(tmp_path: Path) -> None:
    """``ONLY_CARD=H200``: gpu_env.sh's session start ends the script (exit 0, one line) on an H100 (the device tool
    answered ``nvidia-h200`` calls with H100s: calls JE-JF of 2026-12-06) and lets it go on on an H200."""
    env = (REPO / "scripts" / "gpu_env.sh").read_text()
    block = env[env.index("# card_is NAME"):env.index("# A folder holding site.tar.xz")]
    fake = tmp_path / "bin"
    for card, goes_on in (("NVIDIA H100 80GB HBM3", False), ("NVIDIA H200", True), (None, False)):
        _fake_nvidia_smi(fake, card)
        res = subprocess.run(["bash", "-c", f"set -- session\n{block}\necho went on"], capture_output=True, text=True,
                             timeout=30, check=False, env={"ONLY_CARD": "H200", "PATH": f"{fake}:/usr/bin:/bin"})
        assert res.returncode == 0, res.stderr
        if goes_on:
            assert res.stdout == "went on\n"
        else:
            assert res.stdout == f"=== ONLY_CARD=H200: this machine has {card or 'no GPU'}: nothing run\n"


def _gpu_env_function(name: str, env: str) -> str:
    """gpu_env.sh's block from the comment that opens ``name`` up to the next function's comment."""
    start = env.index(f"# {name}")
    return env[start:env.index("\n# ", env.index("\n}\n", start)) + 1]


def _card_is(env: str) -> str:
    """gpu_env.sh's ``card_is`` (a one-line function, so not :func:`_gpu_env_function`'s shape)."""
    return env[env.index("# card_is NAME"):env.index("# ONLY_CARD=H200")]


def test_the_h200_first_prefill_sweep_runs_only_on_an_h200(tmp_path: Path) -> None:
    """``prefill_sweep_on_h200`` (gpu_env.sh; the jd / ka / kk session scripts): on an H200 the next prefill sweep
    (dispatch ``$DISPATCH`` beside the retained one on 49 <= tokens < ``$UPPER``, defaults the pending dispatch and
    1,377) and status 0 even when a step failed; elsewhere nothing and status 1, so ``... || echo`` / ``&& exit``
    read it."""
    env = (REPO / "scripts" / "gpu_env.sh").read_text()
    card_is = _card_is(env)
    fn = _gpu_env_function("prefill_sweep_on_h200 ", env)
    fake = tmp_path / "bin"
    stub = 'prefill_sweep_beside_retained() { echo "sweep $*"; return 7; }\n'  # a failed step inside the sweep
    for card, extra, want_out, want_rc in (
            ("NVIDIA H200", {}, "sweep recurrent_one_1376_s2bv32 49 1377\n", 0),
            ("NVIDIA H200", {"DISPATCH": "other", "UPPER": "833"}, "sweep other 49 833\n", 0),
            ("NVIDIA H100 80GB HBM3", {}, "", 1)):
        _fake_nvidia_smi(fake, card)
        res = subprocess.run(["bash", "-c", f"{card_is}\n{stub}{fn}\nprefill_sweep_on_h200; echo \"rc=$?\""],
                             capture_output=True, text=True, timeout=30, check=False,
                             env={"PATH": f"{fake}:/usr/bin:/bin", **extra})
        assert res.stdout == f"{want_out}rc={want_rc}\n", (card, res.stdout, res.stderr)


def test_every_nth_spreads_over_the_sizes() -> None:
    """``every_nth OP AXIS N`` (call OA's 13 prefill workloads): every Nth by AXIS from the smallest, one line."""
    got = _helper("every_nth gdn_prefill_qk4_v8_d128_k_last total_seq_len 8")[0].split()
    pre = sorted(_workloads("gdn_prefill_qk4_v8_d128_k_last"),
                 key=lambda w: (w["axes"]["total_seq_len"], sorted(w["axes"].items()), w["uuid"]))
    assert got == [w["uuid"] for w in pre[::8]] and len(got) == 13
    assert pre[0]["uuid"] == got[0] and {w["axes"]["num_seqs"] > 1 for w in pre if w["uuid"] in got} == {True, False}


def test_the_prefill_fla_sweeps_run_fla_beside_the_adoption_sweep_on_an_h200_and_the_retained_elsewhere(
        tmp_path: Path) -> None:
    """``prefill_fla_sweeps`` (calls OA / PA): the retained prefill dispatch beside fla on the 13 spread workloads
    first (ONLY set for that sweep alone), then on an H200 the adoption sweep with fla beside it, elsewhere the
    retained dispatch's whole sweep with fla (call OA1, an H100)."""
    env = (REPO / "scripts" / "gpu_env.sh").read_text()
    card_is = _card_is(env)
    fn = "".join(_gpu_env_function(name, env) for name in ("prefill_fla_quick:", "prefill_fla_sweeps:",
                                                             "prefill_sweep_on_h200 ["))
    stubs = ('contest_sweep() { echo "contest only=${ONLY:-all} $*"; }\n'
             'prefill_sweep_beside_retained() { echo "beside only=${ONLY:-all} $*"; }\n'
             'every_nth() { echo "u1 u2"; }\n')
    fake = tmp_path / "bin"
    head = "contest only=u1 u2 PRE RET prefill_fla_quick_c P/contest_quick_c fla\n"
    for card, want in (("NVIDIA H200", "beside only=all recurrent_one_1376_s2bv32 49 1377 fla\n"),
                       ("NVIDIA H100 80GB HBM3", "contest only=all PRE RET prefill_retained_fla_c P/contest_scratch_c fla\n")):
        _fake_nvidia_smi(fake, card)
        res = subprocess.run(["bash", "-c", f"{card_is}\n{stubs}{fn}\nprefill_fla_sweeps"], capture_output=True,
                             text=True, timeout=30, check=False,
                             env={"PATH": f"{fake}:/usr/bin:/bin", "PRE": "PRE", "PRE_RETAINED": "RET", "CALL": "c",
                                  "P": "P"})
        assert res.returncode == 0 and res.stdout == head + want, (card, res.stdout, res.stderr)


def test_gpu_suite_runs_one_bounded_step_per_file_with_the_k_expression() -> None:
    """``gpu_suite FILE...`` (calls LA, OA2-OA4, PA): one ``pytest -m gpu`` step per file, bounded by ``left``, its junit
    XML under $OUT named for the call and the file; ``GPU_K`` becomes ``-k`` only when set."""
    env = (REPO / "scripts" / "gpu_env.sh").read_text()
    fn = _gpu_env_function("gpu_suite FILE", env)
    stubs = 'step() { echo "step $*"; }\nleft() { echo 99; }\n'
    base = "step 99 python3 -m pytest -v -m gpu -p no:cacheprovider --timeout 300 -rs --durations=10 --junitxml=O/"
    for k, flag in (("", ""), ("q8gl", "-k q8gl ")):
        res = subprocess.run(["bash", "-c", f"{stubs}{fn}\ngpu_suite tests/a.py tests/b/c.py"], capture_output=True,
                             text=True, timeout=30, check=False,
                             env={"PATH": "/usr/bin:/bin", "OUT": "O", "CALL": "c", **({"GPU_K": k} if k else {})})
        assert res.stdout == (f"{base}gpu_suite_c_a.xml {flag}tests/a.py\n"
                              f"{base}gpu_suite_c_c.xml {flag}tests/b/c.py\n"), res.stderr


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_what_a_script_sources_exists(script: Path) -> None:
    """The session scripts moved to scripts/sessions/ (stop 57): each ``source`` must still name a file, whether
    given relative to the script (``$(dirname "$0")/..``) or to the checkout's root, where they are run from."""
    import re

    for line in script.read_text().replace('$(dirname "$0")', str(script.parent)).splitlines():
        m = re.match(r'\s*(?:source|\.)\s+"?([^"\s]+)"?(?:\s|$)', line)
        if not m:
            continue
        path = m.group(1)
        target = Path(path) if path.startswith("/") else REPO / path
        assert target.resolve().is_file(), f"{script.name}: sources {m.group(1)}, which does not exist"


def test_pending_gpu_checks_run_q8gl_the_ceilings_and_the_suite_files_in_order() -> None:
    """``pending_gpu_checks`` (calls PA, QA): q8gl's GPU twins (``-k q8gl``), the ceilings bounded by 60 s or what is
    left, then the three suite files not run since stop 58."""
    env = (REPO / "scripts" / "gpu_env.sh").read_text()
    fn = _gpu_env_function("pending_gpu_checks (calls PA", env)
    stubs = ('gpu_suite() { echo "suite k=${GPU_K:-} $*"; }\nstep() { echo "step $*"; }\nleft() { echo 45; }\n'
             + env[env.index("upto() {"):env.index("\n", env.index("upto() {")) + 1])
    res = subprocess.run(["bash", "-c", f"{stubs}{fn}\npending_gpu_checks"], capture_output=True, text=True,
                         timeout=30, check=False, env={"PATH": "/usr/bin:/bin", "OUT": "O", "CALL": "c"})
    assert res.returncode == 0 and res.stdout.splitlines() == [
        "suite k=q8gl tests/test_moe_q8.py tests/test_seeds.py",
        "step 45 python3 -m kernelopt.harness.ceilings --out O/ceilings_c.json",
        "suite k= tests/harness/test_profiling.py tests/harness/test_device_random.py tests/test_inputs.py"], res.stderr


def _call_queue(tmp_path: Path, name: str, card: str, call: str, stubs: str, head: str = "",
                prelude: str = "") -> subprocess.CompletedProcess[str]:
    """Run the queue of ``scripts/sessions/<name>`` (its ``( gpu0_log ... )`` subshell, after ``stubs``, ``prelude``
    and the script's lines from ``head`` to the queue when given) on a fake ``nvidia-smi`` naming ``card``."""
    script = (REPO / "scripts" / "sessions" / name).read_text()
    start = script.index("( gpu0_log")
    body = (script[script.index(head):start] if head else "") + script[start:script.index(") &\nfinish_session")] + ")"
    env = (REPO / "scripts" / "gpu_env.sh").read_text()
    fake = tmp_path / "bin"
    _fake_nvidia_smi(fake, card)
    return subprocess.run(["bash", "-c", f"{_card_is(env)}\n{stubs}{prelude}{body}"], capture_output=True, text=True,
                          timeout=30, check=False, cwd=tmp_path,
                          env={"PATH": f"{fake}:/usr/bin:/bin", "OUT": str(tmp_path), "CALL": call})


def test_call_qa_resumes_call_pas_prefill_sweep_on_an_h200_only(tmp_path: Path) -> None:
    """``gpu_session_qa.sh``: on an H200 the one-launch prefill sweep resumes in call PA's folder (CALL=pa for that
    step alone) and Nsight Compute reads the kernel; on every card its compiled resources, then the pending checks
    under the call's own name."""
    env = (REPO / "scripts" / "gpu_env.sh").read_text()
    stubs = ('prefill_sweep_on_h200() { echo "sweep call=$CALL $*"; }\n'
             'pending_gpu_checks() { echo "checks call=$CALL"; }\nstep() { echo "step $1 $3"; }\nupto() { echo $1; }\n')
    res_step = "step 100 benchmarks/prefill_onelaunch_resources.py"
    for card, want in (("NVIDIA H200", ["sweep call=pa fla", "step 150 benchmarks/ncu_sections.py", res_step,
                                        "checks call=qa"]),
                       ("NVIDIA H100 80GB HBM3", [res_step, "checks call=qa"])):
        res = _call_queue(tmp_path, "gpu_session_qa.sh", card, "qa", stubs, prelude=_gpu_env_function("gpu0_log:", env))
        assert res.returncode == 0 and res.stdout.splitlines() == want, (card, res.stdout, res.stderr)


def test_fit_out_packs_what_the_device_tool_would_drop_past_eight_files(tmp_path: Path) -> None:
    """The device tool brings back at most 8 files of $OUT (call QA lost its results pack and its log to that): past
    8, everything but the results packs and the logs goes into extras_<call>.tgz; 8 or fewer are left alone."""
    import tarfile

    env = REPO / "scripts" / "gpu_env.sh"
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    names = ["results_zz.tgz", "session_zz_gpu0.log", "ceilings_zz.json", "sub/suite a.xml",
             *[f"gpu_suite_zz_{i}.xml" for i in range(6)]]
    for name in names:
        (out / name).write_text(name)
    script = f"eval \"$(sed -n '/^axis_band()/,$p' {env})\"; CALL=zz; OUT={out}; fit_out"
    for _ in range(2):  # a second pass finds 3 files and leaves them
        res = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60, check=False)
        assert res.returncode == 0, res.stderr
        assert sorted(p.name for p in out.iterdir()) == ["extras_zz.tgz", "results_zz.tgz", "session_zz_gpu0.log"]
    with tarfile.open(out / "extras_zz.tgz") as tar:
        assert sorted(tar.getnames()) == sorted(names[2:])
        assert tar.extractfile("sub/suite a.xml").read() == b"sub/suite a.xml"
    few = tmp_path / "few"
    few.mkdir()
    for i in range(8):
        (few / f"f{i}.json").write_text("{}")
    res = subprocess.run(["bash", "-c", script.replace(str(out), str(few))], capture_output=True, text=True,
                         timeout=60, check=False)
    assert res.returncode == 0 and len(list(few.iterdir())) == 8, res.stderr


def test_call_qb_times_the_walk_ahead_seed_then_the_points(tmp_path: Path) -> None:
    """``gpu_session_qb.sh``: on an H200 call PA's sweep first (CALL=pa for that step alone); on every card contest.py
    with the walk-ahead seed (defaults, 8 warps) and the seed at 8 warps against the defaults, then the seed's points
    side by side, then Nsight Compute at the defaults and at 8 warps."""
    stubs = SEED_STEP_STUBS + 'upto() { echo $1; }\nprefill_points() { echo u1,u2; }\n'
    later = ["step benchmarks/contest.py onelaunch_points_qb pre ahead ahead_w8 w8",
             "step benchmarks/prefill_seed_points.py onelaunch_qb",
             "step benchmarks/ncu_sections.py onelaunch_defaults_qb",
             "step benchmarks/ncu_sections.py onelaunch_num_warps_8_qb"]
    for card, first in [("NVIDIA H200", ["sweep call=pa fla"]), ("NVIDIA H100 80GB HBM3", [])]:
        res = _call_queue(tmp_path, "gpu_session_qb.sh", card, "qb", stubs, head='ONE="$PRE_SEEDS')
        assert res.returncode == 0 and res.stdout.splitlines() == first + later, (card, res.stdout, res.stderr)


def test_call_qc_times_the_seed_points_over_the_whole_band(tmp_path: Path) -> None:
    """``gpu_session_qc.sh``: on an H200 call PA's sweep first (CALL=pa for that step alone); on every card one
    contest.py run of the one-launch seed's points and the walk-ahead seed against the defaults on the band's
    workloads (49 <= tokens < 1,377), bounded by what is left of the call."""
    stubs = SEED_STEP_STUBS + 'left() { echo 400; }\nprefill_band() { echo "band $1 $2" >&2; echo u1,u2; }\n'
    later = ["step benchmarks/contest.py onelaunch_band_qc pre bv32w8 c32bv32w8 c32 ahead_bv32w8 ahead_c32bv32w8"]
    for card, first in [("NVIDIA H200", ["sweep call=pa fla"]), ("NVIDIA H100 80GB HBM3", [])]:
        res = _call_queue(tmp_path, "gpu_session_qc.sh", card, "qc", stubs, head='ONE="$PRE_SEEDS')
        assert res.returncode == 0 and res.stdout.splitlines() == first + later, (card, res.stdout, res.stderr)
        assert res.stderr.strip() == "band 49 1377", res.stderr


def test_call_qe_adopts_on_an_h200_and_resumes_qd_elsewhere(tmp_path: Path) -> None:
    """``gpu_session_qe.sh``: on an H200 call PA's sweep, then the walk-ahead dispatch's sweep with fla under the
    fixed call name qe (resumable by any later call); on another card call QD's side by side resumed; on every card
    then both one-launch seeds' compiled resources at call QC's points."""
    env = (REPO / "scripts" / "gpu_env.sh").read_text()
    stubs = ('gpu0_log() { :; }\nprefill_sweep_on_h200() { echo "sweep call=$CALL dispatch=${DISPATCH:-} $*"; }\n'
             'step() { local s=$3 n="" t=""; while [ $# -gt 0 ]; do [ "$1" = --name ] && n=$2\n'
             '  [ "$1" = --traces ] && t=$2; shift; done; echo "step $s $n $t"; }\n'
             'left() { echo 400; }\nupto() { echo $1; }\nPRE=pre; PRE_DISPATCH=disp; P=prof\n')
    resources = [f"step benchmarks/prefill_onelaunch_resources.py qx_points_{seed} "
                 for seed in ("onelaunch", "onelaunch_pf")]
    cases = [("NVIDIA H200", ["sweep call=pa dispatch= fla",
                              "sweep call=qe dispatch=recurrent_ahead_461_1376_s2bv32 fla"]),
             ("NVIDIA H100 80GB HBM3", ["step benchmarks/contest.py ahead_dispatch_qd prof/contest_ahead_qd"])]
    for card, want in cases:
        want = want + resources
        res = _call_queue(tmp_path, "gpu_session_qe.sh", card, "qx", stubs,
                          prelude=_gpu_env_function("prefill_ahead_side_by_side:", env)
                          + _gpu_env_function("contest_sweep OP", env))
        assert res.returncode == 0 and res.stdout.splitlines() == want, (card, res.stdout, res.stderr)


#: calls QF / QG: stubbed steps echo their commands; the real gpu0_log, contest_sweep and h200_sweeps_qf
QF_STUBS = ('prefill_sweep_on_h200() { echo "sweep call=$CALL dispatch=${DISPATCH:-} $*"; }\n'
            'step() { shift 2; echo "step $*"; }\nleft() { echo 400; }\nMOE=moe; P=prof; PRE=pre; PRE_SEEDS=seeds\n'
            'PRE_DISPATCH=disp\nprefill_band() { echo "band $1 $2" >&2; echo u1,u2; }\n')
_ENV = (REPO / "scripts" / "gpu_env.sh").read_text()
QF_PRELUDE = "".join(_gpu_env_function(name, _ENV) for name in ("gpu0_log:", "contest_sweep OP", "h200_sweeps_qf",
                                                                "pa_sweep_on_h200", "qe_sweep_on_h200",
                                                                "moe_side_by_side", "prefill_long_side_by_side"))
#: what call QF's H200 sweeps run, in order
QF_H200 = ["sweep call=pa dispatch= fla", "sweep call=qe dispatch=recurrent_ahead_461_1376_s2bv32 fla",
           ("step benchmarks/contest.py --operators moe --baselines reference torch_compile --solution "
           "moe=operators/moe/retained/solution.json --budget-s 100000 --name moe_side_by_side_qf "
           "--traces prof/contest_moe_qf --resume")]


def _long_step(name: str, candidates: str) -> str:
    """The contest run ``prefill_long_side_by_side NAME CANDIDATES`` makes in call qx (``QF_STUBS``' step)."""
    return ("step benchmarks/contest.py --operators pre --no-baselines --workloads u1 u2 --solution "
            f"pre=disp/recurrent_ahead_461_1376_s2bv32.json --candidates {candidates} "
            f"--budget-s 100000 --name {name}_qx --traces prof/contest_long_qx --resume")


def _h200_sweeps_else_long(tmp_path: Path, script: str, head: str, long: str) -> None:
    """``script`` runs QF's H200 sweeps on an H200 and only the ``long`` contest run on another card."""
    for card, want, err in (("NVIDIA H200", QF_H200, ""), ("NVIDIA H100 80GB HBM3", [long], "band 1377 100000")):
        res = _call_queue(tmp_path, script, card, "qx", QF_STUBS, head=head, prelude=QF_PRELUDE)
        assert res.returncode == 0 and res.stdout.splitlines() == want, (card, res.stdout, res.stderr)
        assert res.stderr.strip() == err, res.stderr


def test_call_qf_adopts_and_sweeps_the_moe_on_an_h200_and_times_the_long_calls_elsewhere(tmp_path: Path) -> None:
    """``gpu_session_qf.sh``: on an H200 call PA's and call QE's prefill sweeps resumed (each under its own call name),
    then the retained MoE dispatch's contest sweep with the reference and torch.compile under fixed names; on another
    card the walk-ahead seed's points against the ahead dispatch on the workloads above 1,376 tokens."""
    a = "seeds/gdn_prefill_onelaunch_pf"
    _h200_sweeps_else_long(tmp_path, "gpu_session_qf.sh", "AHEAD=", _long_step(
        "onelaunch_long", f"bv32w8={a}@BV=32,num_warps=8 c32bv32w8={a}@C=32,BV=32,num_warps=8 bv16w4={a}@BV=16 "
        f"c32bv16w4={a}@C=32,BV=16"))


def test_call_qg_runs_qfs_h200_sweeps_and_times_wy3h_at_narrower_tiles_elsewhere(tmp_path: Path) -> None:
    """``gpu_session_qg.sh``: on an H200 call QF's sweeps; on another card wy3h at BV 16 against the ahead dispatch on
    the workloads above 1,376 tokens."""
    w = "seeds/gdn_prefill_chunked_wy3h"
    _h200_sweeps_else_long(tmp_path, "gpu_session_qg.sh", "WY=", _long_step(
        "wy3h_long", f"bv16s2={w}@BV=16,num_stages=2 bv16s2h2={w}@BV=16,num_stages=2,num_warps_h=2 "
        f"c32bv16s2={w}@C=32,BV=16,num_stages=2"))


def test_call_qh_runs_qfs_h200_sweeps_then_reads_the_long_prefill_calls_on_every_card(tmp_path: Path) -> None:
    """``gpu_session_qh.sh``: on an H200 call QF's sweeps first; on every card then the span anatomy of the ahead
    dispatch on four long workloads and Nsight Compute at 57 sequences, each bounded."""
    stubs = QF_STUBS + 'upto() { echo $1; }\n'
    later = [("step benchmarks/span_anatomy.py --operator pre --solution disp/recurrent_ahead_461_1376_s2bv32.json "
             "--workloads 546aba8e ced41396 f21736ff d68188c3 --warmup 3 --iterations 20 --host-calls 3 --host-top 25 "
             "--name prefill_long_qx"),
             ("step benchmarks/ncu_sections.py --operator pre --solution disp/recurrent_ahead_461_1376_s2bv32.json "
             "--workloads f21736ff --name prefill_long_57seqs_qx")]
    for card, first in (("NVIDIA H200", QF_H200), ("NVIDIA H100 80GB HBM3", [])):
        res = _call_queue(tmp_path, "gpu_session_qh.sh", card, "qx", stubs, head="AHEAD_DISPATCH=", prelude=QF_PRELUDE)
        assert res.returncode == 0 and res.stdout.splitlines() == first + later, (card, res.stdout, res.stderr)


def test_call_qj_tests_wy3o_on_the_gpu_then_times_it_on_the_long_calls(tmp_path: Path) -> None:
    """``gpu_session_qj.sh``: on an H200 call QF's sweeps first; on every card wy3o's GPU tests, then (only if they
    passed) its four points against the ahead dispatch above 1,376 tokens under call QJ's name (resumable by any
    later call), then the compiled resources."""
    w = "seeds/gdn_prefill_chunked_wy3o"
    tests = "step -m pytest -q -m gpu tests/test_gdn_prefill_wy3h_rewrites.py tests/test_seeds.py -k wy3o"
    contest = _long_step("wy3o_long", f"o_c64={w}@BV=32,num_stages=2 o_c32={w}@C=32,BV_O=128,num_stages=2 "
                         f"o_c64w8={w}@BV=32,num_stages=2,num_warps_h=8 "
                         f"o_c32w8={w}@C=32,BV_O=128,num_stages=2,num_warps_h=8").replace("_qx", "_qj")
    resources = "step benchmarks/prefill_walk_resources.py --name qx --out " + str(tmp_path)
    for card, first in (("NVIDIA H200", QF_H200), ("NVIDIA H100 80GB HBM3", [])):
        for passed, middle in ((True, [contest]), (False, [])):
            stubs = QF_STUBS + "upto() { echo $1; }\nlast_step_passed() { %s; }\n" % ("true" if passed else "false")
            res = _call_queue(tmp_path, "gpu_session_qj.sh", card, "qx", stubs, head="WO=", prelude=QF_PRELUDE)
            want = first + [tests, *middle, resources]
            assert res.returncode == 0 and res.stdout.splitlines() == want, (card, passed, res.stdout, res.stderr)

def test_call_qk_runs_qfs_h200_sweeps_else_the_moe_and_prefill_side_by_side_on_the_card_it_gets(tmp_path: Path) -> None:
    """``gpu_session_qk.sh``: on an H200 call QF's sweeps only; on another card the retained MoE with the reference and
    torch.compile over all its workloads, then the walk-ahead prefill dispatch with fla over all 100, each under a
    fixed name of its own (not QF's H200 names: a later H200 call must not resume an H100 table)."""
    other = [("step benchmarks/contest.py --operators moe --baselines reference torch_compile --solution "
              "moe=operators/moe/retained/solution.json --budget-s 100000 --name moe_side_by_side_h100_qk "
              "--traces prof/contest_moe_h100_qk --resume"),
             ("step benchmarks/contest.py --operators pre --baselines fla --solution "
              "pre=disp/recurrent_ahead_461_1376_s2bv32.json --budget-s 100000 --name prefill_ahead_fla_h100_qk "
              "--traces prof/contest_prefill_ahead_h100_qk --resume")]
    for card, want in (("NVIDIA H200", QF_H200), ("NVIDIA H100 80GB HBM3", other)):
        res = _call_queue(tmp_path, "gpu_session_qk.sh", card, "qx", QF_STUBS, prelude=QF_PRELUDE)
        assert res.returncode == 0 and res.stdout.splitlines() == want, (card, res.stdout, res.stderr)
        assert res.stderr == "", res.stderr


def test_call_ql_puts_the_moe_first_on_an_h200_and_does_nothing_elsewhere(tmp_path: Path) -> None:
    """``gpu_session_ql.sh``: on an H200 QF's three sweeps with the MoE first (the one that fits a short call), then QE's
    and PA's prefill sweeps under their own call names; on another card one line saying so and no step."""
    for card, want in (("NVIDIA H200", [QF_H200[2], *QF_H200[:2][::-1]]),
                       ("NVIDIA H100 80GB HBM3", ["not an H200 (NVIDIA H100 80GB HBM3): nothing to do"])):
        res = _call_queue(tmp_path, "gpu_session_ql.sh", card, "qx", QF_STUBS, prelude=QF_PRELUDE)
        assert res.returncode == 0 and res.stdout.splitlines() == want, (card, res.stdout, res.stderr)


def test_call_qn_puts_the_prefill_sweep_first_on_an_h200_and_does_nothing_elsewhere(tmp_path: Path) -> None:
    """``gpu_session_qn.sh``: on an H200 QE's prefill sweep first (the one issue 7 waits for), then the MoE side by side
    and PA's sweep under their own call names; on another card one line saying so and no step."""
    for card, want in (("NVIDIA H200", [QF_H200[1], QF_H200[2], QF_H200[0]]),
                       ("NVIDIA H100 80GB HBM3", ["not an H200 (NVIDIA H100 80GB HBM3): nothing to do"])):
        res = _call_queue(tmp_path, "gpu_session_qn.sh", card, "qx", QF_STUBS, prelude=QF_PRELUDE)
        assert res.returncode == 0 and res.stdout.splitlines() == want, (card, res.stdout, res.stderr)


def test_call_qr_checks_every_seed_on_the_gpu_then_sweeps_the_decode_side_by_side_on_an_h200(tmp_path: Path) -> None:
    """``gpu_session_qr.sh``: on every card the seeds' GPU suite, bounded by SUITE_BY (400 s by default, the call's
    END_BY when that is earlier); on an H200 then the retained GDN decode dispatch with the reference and fla over
    every workload under the fixed name qr, whatever the call's own."""
    stubs = ('step() { echo "step $1 ${*: -1}"; }\nleft() { echo $(( END_BY - 100 )); }\n'
             'contest_sweep() { echo "sweep call=$CALL $*"; }\nDEC=dec; P=prof; END_BY=540\n')
    prelude = "".join(_gpu_env_function(n, _ENV) for n in ("gpu0_log:", "gpu_suite FILE", "decode_side_by_side NAME"))
    sweep = ("sweep call=qr dec operators/dec/retained/solution.json decode_side_by_side_qr prof/contest_decode_qr "
             "reference fla")
    for card, want in (("NVIDIA H200", ["step 300 tests/test_seeds.py", sweep]),
                       ("NVIDIA H100 80GB HBM3", ["step 300 tests/test_seeds.py"])):
        res = _call_queue(tmp_path, "gpu_session_qr.sh", card, "qx", stubs, prelude=prelude)
        assert res.returncode == 0 and res.stdout.splitlines() == want, (card, res.stdout, res.stderr)


def test_call_ht_checks_the_hints_seed_then_measures_its_space_into_a_table_named_for_the_card(tmp_path: Path) -> None:
    """``gpu_session_ht.sh``: the hints seed's GPU checks (bounded at 90 s), then its OUT_FROM_OLD=1, PER_ROW=0
    quarter measured into a table named for the card (an H200's and an H100's never mix: a later call resumes the one of its own card),
    then the whole space into its own table of the card, starting from the quarter's (--from-table); SKIP_CHECKS=1 goes
    straight to the measurements."""
    stubs = ('step() { shift; echo "step $*"; }\nleft() { echo $(( END_BY - SECONDS - 10 )); }\n'
             'upto() { local l; l=$(left); echo $(( l < $1 ? l : $1 )); }\n'
             'gpu_suite() { echo "suite k=$GPU_K left=$(left) $*"; }\nkeep_packed() { :; }\ngpu0_log() { :; }\n'
             'DEC=dec; END_BY=540\n')
    prelude = _gpu_env_function("measure_space OPERATOR", _ENV)
    measure = ("step python3 benchmarks/controller_efficiency.py --mode measure --operator dec --workloads 7 "
               "--seed-kernel gdn_decode_cuda_hints --fix OUT_FROM_OLD=1 PER_ROW=0 --table "
               "benchmarks/results/controller_space_gdn_decode_cuda_hints_sub_{}.json")
    whole = ("step python3 benchmarks/controller_efficiency.py --mode measure --operator dec --workloads 7 "
             "--seed-kernel gdn_decode_cuda_hints --from-table benchmarks/results/controller_space_gdn_decode_cuda_hints_"
             "sub_{0}.json --table benchmarks/results/controller_space_gdn_decode_cuda_hints_{0}.json")
    suite = "suite k=gdn_decode_cuda_hints left=90 tests/test_seeds.py"
    for card, tag in (("NVIDIA H200", "h200"), ("NVIDIA H100 80GB HBM3", "h100")):
        res = _call_queue(tmp_path, "gpu_session_ht.sh", card, "ht", stubs, head="CARD=", prelude=prelude)
        want = [suite, measure.format(tag), whole.format(tag)]
        assert res.returncode == 0 and res.stdout.splitlines() == want, (card, res.stdout, res.stderr)
    res = _call_queue(tmp_path, "gpu_session_ht.sh", "NVIDIA H200", "ht", "SKIP_CHECKS=1\n" + stubs, head="CARD=",
                      prelude=prelude)
    assert res.returncode == 0 and res.stdout.splitlines() == [measure.format("h200"), whole.format("h200")], res.stdout


def test_call_qm_times_wy3k_on_the_long_calls_after_the_moe_on_an_h200(tmp_path: Path) -> None:
    """``gpu_session_qm.sh``: on an H200 the MoE side by side first (QF's name); on every card wy3k's three points
    against the ahead dispatch above 1,376 tokens under call QM's name (resumable by any later call)."""
    w = "seeds/gdn_prefill_chunked_wy3k"
    contest = _long_step("wy3k_long", f"k_c64w8={w}@BV=32,num_stages=2,num_warps=8 "
                         f"k_c32w8={w}@C=32,BV=64,BV_O=128,num_stages=2,num_warps=8 "
                         f"k_c32w4={w}@C=32,BV=64,BV_O=128,num_stages=2").replace("_qx", "_qm")
    for card, first in (("NVIDIA H200", QF_H200[2:]), ("NVIDIA H100 80GB HBM3", [])):
        res = _call_queue(tmp_path, "gpu_session_qm.sh", card, "qx", QF_STUBS, head="WK=", prelude=QF_PRELUDE)
        assert res.returncode == 0 and res.stdout.splitlines() == first + [contest], (card, res.stdout, res.stderr)
        assert res.stderr.strip() == "band 1377 100000", res.stderr


#: stubs for the seed-point calls (QB, QC): PA's sweep (on an H200 only, as gpu_env.sh's) echoes its call name; a step echoes its script, its --name and
#: the labels of its seed candidates (ARG=seeds/...)
SEED_STEP_STUBS = ('gpu0_log() { :; }\n'
                   'prefill_sweep_on_h200() { card_is H200 || return 1; echo "sweep call=$CALL $*"; }\n'
                   'step() { local s=$3 n="" c=""; while [ $# -gt 0 ]; do [ "$1" = --name ] && n=$2\n'
                   '  case $1 in *=seeds/*) c="$c ${1%%=*}";; esac; shift; done; echo "step $s $n$c"; }\n'
                   'PRE=pre; PRE_SEEDS=seeds\n')


def test_call_qi_times_the_recurrent_seed_on_the_long_calls(tmp_path: Path) -> None:
    """``gpu_session_qi.sh``: on an H200 call PA's sweep first; on every card one contest.py run of the recurrent
    seed's points against the ahead dispatch on the workloads above 1,376 tokens."""
    stubs = SEED_STEP_STUBS + 'left() { echo 400; }\nprefill_band() { echo "band $1 $2" >&2; echo u1,u2; }\n'
    later = ["step benchmarks/contest.py recurrent_long_qi rec rec_bv16 rec_w1"]
    for card, first in [("NVIDIA H200", ["sweep call=pa fla"]), ("NVIDIA H100 80GB HBM3", [])]:
        res = _call_queue(tmp_path, "gpu_session_qi.sh", card, "qi", stubs, head='REC="$PRE_SEEDS',
                          prelude=_gpu_env_function("prefill_long_side_by_side", _ENV)
                          + _gpu_env_function("contest_sweep OP", _ENV))
        assert res.returncode == 0 and res.stdout.splitlines() == first + later, (card, res.stdout, res.stderr)
        assert res.stderr.strip() == "band 1377 100000", res.stderr


def test_pick_workloads_refuses_bad_input() -> None:
    """``scripts/pick_workloads.py`` (behind ``axis_band`` / ``every_nth`` / ``prefill_points``): an unknown operator,
    a malformed point or a point of the wrong length is one clear line and exit 2, not a traceback."""
    pick = [sys.executable, str(REPO / "scripts" / "pick_workloads.py")]
    pre = "gdn_prefill_qk4_v8_d128_k_last"
    cases = [(["band", "no_such_op", "x", "0", "1"], "no workload file for operator 'no_such_op'"),
             (["points", pre, "total_seq_len,num_seqs", "401:x"], "colon-separated integers"),
             (["points", pre, "total_seq_len,num_seqs", "401"], "each value needs 2 numbers"),
             (["every-nth", pre, "total_seq_len", "0"], "N=0 must be >= 1")]
    for args, words in cases:
        got = subprocess.run(pick + args, check=False, capture_output=True, text=True, cwd=REPO)
        assert got.returncode == 2 and words in got.stderr and "Traceback" not in got.stderr, (args, got.stderr)
