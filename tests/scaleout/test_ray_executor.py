"""The ``ray`` executor on a private local Ray cluster (CPU actors, Triton interpreter): same
verdicts as the ``cpu`` executor, work spread over actors, lost actors' work retried elsewhere."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import tomllib

import pytest
from scaleout_helpers import (
    HAVE_RAY,
    NO_RAY,
    ROOT,
    TINY_CAMPAIGN,
    cli,
    fixture_solution,
    rmsnorm_request,
    statuses,
)

from kernelopt.data import Solution
from kernelopt.executor import CpuExecutor, ExecutorError, make_executor

pytestmark = pytest.mark.skipif(not HAVE_RAY, reason=NO_RAY)

#: fixture solution -> expected verdict on every workload
CASES = {"rmsnorm_triton_ok": "PASSED", "rmsnorm_triton_no_weight": "INCORRECT_NUMERICAL",
         "rmsnorm_py_raises": "RUNTIME_ERROR"}

SLOW_KERNEL = '''import time
import torch


def run(hidden_states, weight, eps=1e-5):
    time.sleep(1.5)  # long enough for the test to kill the actor mid-request
    x = hidden_states.float()
    return (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(hidden_states.dtype)
'''


def slow_solution() -> Solution:
    return Solution.model_validate({
        "name": "rmsnorm_py_slow", "definition": "rmsnorm_h4096", "author": "tests",
        "spec": {"language": "python", "target_hardware": ["cpu"], "entry_point": "main.py::run",
                 "destination_passing_style": False},
        "sources": [{"path": "main.py", "content": SLOW_KERNEL}]})


@pytest.fixture(scope="module")
def ray_executor(build_cache_env):
    """Two CPU actors on a local cluster this executor starts (and shuts down); one CPU is left
    free for a CLI run that joins the cluster by address."""
    ex = make_executor("ray", devices=2, gpu=False, env=build_cache_env, num_cpus=3)
    try:
        yield ex.start()
    finally:
        ex.close()


def test_same_verdicts_as_cpu_executor(ray_executor, build_cache_env):
    requests = [rmsnorm_request(fixture_solution(name)) for name in CASES]
    got = ray_executor.evaluate_many(requests)
    with CpuExecutor(env=build_cache_env) as cpu:
        want = cpu.evaluate_many(requests)
    for name, r, w in zip(CASES, got, want):
        assert statuses(r) == statuses(w) == [CASES[name]] * 2, (name, statuses(r), statuses(w))
        assert r.solution_hash == w.solution_hash
        assert [x.uuid for x in r.results] == [x.uuid for x in w.results]
    passed = got[0].results[0]
    assert passed.latency is not None and passed.latency.mean_ms > 0 and passed.max_abs_error is not None
    infos = [r.environment["executor"] for r in got]
    assert {i["kind"] for i in infos} == {"ray"} and {i["worker_kind"] for i in infos} == {"cpu"}
    assert {i["actor"] for i in infos} == {"ray0", "ray1"}  # both actors got work
    assert all(i["attempts"] == 1 and i["node"] for i in infos)
    assert "deliberate" in got[2].results[0].log  # the worker's error travels back through Ray


def test_actor_killed_mid_request_is_retried_on_another_actor(ray_executor):
    ray = ray_executor.ray
    victim = ray_executor.lanes[0]
    before = ray_executor.actors_started
    stream = ray_executor.iter_results([rmsnorm_request(slow_solution(), batch_sizes=(1,))])
    killer = threading.Timer(2.0, lambda: ray.kill(victim.actor, no_restart=True))
    killer.start()
    t0 = time.monotonic()
    [(index, result)] = list(stream)
    killer.join()
    assert index == 0 and statuses(result) == ["PASSED"], result.results[0].log
    info = result.environment["executor"]
    assert info["attempts"] == 2 and info["actor"] == "ray1", info  # retried elsewhere
    assert ray_executor.actors_started == before + 1 and victim.generation >= 1  # the slot got a new actor
    assert time.monotonic() - t0 > 2.0


def test_actor_lost_beyond_retries_is_a_runtime_error(ray_executor):
    ray = ray_executor.ray
    saved = ray_executor.max_retries
    ray_executor.max_retries = 0
    try:
        ray.kill(ray_executor.lanes[0].actor, no_restart=True)
        [result] = ray_executor.evaluate_many([rmsnorm_request(fixture_solution("rmsnorm_py_value"))])
    finally:
        ray_executor.max_retries = saved
    assert statuses(result) == ["RUNTIME_ERROR"] * 2
    assert {r.extra["executor_fault"] for r in result.results} == {"actor_lost"}
    assert "Ray actor" in result.results[0].log
    # the replacement actor works
    [again] = ray_executor.evaluate_many([rmsnorm_request(fixture_solution("rmsnorm_py_value"))] * 1)
    assert statuses(again) == ["PASSED"] * 2


def test_more_actors_than_the_cluster_holds_is_a_clear_error(ray_executor):
    with pytest.raises(ExecutorError, match="GPU actor"):
        make_executor("ray", devices=1, gpu=True)  # the local cluster has no GPU


@pytest.mark.slow
def test_optimize_joins_the_cluster_by_address(ray_executor, tmp_path):
    address = ray_executor.ray.get_runtime_context().gcs_address
    db = tmp_path / "store" / "mlflow.db"
    r = cli(["optimize", "executor=ray", f"executor.address={address}", "executor.devices=[0]",
             f"tracking.uri=sqlite:///{db}", *TINY_CAMPAIGN], tmp_path, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    con = sqlite3.connect(db)
    try:
        status = [v for (v,) in con.execute("select value from tags where key = 'kernelopt.status'")]
    finally:
        con.close()
    assert status and "ALL_PASSED" in status
    results = [json.loads(p.read_text()) for p in (db.parent / "artifacts").rglob("result.json")]
    infos = [res["environment"]["executor"] for res in results]
    assert infos and {i["kind"] for i in infos} == {"ray"} and {i["worker_kind"] for i in infos} == {"cpu"}
    # the CLI's actor ran on this test's cluster (its node), and the cluster outlived the CLI run
    assert {i["node"] for i in infos} == {ray_executor.lanes[0].info["node"]}
    assert ray_executor.ray.is_initialized() and ray_executor.ray.cluster_resources().get("CPU") == 3


@pytest.mark.slow
def test_optimize_follows_the_actors_hardware_not_the_drivers(ray_executor, tmp_path, monkeypatch, capsys):
    """The harness preset, timer, workload cut and prompt followed the driver's GPU: a driver that saw one (here:
    told so) over CPU actors timed interpreter runs as GPU ones on every workload (and a login node without a GPU
    over GPU actors, the README's Ray case, the other way round)."""
    from kernelopt.cli import build
    from kernelopt.cli.main import main

    monkeypatch.setattr(build, "gpu_available", lambda: True)
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "store" / "mlflow.db"
    address = ray_executor.ray.get_runtime_context().gcs_address
    assert main(["optimize", "executor=ray", f"executor.address={address}", "executor.devices=[0]",
                 f"tracking.uri=sqlite:///{db}", *TINY_CAMPAIGN]) == 0
    out = capsys.readouterr().out
    assert "on CPU (Triton interpreter, quick timing, smallest workloads) through Ray (1 actor)" in out, out[-2000:]
    con = sqlite3.connect(db)
    try:
        device = {v for (v,) in con.execute("select value from tags where key like '%device'")}
    finally:
        con.close()
    assert "cpu-interpreter" in device and "gpu" not in device, device


def test_address_parsing_for_the_reachability_probe():
    from kernelopt.executor.ray_executor import _host_port

    assert _host_port("127.0.0.1:6379") == ("127.0.0.1", 6379)
    assert _host_port("ray://head.example:10001") == ("head.example", 10001)
    assert _host_port("[::1]:6379") == ("::1", 6379)
    assert _host_port("auto") is None and _host_port("local") is None and _host_port("http://h:1") is None


def test_unreachable_address_fails_in_seconds_with_what_to_do(tmp_path):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = """import sys
from kernelopt.executor import ExecutorError, make_executor
for address in sys.argv[1:]:
    try:
        make_executor("ray", address=address)
    except ExecutorError as exc:
        print(exc)
    else:
        print("joined")
"""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", code, f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"],
                       cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                       timeout=60, check=False)
    assert time.monotonic() - t0 < 30, r.stdout + r.stderr  # ray.init alone retries for minutes
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.splitlines()
    assert lines == [f"cannot reach a Ray cluster at {a}:{port} (Connection refused); start one with "
                     "`ray start --head` or leave executor.address unset for a private one"
                     for a in ("127.0.0.1", "ray://127.0.0.1")], r.stdout


def test_too_many_devices_names_the_setting_and_both_counts(ray_executor):
    cpus = int(ray_executor.ray.cluster_resources()["CPU"])
    with pytest.raises(ExecutorError) as err:
        make_executor("ray", devices=list(range(cpus + 1)), gpu=False)
    assert str(err.value) == (
        f"ray executor: executor.devices has {cpus + 1} entries (one CPU actor each) but the Ray cluster has "
        f"{cpus} CPUs; give executor.devices at most {cpus} entries, or leave it unset for one actor per GPU "
        "(else one per 2 CPUs)")
    assert ray_executor.ray.is_initialized()  # the cluster it joined is left running


def test_strip_ansi():
    from kernelopt.executor.ray_executor import strip_ansi

    coloured = "\x1b[36mray::EvalActor.evaluate()\x1b[39m (pid=7)\n\x1b[1;31mboom\x1b[0m \x1b]0;title\x07done"
    assert strip_ansi(coloured) == "ray::EvalActor.evaluate() (pid=7)\nboom done"
    assert strip_ansi("plain [36m text") == "plain [36m text"


def test_actor_error_text_carries_no_colour_codes(ray_executor):
    ex = make_executor("ray", devices=1, gpu=False, target="kernelopt_no_such_module:run")
    try:
        with pytest.raises(ExecutorError) as err:
            ex.start()
    finally:
        ex.close()
    text = str(err.value)
    assert "could not start its worker" in text and "ray::EvalActor" in text, text
    assert "\x1b" not in text, repr(text)


def test_scale_extra_brings_the_ray_client():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["scale"]
    assert any(req.replace(" ", "").startswith("ray[client]") for req in extra), extra


@pytest.mark.skipif(importlib.util.find_spec("grpc") is not None, reason="Ray's client is installed")
def test_ray_url_without_the_ray_client_says_what_to_install(tmp_path):
    code = """import socket, sys
from kernelopt.executor import ExecutorError, make_executor
with socket.socket() as s:  # something listening, so the reachability probe passes
    s.bind(("127.0.0.1", 0))
    s.listen()
    try:
        make_executor("ray", address=f"ray://127.0.0.1:{s.getsockname()[1]}")
    except ExecutorError as exc:
        print(exc)
"""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)},
                       capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == ("ray executor: a ray:// address needs Ray's client: pip install 'kernelopt[scale]' "
                                "(or 'ray[client]>=2.9')")


def test_cpu_actors_have_no_ceilings_to_measure(ray_executor):
    """The campaign asks the executor for its GPU's ceilings (a GPU actor's hosted executor measures them in a child
    on that GPU and the driver keeps them); CPU actors answer None, through the actor too."""
    assert not ray_executor.has_gpu and ray_executor.measure_ceilings(60) is None
    lane = ray_executor.lanes[0]
    assert ray_executor.ray.get(lane.actor.measure_ceilings.remote(60), timeout=120) is None
