"""``benchmarks/decode_bands.py``: the fastest checked row per batch size, merged into a composed dispatch."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import decode_bands

SEEDS = "operators/gdn_decode_qk4_v8_d128_k_last/solutions/seeds"
SOLUTIONS = {"a": f"{SEEDS}/gdn_decode_lean@BV=4", "b": f"{SEEDS}/gdn_decode_vtile@BV=8,num_warps=8",
             "c": f"{SEEDS}/gdn_decode_lean@BV=2"}


def _result(rows: list[tuple[int, str, float, str | None]]) -> dict:
    return {"solutions": SOLUTIONS,
            "rows": [{"batch_size": b, "row": r, "ms": ms, "check": chk} for b, r, ms, chk in rows]}


def test_fastest_checked_row_per_batch_and_merged_bands() -> None:
    data = _result([(1, "copy", 0.001, None), (1, "a", 0.0020, "ok"), (1, "b", 0.0021, "ok"),
                    (4, "a", 0.0029, "ok"), (4, "b", 0.0028, "ok"), (4, "c", 0.0010, "WRONG: max abs 1"),
                    (8, "a", 0.0039, "ok"), (8, "b", 0.0037, "ok"), (16, "a", 0.0056, "ok"), (16, "b", 0.0060, "ok")])
    chosen = decode_bands.picks(data, None)
    # the copy is not a solution row; c is fastest at batch 4 but failed its check
    assert [(b, r) for b, r, _ in chosen] == [(1, "a"), (4, "b"), (8, "b"), (16, "a")]
    assert decode_bands.bands(chosen) == [("a", 1), ("b", 8), ("a", 16)]
    assert [(b, r) for b, r, _ in decode_bands.picks(data, ["a"])] == [(1, "a"), (4, "a"), (8, "a"), (16, "a")]


def test_no_eligible_row_or_unknown_row_is_an_error() -> None:
    data = _result([(1, "a", 0.002, "ok"), (4, "a", 0.003, "WRONG")])
    with pytest.raises(ValueError, match=r"batch size\(s\) \[4\]"):
        decode_bands.picks(data, None)
    with pytest.raises(ValueError, match="not solution rows"):
        decode_bands.picks(data, ["zz"])


def test_writes_the_same_dispatch_as_kernelopt_dispatch(tmp_path: Path) -> None:
    res = tmp_path / "ceiling.json"
    res.write_text(json.dumps(_result([(1, "a", 0.0020, "ok"), (1, "b", 0.0021, "ok"),
                                       (8, "a", 0.0040, "ok"), (8, "b", 0.0037, "ok")])))
    out, picks = tmp_path / "picked.json", tmp_path / "picks.json"
    above = f"{SEEDS}/gdn_decode_lean@OUT_FROM_OLD=0"
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "decode_bands.py"), "--results", str(res),
                           "--above", above, "-o", str(out), "--picks", str(picks)],
                          check=False, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    ref = tmp_path / "ref.json"
    subprocess.run([sys.executable, "-m", "kernelopt.cli.main", "dispatch", "gdn_decode_qk4_v8_d128_k_last",
                    "--axis", "batch_size", "--band", SOLUTIONS["a"], "--upper", "1", "--band", SOLUTIONS["b"],
                    "--upper", "8", "--band", above, "-o", str(ref)], check=True, cwd=REPO, capture_output=True)
    assert out.read_text() == ref.read_text()
    recorded = json.loads(picks.read_text())
    assert [(p["batch_size"], p["row"]) for p in recorded["picks"]] == [(1, "a"), (8, "b")]
    # the commands recorded can be run as written: this script's, and the dispatch's from the repository's root
    assert recorded["command"].startswith("python benchmarks/decode_bands.py --results ")
    assert recorded["dispatch_command"].startswith("python -m kernelopt.cli.main dispatch gdn_decode_")
    again = tmp_path / "again.json"
    rerun = shlex.split(recorded["dispatch_command"].replace(str(out), str(again)))
    subprocess.run([sys.executable, *rerun[1:]], check=True, cwd=REPO, capture_output=True)
    assert again.read_text() == out.read_text()

    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "decode_bands.py"), "--results", str(bad),
                           "--above", above, "-o", str(tmp_path / "x.json")], capture_output=True, text=True,
                          check=False, timeout=120, cwd=tmp_path)
    assert proc.returncode == 1 and "decode_bands:" in proc.stderr and not (tmp_path / "x.json").exists()


def test_min_gain_keeps_the_previous_pick_within_the_noise() -> None:
    data = _result([(16, "a", 0.0058, "ok"), (16, "b", 0.0061, "ok"), (32, "a", 0.0097, "ok"),
                    (32, "b", 0.0098, "ok"), (48, "b", 0.0144, "ok"), (48, "a", 0.01446, "ok"),
                    (64, "b", 0.0180, "ok"), (64, "a", 0.0184, "ok")])
    assert [r for _, r, _ in decode_bands.picks(data, None)] == ["a", "a", "b", "b"]
    # 48: a is 0.4 % slower than b: kept at 1 %; 64: a is 2.2 % slower: b takes over
    assert [r for _, r, _ in decode_bands.picks(data, None, 0.01)] == ["a", "a", "a", "b"]
    assert [ms for _, _, ms in decode_bands.picks(data, None, 0.01)][2] == 0.01446


def test_a_last_band_running_the_solution_above_merges_into_it() -> None:
    cmd = decode_bands.dispatch_command({"solutions": SOLUTIONS}, [("b", 8), ("a", 64)], SOLUTIONS["a"], "o.json")
    assert cmd[cmd.index("--axis"):] == ["--axis", "batch_size", "--band", SOLUTIONS["b"], "--upper", "8",
                                         "--band", SOLUTIONS["a"], "-o", "o.json"]


def test_output_paths_are_checked_before_any_work(tmp_path: Path, capsys) -> None:
    """The default record overwrote a committed one (``-o`` elsewhere with the same stem); a ``--picks`` that could
    not be written was a traceback after the dispatch file was written."""
    res = tmp_path / "ceiling.json"
    res.write_text(json.dumps(_result([(1, "a", 0.0020, "ok"), (8, "b", 0.0037, "ok")])))
    assert (REPO / "benchmarks" / "results" / "decode_bands_picked_dk.json").is_file()
    (tmp_path / "file").write_text("")
    (tmp_path / "folder").mkdir()
    base = ["--results", str(res), "--above", SOLUTIONS["a"]]
    for extra, why in (
            (["-o", str(tmp_path / "picked_dk.json")], "decode_bands_picked_dk.json exists (another pick): give --picks"),
            (["-o", str(tmp_path / "x.json"), "--picks", str(tmp_path / "file" / "p.json")], "cannot create the folder"),
            (["-o", str(tmp_path / "x.json"), "--picks", str(tmp_path / "folder")], "is a folder"),
            (["-o", str(tmp_path / "folder")], "-o")):
        with pytest.raises(SystemExit) as exc:
            decode_bands.main(base + extra)
        out = capsys.readouterr()
        assert exc.value.code == 2 and out.out == "" and why in out.err, out.err
        assert out.err.startswith("decode_bands.py: error: ") and len(out.err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ceiling.json", "file", "folder"]


def test_a_result_of_another_shape_says_what_it_expects(tmp_path: Path, capsys) -> None:
    for content in ({"a": 1}, [1], {"solutions": {}, "rows": [{"x": 1}]}):
        res = tmp_path / "other.json"
        res.write_text(json.dumps(content))
        assert decode_bands.main(["--results", str(res), "--above", "x", "-o", str(tmp_path / "x.json")]) == 1
        assert "expected decode_copy_ceiling.py's result: an object with 'solutions'" in capsys.readouterr().err
