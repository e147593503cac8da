"""Evaluation workers see the checkout and the operator library read-only (kernelopt.executor.readonly_mounts):
real worker subprocesses, a real copy of an operator folder, a candidate that rewrites its harness.json."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernelopt.executor import CpuExecutor, readonly_mounts
from kernelopt.executor.readonly_mounts import plan
from kernelopt.operators import OPERATORS_DIR

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adversarial"))
from adversarial_helpers import corpus_solution, request_for

PROBE = "from kernelopt.executor import readonly_mounts; print(readonly_mounts.apply('readonly'))"


def _probe(code: str, *prefix: str) -> subprocess.CompletedProcess[str]:
    path = [str(Path(__file__).resolve().parents[2]), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return subprocess.run([*prefix, sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          check=False, cwd="/", env=env)


STATUS = _probe(PROBE).stdout.strip()
needs_mounts = pytest.mark.skipif(not readonly_mounts.SANDBOX.met(STATUS),
                                  reason=f"this kernel refuses mount namespaces: {STATUS}")


def test_plan_keeps_outer_roots_and_the_writable_folders_strictly_inside(tmp_path):
    for d in ("repo/operators/x/solutions", "repo/cache", "elsewhere", "repo/kernelopt"):
        (tmp_path / d).mkdir(parents=True)
    repo = tmp_path / "repo"
    roots, holes = plan([repo, repo / "operators", tmp_path / "missing"],
                        [repo / "cache", repo / "cache" / "inner", tmp_path / "elsewhere", tmp_path, repo,
                         repo / "new" / "folder"])
    assert roots == [repo]  # the library inside the checkout is covered by it; a missing root is left out
    # inside: kept (a folder that does not exist yet is made at mount time); outside, or holding a root: dropped
    assert holes == [repo / "cache", repo / "new" / "folder"]


def _writer(tmp_path: Path, **env: str):
    """The cheat that rewrites operators/rmsnorm_h4096/harness.json, through a real worker, on a copy."""
    root = tmp_path / "operators"
    shutil.copytree(OPERATORS_DIR / "rmsnorm_h4096", root / "rmsnorm_h4096")
    before = (root / "rmsnorm_h4096" / "harness.json").read_text()
    with CpuExecutor(env={"KERNELOPT_CACHE_DIR": str(tmp_path / "builds"), "KERNELOPT_OPERATORS_DIR": str(root),
                          **env}) as ex:
        res = ex.evaluate_many([request_for(corpus_solution("cheats", "writes_operator_files"), (1,))])[0]
    return res, before, (root / "rmsnorm_h4096" / "harness.json").read_text()


@needs_mounts
def test_a_candidate_cannot_write_the_operator_files(tmp_path):
    res, before, after = _writer(tmp_path)
    assert after == before  # prevented, not only detected
    assert [r.status.value for r in res.results] == ["RUNTIME_ERROR"], res.results[0].log
    assert "Read-only file system" in res.results[0].log
    assert readonly_mounts.SANDBOX.met(res.environment["sandbox"]["files"]), res.environment["sandbox"]


def test_with_executor_files_writable_the_write_happens_and_is_rejected(tmp_path):
    """The candidate and the copy are writable: only the mounts stop the write above; detection stays."""
    res, before, after = _writer(tmp_path, **{readonly_mounts.FILES_ENV: "writable"})
    assert after != before
    assert [r.status.value for r in res.results] == ["REJECTED"], res.results[0].log
    assert "wrote to protected files" in res.results[0].log
    assert res.environment["sandbox"]["files"] == "writable (executor.files=writable)"


_REMOUNT = """
import ctypes, os
from kernelopt.executor import netns, readonly_mounts as r
print(netns.apply('isolated'))
print(r.apply('readonly'))
root = os.environ['PYTHONPATH'].split(os.pathsep)[0]
for name, call in (('remount', lambda: r._mount(None, root, r._MS_REMOUNT | r._MS_BIND)),
                   ('umount', lambda: ctypes.CDLL(None, use_errno=True).umount2(root.encode(), 2) == 0
                    or (_ for _ in ()).throw(OSError(ctypes.get_errno(), 'umount')))):
    try:
        call()
        print(name, 'done')
    except OSError as e:
        print(name, 'refused', e.errno)
try:
    open(os.path.join(root, '.readonly-probe.tmp'), 'w')
    print('write done')
except OSError as e:
    print('write refused', e.errno)
"""


@needs_mounts
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root and setpriv to drop to "
                    "another user")
def test_an_unprivileged_worker_cannot_undo_its_mounts():
    """As nobody (a user namespace of its own): the mounts are locked; remount and umount fail with EPERM/EINVAL."""
    out = _probe(_REMOUNT, "setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    if not lines or not readonly_mounts.SANDBOX.met(lines[1] if len(lines) > 1 else ""):
        pytest.skip(f"no user namespaces for this user here: {out.stdout} {out.stderr}")
    assert "locked" in lines[1]
    assert lines[2].startswith("remount refused") and lines[3].startswith("umount refused"), lines
    assert lines[4] == "write refused 30", lines


@needs_mounts
@pytest.mark.skipif(os.geteuid() != 0, reason="root only")
def test_a_root_worker_is_read_only_but_not_locked():
    """Real root keeps its capabilities (GPU profiling counters need them): it could remount on purpose, which the
    fingerprints reject. (The host's namespace never sees the mounts: every other test writes the checkout.)"""
    out = _probe(_REMOUNT)
    lines = out.stdout.splitlines()
    assert out.returncode == 0, out.stderr
    (Path(__file__).resolve().parents[2] / ".readonly-probe.tmp").unlink(missing_ok=True)
    assert "locked" not in lines[1] and lines[2] == "remount done" and lines[4] == "write done", lines
