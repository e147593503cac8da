"""Bad output paths and stores for the CLI commands: one line, exit code 2, before any work, nothing created
(a mistyped store path used to become a new empty database; a folder given for the traces file a traceback
after the first workload was measured)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "operators" / "rmsnorm_h4096" / "solutions" / "seeds" / "rmsnorm_rowwise"


def _err(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("argv", [["promote", "deadbeef"], ["report", "rmsnorm_h4096"], ["export", "rmsnorm_h4096"]])
def test_read_only_commands_refuse_a_store_that_is_not_there(tmp_path, capsys, argv) -> None:
    db = tmp_path / "typo" / "mlflow.db"  # the mistyped folder is not made either
    assert main([*argv, "--tracking-uri", f"sqlite:///{db}"]) == 2
    assert f"no tracking store at {db}" in _err(capsys)
    assert list(tmp_path.iterdir()) == []


def test_promote_names_what_the_run_id_is_not(tmp_path, capsys) -> None:
    from kernelopt.tracking import TrackingStore

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    campaign = TrackingStore(uri).start_campaign("rmsnorm_h4096", {}, {})
    capsys.readouterr()  # MLflow's log lines of creating the database
    assert main(["promote", "0" * 32, "--tracking-uri", uri]) == 2
    assert f"run '{'0' * 32}' not found in {uri}" in _err(capsys)
    assert main(["promote", campaign, "--tracking-uri", uri]) == 2
    assert "is not a kernelopt candidate run" in _err(capsys)
    (tmp_path / "file").write_text("x")
    assert main(["report", "rmsnorm_h4096", "--tracking-uri", uri, "--out", str(tmp_path / "file")]) == 2
    assert f"--out {tmp_path / 'file'}: is a file; give a folder" in _err(capsys)


def test_evaluate_checks_its_output_paths_before_measuring(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    base = [f"solution={SEED}", "operator.cpu_workload_limit=1", "harness=quick"]
    assert main(["evaluate", *base, "output=folder"]) == 2
    assert "output folder: is a folder; give a file path" in _err(capsys)
    (tmp_path / "plain").write_text("x")  # a file where the profile's folder should be
    assert main(["evaluate", *base, "profile=plain/sub/p.json"]) == 2
    assert "profile plain/sub/p.json: cannot create the folder plain/sub (plain is a file)" in _err(capsys)
    assert main(["evaluate"]) == 2
    assert "Missing mandatory value: solution (give solution=...)" in _err(capsys)
    assert main(["evaluate", *base, "limit=0"]) == 2  # it said 'workload_limit must be >= 1'
    assert "limit=0: must be >= 1 (how many workloads to evaluate; null: all)" in _err(capsys)
    assert not (tmp_path / "traces").exists()


def test_dispatch_into_a_folder_writes_name_json_there(tmp_path, capsys) -> None:
    out = tmp_path / "out"
    out.mkdir()
    assert main(["dispatch", "rmsnorm_h4096", "--axis", "batch_size", "--band", str(SEED),
                 "--band", f"{SEED}@num_warps=4", "--upper", "8", "-o", str(out)]) == 0
    (written,) = out.iterdir()
    assert written.name.startswith("dispatch_batch_size_") and written.suffix == ".json"
    # a folder not made yet, written as one: it was a file named 'new'
    assert main(["dispatch", "rmsnorm_h4096", "--axis", "batch_size", "--band", str(SEED),
                 "--band", f"{SEED}@num_warps=4", "--upper", "8", "-o", f"{tmp_path / 'new'}/"]) == 0
    assert [p.name for p in (tmp_path / "new").iterdir()] == [written.name]


def test_export_of_an_unknown_operator_lists_the_known_ones(tmp_path, capsys) -> None:
    assert main(["export", "nope", "--tracking-uri", f"sqlite:///{tmp_path / 'x.db'}"]) == 2
    err = _err(capsys)
    assert err.startswith("kernelopt export: unknown operator 'nope'") and "rmsnorm_h4096" in err
    assert err.count("export:") == 1


@pytest.mark.parametrize(("extra", "says"), [
    (["--axis", "hidden_size", "--upper", "8"], ("--axis hidden_size: not a var axis of rmsnorm_h4096 (its var "
                                                "axes: batch_size)")),
    (["--axis", "batch_size", "--upper", "0"], "--upper 0: band edges are sizes of batch_size, at least 1"),
])
def test_dispatch_refuses_a_band_no_workload_can_reach(tmp_path, capsys, extra, says) -> None:
    assert main(["dispatch", "rmsnorm_h4096", "--band", str(SEED), "--band", f"{SEED}@num_warps=4",
                 "-o", str(tmp_path / "d.json"), *extra]) == 2
    assert says in _err(capsys) and not (tmp_path / "d.json").exists()


@pytest.mark.parametrize(("override", "says"), [
    ("direction=nope", "direction 'nope': not a direction of rmsnorm_h4096's seeds (fewer_programs, "),
    ("agent.skills=[nope]", "agent.skills: no skill group or skill named 'nope' (groups: general, "),
    ("bottleneck=memroy_bound", "bottleneck 'memroy_bound': not a bottleneck class (memory_bound, "),
    ("parent=" + str(ROOT / "operators" / "gemm_n4096_k4096" / "solutions" / "seeds" / "gemm_tiled"),
     "is for 'gemm_n4096_k4096', not 'rmsnorm_h4096'"),
    ("band=nope", "band 'nope': a band is '<axis> <low>-<high>'"),
    ("band='seq_len 1-16'", "over a var axis of rmsnorm_h4096 (batch_size)"),
])
def test_prompt_previews_only_what_the_platform_could_send(capsys, override, says) -> None:
    """A direction no seed declares, an unknown skill group, a parent of another operator, a band no analysis
    names: one line, exit 2 (they were accepted silently: 'Direction: **nope**', the skills quietly cut)."""
    assert main(["prompt", override]) == 2
    assert says in _err(capsys)


@pytest.mark.parametrize("band", ["all", "batch_size 1-16", "batch_size 7", "batch_size 512 (outlier)"])
def test_prompt_takes_bands_as_the_analysis_names_them(capsys, band) -> None:
    assert main(["prompt", f"band='{band}'", "bottleneck=memory_bound"]) == 0
    assert f"Band in focus: {band}" in capsys.readouterr().out


def test_report_checks_the_compared_campaigns_before_writing_plots(tmp_path, capsys) -> None:
    from kernelopt.tracking import TrackingStore

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    TrackingStore(uri).start_campaign("rmsnorm_h4096", {}, {})
    capsys.readouterr()
    out = tmp_path / "reports"
    assert main(["report", "rmsnorm_h4096", "--tracking-uri", uri, "--out", str(out), "--compare", "nope"]) == 2
    assert "--compare nope: no such campaign run in" in capsys.readouterr().err
    assert not out.exists() or not any(out.rglob("*.png"))


def test_report_compares_each_campaign_once(tmp_path, capsys) -> None:
    """`--compare <old> <latest>` listed the latest twice (once as the report's campaign, once as given)."""
    import json

    from kernelopt.tracking import TrackingStore

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    store = TrackingStore(uri)
    old = store.start_campaign("rmsnorm_h4096", {}, {})
    latest = store.start_campaign("rmsnorm_h4096", {}, {})
    capsys.readouterr()
    out = tmp_path / "reports"
    assert main(["report", "rmsnorm_h4096", "--tracking-uri", uri, "--out", str(out), "--compare", old, latest,
                 old]) == 0
    rows = json.loads((out / latest / "compare.json").read_text())
    assert [r["campaign"] for r in rows] == [latest, old]
