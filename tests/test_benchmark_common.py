"""benchmarks/_common.py: the command-line checks every benchmark script shares (one line, exit status 2)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from _common import results_path, write_results


@pytest.mark.parametrize(("name", "make", "why"), [
    ("x", "out_file", "is a file; give a folder"),
    ("sub/x", None, "a file name stem, not a path"),
    ("x", "json_dir", "is a folder; give a file path"),
    ("x", "md_dir", "is a folder; give a file path"),
])
def test_results_paths_are_checked_before_anything_is_written(tmp_path: Path, capsys, name: str, make: str | None,
                                                              why: str) -> None:
    out = tmp_path / "out"
    if make == "out_file":
        out.write_text("")
    elif make:
        (out / ("x.json" if make == "json_dir" else "x.md")).mkdir(parents=True)
    with pytest.raises(SystemExit) as exc:
        write_results(name, {"a": 1}, "# md", out)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert why in err and len(err.strip().splitlines()) == 1
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix in (".json", ".md")]


def test_results_path_names_the_script_and_accepts_a_folder_to_make(tmp_path: Path, capsys) -> None:
    assert results_path("x", tmp_path / "new" / "deeper", "demo.py") == tmp_path / "new" / "deeper" / "x.json"
    assert not (tmp_path / "new").exists()  # checked, not made
    with pytest.raises(SystemExit):
        results_path("a/b", tmp_path, "demo.py")
    assert capsys.readouterr().err.startswith("demo.py: error: --name a/b:")
    path = write_results("x", {"a": 1}, "# md", tmp_path / "new")
    assert path.is_file() and path.with_suffix(".md").read_text() == "# md\n"


def test_an_unknown_operator_is_one_line_and_exit_2(capsys) -> None:
    """The GPU benchmarks' ``operator_and_solution`` and the trace scripts share ``load_operator_arg``."""
    from _common import load_operator_arg, operator_and_solution

    assert load_operator_arg("demo.py", "rmsnorm_h4096").name == "rmsnorm_h4096"
    for call in (lambda: load_operator_arg("demo.py", "nope"), lambda: operator_and_solution("demo.py", "nope", "x")):
        with pytest.raises(SystemExit) as exc:
            call()
        err = capsys.readouterr().err
        assert exc.value.code == 2 and err.startswith("demo.py: error: ") and len(err.strip().splitlines()) == 1
