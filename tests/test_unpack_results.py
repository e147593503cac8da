"""scripts/unpack_results.py: device-call archives merged into a checkout without losing traces."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

from operator_helpers import load_script

ROOT = Path(__file__).resolve().parents[1]
unpack_results = load_script("unpack_results", ROOT / "scripts" / "unpack_results.py")
TR = "benchmarks/results/traces_contest_h200/op"
SOL = (ROOT / "benchmarks/results/traces_contest_h200/gdn_prefill_qk4_v8_d128_k_last/retained.solution.json").read_text()


def solution(code_suffix: str = "", note: str = "") -> str:
    """The recorded GDN prefill kernel; ``code_suffix`` changes its code (another version), ``note`` only
    its description (the same kernel)."""
    sol = json.loads(SOL)
    sol["sources"][0]["content"] += code_suffix
    sol["description"] = sol.get("description", "") + note
    return json.dumps(sol)


def rec(uuid: str, status: str = "PASSED", ms: float = 1.0) -> str:
    return json.dumps({"definition": "op", "workload": {"uuid": uuid, "axes": {}},
                       "solution": "s", "evaluation": {"status": status, "performance": {"latency_ms": ms}}})


def archive(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def uuids(path: Path) -> list[str]:
    return [json.loads(line)["workload"]["uuid"] for line in path.read_text().splitlines()]


def test_two_calls_from_the_same_checkout_are_unioned(tmp_path: Path) -> None:
    """Calls S and T both started from a checkout holding w1: each archive holds w1 plus its own new pairs;
    unpacking both keeps every pair once (plain tar would keep only T's)."""
    into = tmp_path / "repo"
    (into / TR).mkdir(parents=True)
    (into / TR / "reference.jsonl").write_text(rec("w1") + "\n")
    (into / TR / "reference.solution.json").write_text(solution())
    s = archive(tmp_path / "s.tgz", {f"{TR}/reference.jsonl": rec("w1") + "\n" + rec("w2") + "\n" + rec("w3") + "\n",
                                     f"{TR}/reference.solution.json": solution(note=" S"),
                                     "benchmarks/results/t.md": "S"})
    t = archive(tmp_path / "t.tgz", {f"{TR}/reference.jsonl": rec("w1") + "\n" + rec("w2", ms=2.0) + "\n",
                                     f"{TR}/reference.solution.json": solution(note=" T"),
                                     "benchmarks/results/t.md": "T"})
    assert unpack_results.main(["--into", str(into), str(s), str(t)]) == 0
    assert uuids(into / TR / "reference.jsonl") == ["w1", "w2", "w3"]
    # both passed on w2: the first record kept (the archive does not overwrite a passed pair)
    assert json.loads((into / TR / "reference.jsonl").read_text().splitlines()[1])["evaluation"]["performance"][
        "latency_ms"] == 1.0
    assert (into / "benchmarks/results/t.md").read_text() == "T"  # other files: the last archive wins
    assert (into / TR / "reference.solution.json").read_text() == solution(note=" T")  # same kernel: newer record


def test_a_retried_failure_is_replaced_and_an_unfinished_line_dropped(tmp_path: Path) -> None:
    into = tmp_path / "repo"
    (into / TR).mkdir(parents=True)
    (into / TR / "fla.jsonl").write_text(rec("w1", "REJECTED") + "\n" + rec("w2") + "\n")
    a = archive(tmp_path / "a.tgz", {f"{TR}/fla.jsonl": rec("w2", "TIMEOUT") + "\n" + rec("w1") + "\n"
                                     + rec("w3")[:20]})
    assert unpack_results.main(["--into", str(into), str(a)]) == 0
    lines = [json.loads(x) for x in (into / TR / "fla.jsonl").read_text().splitlines()]
    assert [(r["workload"]["uuid"], r["evaluation"]["status"]) for r in lines] == [("w1", "PASSED"), ("w2", "PASSED")]


def test_an_empty_archive_copy_never_wipes_traces(tmp_path: Path) -> None:
    into = tmp_path / "repo"
    (into / TR).mkdir(parents=True)
    (into / TR / "tc.jsonl").write_text(rec("w1") + "\n")
    a = archive(tmp_path / "a.tgz", {f"{TR}/tc.jsonl": ""})
    assert unpack_results.main(["--into", str(into), str(a)]) == 0
    assert uuids(into / TR / "tc.jsonl") == ["w1"]


def test_another_kernel_version_is_refused(tmp_path: Path, capsys) -> None:
    into = tmp_path / "repo"
    (into / TR).mkdir(parents=True)
    (into / TR / "retained.jsonl").write_text(rec("w1") + "\n")
    (into / TR / "retained.solution.json").write_text(solution())
    a = archive(tmp_path / "a.tgz", {f"{TR}/retained.jsonl": rec("w2") + "\n", f"{TR}/retained.solution.json": solution("\n# v2\n"),
                                     "../escape.txt": "x"})
    assert unpack_results.main(["--into", str(into), str(a)]) == 1
    assert uuids(into / TR / "retained.jsonl") == ["w1"]
    assert (into / TR / "retained.solution.json").read_text() == solution()
    assert not (tmp_path / "escape.txt").exists()
    out = capsys.readouterr().out
    assert "another version of the kernel" in out and "unsafe path" in out


def test_an_unreadable_archive_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tgz"
    bad.write_bytes(b"not a tar")
    assert unpack_results.main(["--into", str(tmp_path), str(bad)]) == 2


def test_measure_tables_of_two_calls_are_unioned_per_point(tmp_path: Path) -> None:
    into = tmp_path / "repo"
    (into / "benchmarks/results").mkdir(parents=True)
    name = "benchmarks/results/controller_space_x_h200.json"
    meta = {"operator": "op", "workloads": ["w1", "w2"], "fix": {"A": 1}}
    (into / name).write_text(json.dumps({**meta, "latency_ms": {"h1": {"w1": 1.0, "w2": 2.0}}, "names": {"h1": "p1"}}))
    later = {**meta, "latency_ms": {"h2": {"w1": 3.0, "w2": None}}, "names": {"h2": "p2"}, "stamp": "later"}
    other = {**meta, "fix": {"A": 2}, "latency_ms": {"h3": {}}, "names": {}}
    a = archive(tmp_path / "a.tgz", {name: json.dumps(later), "benchmarks/results/other.json": json.dumps(other)})
    (into / "benchmarks/results/other.json").write_text(json.dumps({**meta, "latency_ms": {"h1": {}}}))
    assert unpack_results.main(["--into", str(into), str(a)]) == 0
    got = json.loads((into / name).read_text())
    assert set(got["latency_ms"]) == {"h1", "h2"} and got["names"] == {"h1": "p1", "h2": "p2"}
    assert got["stamp"] == "later" and got["latency_ms"]["h2"]["w2"] is None
    # a --retry-failed point that passes now replaces the checkout's failure (and its failure line); a point
    # measured in both with as many passes keeps the checkout's figures
    mine = {"h1": {"w1": 1.0, "w2": 2.0}, "h2": {"w1": None, "w2": None}}
    (into / name).write_text(json.dumps({**meta, "latency_ms": mine, "names": {"h1": "p1", "h2": "p2"},
                                         "failed": {"h2": {"log": "INCORRECT"}}}))
    theirs = {"h1": {"w1": 9.0, "w2": 9.0}, "h2": {"w1": 3.0, "w2": 4.0}}
    retry = {**meta, "latency_ms": theirs, "names": {}, "failed": {}}
    b = archive(tmp_path / "b.tgz", {name: json.dumps(retry)})
    assert unpack_results.main(["--into", str(into), str(b)]) == 0
    got = json.loads((into / name).read_text())
    assert got["latency_ms"] == {"h1": {"w1": 1.0, "w2": 2.0}, "h2": {"w1": 3.0, "w2": 4.0}} and got["failed"] == {}
    # another sub-space under the same name: the archive's copy, as written
    assert json.loads((into / "benchmarks/results/other.json").read_text()) == other


def test_a_file_under_a_packed_root_is_written_but_flagged(tmp_path: Path, capsys) -> None:
    """A call writing into a folder that scripts/results_archive.py packed (git ignores it) would lose its results
    at the next commit: the file is written, noted, and the exit code says something needs a look."""
    into = tmp_path / "repo"
    folder = into / "benchmarks/results/archive"
    folder.mkdir(parents=True)
    (folder / "old.json").write_text(json.dumps({"name": "old", "roots": ["benchmarks/results/profiles_v/scratch_a"],
                                                 "kinds": {}, "files": []}))
    a = archive(tmp_path / "a.tgz", {"benchmarks/results/profiles_v/scratch_a/t.md": "x",
                                     "benchmarks/results/profiles_v/scratch_ab/t.md": "y"})
    assert unpack_results.main(["--into", str(into), str(a)]) == 1
    out = capsys.readouterr().out
    assert "2 file(s) written or merged, 1 skipped" in out
    assert "scratch_a/t.md: written under benchmarks/results/profiles_v/scratch_a, packed in" in out
    assert "scratch_ab/t.md: written" not in out
    assert (into / "benchmarks/results/profiles_v/scratch_a/t.md").read_text() == "x"
