"""`kernelopt completion bash`: the script a user evals, run in a real bash against the real commands."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernelopt.cli.main import main

KERNELOPT = Path(sys.executable).parent / "kernelopt"
pytestmark = pytest.mark.skipif(shutil.which("bash") is None or not KERNELOPT.exists(),
                                reason="needs bash and the installed kernelopt script")

# each case: the line up to the cursor, bash's COMP_WORDS for it (split at '=' as COMP_WORDBREAKS does)
CASES = {
    "op": (["op"], {"operators", "optimize"}),
    "optimize controller.max": (["optimize", "controller.max"],
                                {"controller.max_candidates=", "controller.max_rounds="}),
    "optimize agent=": (["optimize", "agent", "=", ""], {"agent_assisted", "full_agent"}),  # no agent_schema
    "evaluate operator=rms": (["evaluate", "operator", "=", "rms"], {"rmsnorm_h4096"}),
}


def _complete(script: Path, line: str, words: list[str]) -> set[str]:
    words = [str(KERNELOPT), *words]
    prog = (f"source {script}\nCOMP_LINE='{KERNELOPT} {line}'; COMP_POINT=${{#COMP_LINE}}\n"
            f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
            "_kernelopt_complete; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    r = subprocess.run(["bash", "-c", prog], capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    return {w for w in r.stdout.split("\n") if w}


def test_the_script_completes_commands_keys_and_group_options(tmp_path: Path, capsys) -> None:
    assert main(["completion", "bash"]) == 0
    script = tmp_path / "kernelopt.bash"
    script.write_text(capsys.readouterr().out)
    assert "complete -F _kernelopt_complete kernelopt" in script.read_text()
    for line, (words, expected) in CASES.items():
        assert _complete(script, line, words) == expected, line


def test_hydra_help_points_at_it(capsys) -> None:
    """Hydra's -sc install lines name `kernelopt-optimize`, which is no program here."""
    with pytest.raises(SystemExit):
        main(["optimize", "--hydra-help"])
    assert capsys.readouterr().out.rstrip().endswith(
        'eval "$(kernelopt completion bash)" (the -sc lines above complete a one-word program, '
        "kernelopt-<command>, which is not installed)")
