"""`kernelopt doctor` end to end: a real CLI process that starts a real evaluation worker and loads the real
operator library and configs; bad settings and a broken library make it fail with the reason."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from kernelopt.cli.doctor import STATUSES
from kernelopt.executor import netns, readonly_mounts
from kernelopt.operators import OPERATORS_DIR


def _doctor(tmp_path: Path, *args: str, without: str | None = None,
            **env: str) -> tuple[int, dict[str, dict[str, str]]]:
    """``kernelopt doctor --json`` in a new process (``without``: a module that process cannot import)."""
    full = {**{k: v for k, v in os.environ.items() if not k.startswith("KERNELOPT_WORKER_")},
            "CUDA_VISIBLE_DEVICES": "", **env}
    start = ["-m", "kernelopt.cli.main"] if without is None else [
        "-c", f"import sys; sys.modules[{without!r}] = None  # as if not installed\n"
              "from kernelopt.cli.main import main; sys.exit(main(sys.argv[1:]))"]
    out = subprocess.run([sys.executable, *start, "doctor", "--json", *args], cwd=tmp_path,
                         env=full, capture_output=True, text=True, timeout=300, check=False)
    checks = json.loads(out.stdout)
    return out.returncode, {c["name"]: c for c in checks}


def test_every_check_reports_and_a_healthy_machine_exits_0(tmp_path):
    code, checks = _doctor(tmp_path)
    assert code == 0, checks
    assert list(checks) == ["software", "gpu", "cupti timer", "nsight compute", "device ceilings", "worker network",
                            "worker files", "operators", "configs", "tracking", "llm backends"]
    assert all(c["status"] in STATUSES for c in checks.values())
    assert checks["gpu"]["status"] == "info" and "Triton interpreter" in checks["gpu"]["detail"]
    assert checks["device ceilings"]["status"] == "info" and "no GPU" in checks["device ceilings"]["detail"]
    assert checks["operators"]["status"] == "ok" and "operators" in checks["operators"]["detail"]
    assert checks["configs"]["status"] == "ok" and "optimize composes" in checks["configs"]["detail"]
    assert str(tmp_path / "mlruns" / "mlflow.db") in checks["tracking"]["detail"]
    assert not (tmp_path / "mlruns").exists()  # the doctor makes no store
    for name, sandbox in (("worker network", netns.SANDBOX), ("worker files", readonly_mounts.SANDBOX)):
        # what a worker reports: ok where the kernel gives it, else a warning naming why
        assert checks[name]["status"] == ("ok" if sandbox.met(checks[name]["detail"]) else "warn"), checks[name]


def test_sandboxes_turned_off_are_facts_not_warnings(tmp_path):
    code, checks = _doctor(tmp_path, **{netns.NETWORK_ENV: "host", readonly_mounts.FILES_ENV: "writable"})
    assert code == 0
    assert checks["worker network"] == {"name": "worker network", "status": "info",
                                        "detail": "host (executor.network=host)"}
    assert checks["worker files"]["status"] == "info" and "executor.files=writable" in checks["worker files"]["detail"]


def test_a_worker_that_cannot_start_fails_with_the_reason(tmp_path):
    code, checks = _doctor(tmp_path, **{readonly_mounts.FILES_ENV: "sometimes"})
    assert code == 1
    assert checks["worker"]["status"] == "fail" and "'sometimes' is not a files mode" in checks["worker"]["detail"]


def test_a_broken_operator_library_and_tracking_path_fail(tmp_path):
    root = tmp_path / "operators"
    shutil.copytree(OPERATORS_DIR / "rmsnorm_h4096", root / "rmsnorm_h4096")
    (root / "broken_op").mkdir()
    (root / "broken_op" / "definition.json").write_text("{ not json")
    code, checks = _doctor(tmp_path, "--tracking-uri", "store.txt", KERNELOPT_OPERATORS_DIR=str(root))
    assert code == 1
    assert checks["operators"]["status"] == "fail"
    assert checks["operators"]["detail"].startswith("1 of 2 do not load: broken_op:")
    assert checks["tracking"]["status"] == "fail" and "store.txt" in checks["tracking"]["detail"]


def test_a_machine_without_mlflow_is_told_what_needs_it(tmp_path):
    """The GPU machine's evaluation wheels carry no mlflow: the tracking check names the package and what needs it
    (was: "ModuleNotFoundError: No module named 'mlflow'"); every other check still runs."""
    code, checks = _doctor(tmp_path, without="mlflow")
    assert code == 1
    assert checks["tracking"]["status"] == "fail"
    assert checks["tracking"]["detail"].startswith("mlflow is not installed: campaigns (`kernelopt optimize`)")
    assert checks["operators"]["status"] == "ok" and checks["configs"]["status"] == "ok"
