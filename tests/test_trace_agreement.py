"""benchmarks/trace_agreement.py: per-band agreement of two trace files, on copies of committed H200 traces."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from trace_agreement import agreement, faster, main

PRE = "gdn_prefill_qk4_v8_d128_k_last"
BF = REPO / "benchmarks" / "results" / "profiles_v" / "contest_scratch_bf" / PRE / "retained.jsonl"


def _scaled(src: Path, dst: Path, factor: float, lo: int, hi: int, drop: int = 0) -> None:
    """``src`` with the latencies of workloads of lo..hi tokens multiplied by ``factor`` and its first ``drop``
    records left out."""
    out = []
    for line in src.read_text().splitlines()[drop:]:
        t = json.loads(line)
        if lo <= t["workload"]["axes"]["total_seq_len"] <= hi:
            t["evaluation"]["performance"]["latency_ms"] *= factor
        out.append(json.dumps(t))
    dst.write_text("\n".join(out) + "\n")


def test_a_file_against_itself_agrees_and_a_scaled_band_shows_its_factor(tmp_path: Path) -> None:
    same = agreement(PRE, BF, BF)
    assert same["workloads"] == 100 and same["ratio_of_means"] == pytest.approx(1.0)
    assert all(b["ratio_min"] == pytest.approx(1.0) == b["ratio_max"] for b in same["bands"])
    scaled = tmp_path / "b.jsonl"
    _scaled(BF, scaled, 1.5, 461, 2284, drop=3)
    r = agreement(PRE, BF, scaled)
    assert r["workloads"] == 97
    by = {b["band"]: b for b in r["bands"]}
    assert by["total_seq_len 461-2284"]["ratio_of_means"] == pytest.approx(1.5)
    assert by["total_seq_len 461-2284"]["ratio_min"] == pytest.approx(1.5)
    assert by["total_seq_len 2857-8192"]["ratio_of_means"] == pytest.approx(1.0)
    assert sum(b["workloads"] for b in r["bands"]) == 97


def test_the_command_writes_its_table_and_refuses_bad_input(tmp_path: Path, capsys) -> None:
    assert main(["--operator", PRE, "--a", str(BF), "--b", str(BF), "--name", "t", "--out", str(tmp_path)]) == 0
    md = (tmp_path / "t.md").read_text()
    assert "| total_seq_len 6-49 | 27 |" in md and "**1.000**" in md
    assert json.loads((tmp_path / "t.json").read_text())["command"] == (
        f"python benchmarks/trace_agreement.py --operator {PRE} --a {BF} --b {BF} --name t --out {tmp_path}")
    with pytest.raises(SystemExit):
        main(["--operator", PRE, "--a", str(tmp_path / "missing.jsonl"), "--b", str(BF)])
    assert "no such trace file" in capsys.readouterr().err
    failed = tmp_path / "failed.jsonl"
    failed.write_text("".join(json.dumps({**t, "evaluation": {**t["evaluation"], "status": "INCORRECT_NUMERICAL",
                                                               "performance": None}}) + "\n"
                              for t in map(json.loads, BF.read_text().splitlines())))
    with pytest.raises(SystemExit, match="no workload passed in both"):
        agreement(PRE, BF, failed)


def test_axis_groups_by_each_value_of_a_workload_axis(tmp_path: Path) -> None:
    scaled = tmp_path / "b.jsonl"
    _scaled(BF, scaled, 2.0, 461, 461)
    r = agreement(PRE, BF, scaled, axis="total_seq_len")
    by = {b["band"]: b for b in r["bands"]}
    assert r["band_axis"] == "total_seq_len" and sum(b["workloads"] for b in r["bands"]) == 100
    assert by["total_seq_len 461"]["ratio_of_means"] == pytest.approx(2.0)
    assert all(b["ratio_of_means"] == pytest.approx(1.0) for n, b in by.items() if n != "total_seq_len 461")
    assert [int(n.split()[1]) for n in by] == sorted(int(n.split()[1]) for n in by)  # in the axis's order
    with pytest.raises(SystemExit, match="no axis 'batch_size'"):
        agreement(PRE, BF, BF, axis="batch_size")


def test_faster_names_the_faster_file_only_when_it_passed_as_much(tmp_path: Path, capsys) -> None:
    quicker, missing = tmp_path / "quick.jsonl", tmp_path / "missing.jsonl"
    _scaled(BF, quicker, 0.9, 2857, 8192)
    _scaled(BF, missing, 0.5, 0, 100000, drop=1)  # faster everywhere, but one workload short
    assert faster(BF, quicker, PRE) == "b" and faster(quicker, BF, PRE) == "a"
    assert faster(BF, missing, PRE) == "a"
    assert main(["--operator", PRE, "--a", str(BF), "--b", str(quicker), "--faster"]) == 0
    assert capsys.readouterr().out.strip() == "b"


def test_bad_results_paths_are_refused_before_any_work(tmp_path: Path, capsys) -> None:
    """``--name sub/x``, ``--out`` a file, ``<name>.json`` a folder: one line, exit 2, nothing written."""
    (tmp_path / "t.json").mkdir()
    (tmp_path / "file").write_text("")
    for extra in (["--name", "sub/x", "--out", str(tmp_path)], ["--name", "t", "--out", str(tmp_path / "file")],
                  ["--name", "t", "--out", str(tmp_path)]):
        with pytest.raises(SystemExit) as exc:
            main(["--operator", PRE, "--a", str(BF), "--b", str(BF), *extra])
        out = capsys.readouterr()
        assert exc.value.code == 2 and out.out == "" and out.err.startswith("trace_agreement.py: error: ")
    assert not (tmp_path / "t.md").exists() and not (tmp_path / "sub").exists()


def test_an_unknown_operator_is_one_line(capsys) -> None:
    for extra in ([], ["--faster"]):
        with pytest.raises(SystemExit) as exc:
            main(["--operator", "nope", "--a", str(BF), "--b", str(BF), *extra])
        out = capsys.readouterr()
        assert exc.value.code == 2 and out.out == ""
        assert out.err.startswith("trace_agreement.py: error: ") and "nope" in out.err
        assert len(out.err.strip().splitlines()) == 1


def test_files_of_another_operator_or_without_traces_are_refused(tmp_path: Path, capsys) -> None:
    """``--faster`` ignored ``--operator`` (files of another operator, two empty files: it printed a or b, exit 0);
    the table said only 'no workload passed in both'."""
    other = REPO / "benchmarks" / "results" / "traces_contest_h200" / "gdn_decode_qk4_v8_d128_k_last" / "fla.jsonl"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    for a, b, why in ((BF, other, f"{other} holds traces of gdn_decode_qk4_v8_d128_k_last, not {PRE}"),
                      (other, BF, f"{other} holds traces of gdn_decode_qk4_v8_d128_k_last, not {PRE}"),
                      (empty, empty, f"{empty} holds no traces"), (BF, empty, f"{empty} holds no traces")):
        for extra in ([], ["--faster"]):
            with pytest.raises(SystemExit, match=re.escape(why)):
                main(["--operator", PRE, "--a", str(a), "--b", str(b), *extra])
            assert capsys.readouterr().out == ""
