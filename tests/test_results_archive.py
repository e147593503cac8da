"""scripts/results_archive.py: older call outputs packed into xz archives in the checkout, unpacked in place."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from operator_helpers import load_script

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "results_archive.py"


def _mod():
    return load_script("results_archive", SCRIPT)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    res = tmp_path / "benchmarks" / "results"
    (res / "profiles_v" / "scratch_a" / "op").mkdir(parents=True)
    (res / "profiles_v" / "scratch_a" / "op" / "t.jsonl").write_text('{"uuid": "w1"}\n' * 50)
    (res / "profiles_v" / "scratch_a" / "op" / "s.json").write_text('{"name": "x"}\n')
    (res / "profiles_v" / "scratch_b").mkdir()
    (res / "profiles_v" / "scratch_b" / "t.jsonl").write_text("b\n")
    (res / "logs").mkdir()
    (res / "logs" / "old.log").write_text("log\n" * 100)
    (res / "logs" / "new.log").write_text("new\n")
    (res / ".gitignore").write_text("# hand-written line kept\n*.tmp\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        'B = REPO / "benchmarks" / "results" / "profiles_v" / "scratch_b"\n')
    return tmp_path


def test_pack_unpack_round_trip(repo: Path) -> None:
    mod = _mod()
    before = _tree(repo)
    roots = ["benchmarks/results/profiles_v/scratch_a", str(repo / "benchmarks/results/logs/old.log")]
    man = mod.pack(repo, "calls_a", roots)
    assert [f["path"] for f in man["files"]] == ["benchmarks/results/logs/old.log",
                                                 "benchmarks/results/profiles_v/scratch_a/op/s.json",
                                                 "benchmarks/results/profiles_v/scratch_a/op/t.jsonl"]
    assert man["archive_bytes"] < man["bytes"]
    res = repo / "benchmarks" / "results"
    # packed files and their emptied folders are gone; the rest stays
    assert not (res / "profiles_v" / "scratch_a").exists() and not (res / "logs" / "old.log").exists()
    assert (res / "logs" / "new.log").is_file() and (res / "profiles_v" / "scratch_b" / "t.jsonl").is_file()
    ignore = (res / ".gitignore").read_text()
    assert ignore.startswith("# hand-written line kept\n*.tmp\n")
    assert "/profiles_v/scratch_a/\n" in ignore and "/logs/old.log\n" in ignore and "new.log" not in ignore
    assert mod.check(repo) == []
    assert mod.unpack(repo, []) == (3, [])
    assert _tree(repo) == {**before, "benchmarks/results/.gitignore": ignore.encode(),
                           "benchmarks/results/archive/calls_a.tar.xz":
                               (res / "archive" / "calls_a.tar.xz").read_bytes(),
                           "benchmarks/results/archive/calls_a.json": (res / "archive" / "calls_a.json").read_bytes()}
    assert mod.unpack(repo, ["calls_a"]) == (0, [])  # already there, same bytes


def test_packing_the_same_files_again_gives_the_same_archive(repo: Path, tmp_path_factory) -> None:
    mod = _mod()
    other = tmp_path_factory.mktemp("copy")
    for rel, data in _tree(repo).items():
        (other / rel).parent.mkdir(parents=True, exist_ok=True)
        (other / rel).write_bytes(data)
    mod.pack(repo, "a", ["benchmarks/results/logs"])
    mod.pack(other, "a", ["benchmarks/results/logs"])
    assert (repo / "benchmarks/results/archive/a.tar.xz").read_bytes() == \
        (other / "benchmarks/results/archive/a.tar.xz").read_bytes()


def test_unpack_leaves_a_changed_file_alone_and_check_finds_tampering(repo: Path) -> None:
    mod = _mod()
    mod.pack(repo, "a", ["benchmarks/results/logs/old.log"])
    (repo / "benchmarks/results/logs/old.log").write_text("edited\n")
    assert mod.unpack(repo, []) == (0, ["benchmarks/results/logs/old.log"])
    assert (repo / "benchmarks/results/logs/old.log").read_text() == "edited\n"
    man_file = repo / "benchmarks/results/archive/a.json"
    man = json.loads(man_file.read_text())
    man["files"][0]["sha256"] = "0" * 64
    man_file.write_text(json.dumps(man))
    assert mod.check(repo) == ["a: benchmarks/results/logs/old.log differs from its manifest"]
    (repo / "benchmarks/results/.gitignore").write_text("")
    assert any(".gitignore is not the one" in p for p in mod.check(repo))


@pytest.mark.parametrize("paths, message", [
    (["benchmarks/results/profiles_v/scratch_b"], "is read by tests/test_x.py"),
    (["kernelopt"], "only files and folders under benchmarks/results/"),
    (["benchmarks/results/archive"], "only files and folders under benchmarks/results/"),
    (["benchmarks/results/nope"], "no such file or folder"),
    (["benchmarks/results/logs/a[1].log"], "a character .gitignore reads as a pattern"),
    (["benchmarks/results/profiles_v", "benchmarks/results/profiles_v/scratch_a"], "inside another root"),
])
def test_pack_refuses(repo: Path, paths: list[str], message: str) -> None:
    mod = _mod()
    before = _tree(repo)
    with pytest.raises(mod.ArchiveError, match=message):
        mod.pack(repo, "a", paths)
    assert _tree(repo) == before  # nothing removed, nothing written


def test_cli_exit_codes(repo: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(SCRIPT), "--root", str(repo), *args], capture_output=True,
                              text=True, check=False)
    assert run("pack", "a", "benchmarks/results/logs/old.log").returncode == 0
    assert run("pack", "a", "benchmarks/results/logs/new.log").returncode == 2  # the name is taken
    assert "a: 1 files" in run("list").stdout
    assert run("unpack", "zzz").returncode == 2
    assert run("unpack").returncode == 0 and run("check").returncode == 0


def test_the_committed_archives_match_their_manifests_and_ignores() -> None:
    """Every archive in benchmarks/results/archive/ holds exactly the files its manifest lists, byte for byte, and
    benchmarks/results/.gitignore lists their roots; no archived path is also a tracked file of the checkout."""
    mod = _mod()
    assert mod.check(REPO) == []
    tracked = set(subprocess.run(["git", "ls-files", "benchmarks/results"], cwd=REPO, capture_output=True, text=True,
                                 check=True).stdout.split())
    packed = {f["path"] for m in mod.manifests(REPO).values() for f in m["files"]}
    assert not packed & tracked
