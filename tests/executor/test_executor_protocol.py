"""The pieces under the executor, without worker processes: frames, output capture, environment
scrubbing, device discovery, result merging."""

from __future__ import annotations

import math
import os
import threading
import time

import pytest
from executor_helpers import executor_solution, rmsnorm_request

from kernelopt.data import EvalResult, EvaluationStatus, WorkloadResult
from kernelopt.executor import devices
from kernelopt.executor.logtail import LogTail, marker
from kernelopt.executor.protocol import (
    FrameReader,
    FrameTimeout,
    ProtocolError,
    encode,
    read_frame_blocking,
    request_from_wire,
    request_to_wire,
    result_from_wire,
    result_to_wire,
    write_frame,
    write_frame_blocking,
)
from kernelopt.executor.results import Fault, fault_result, looks_poisoned, merge_results
from kernelopt.executor.sandbox import scrub_env, worker_env


def test_request_and_result_cross_the_wire_losslessly():
    req = rmsnorm_request(executor_solution("good"), batch_sizes=(7, 1))
    back = request_from_wire(_roundtrip(request_to_wire(req)))
    assert back == req and back.solution.hash() == req.solution.hash()
    wr = WorkloadResult(uuid="u", axes={"batch_size": 1}, status=EvaluationStatus.INCORRECT_NUMERICAL,
                        max_abs_error=math.inf, max_rel_error=math.nan, matched_ratio=0.5)
    res = EvalResult(definition="d", solution="s", solution_hash="h", results=[wr])
    got = result_from_wire(_roundtrip(result_to_wire(res))).results[0]
    assert got.max_abs_error == math.inf and math.isnan(got.max_rel_error)
    assert got.status == EvaluationStatus.INCORRECT_NUMERICAL


def _roundtrip(obj):
    r, w = os.pipe()
    try:
        threading.Thread(target=write_frame_blocking, args=(w, {"t": "x", "body": obj})).start()
        return read_frame_blocking(r)["body"]
    finally:
        os.close(r)
        os.close(w)


def test_frame_reader_reassembles_split_frames_and_honours_deadlines():
    r, w = os.pipe()
    reader = FrameReader(r)
    data = encode({"t": "a", "n": 1}) + encode({"t": "b", "n": 2})
    for i in range(0, len(data), 3):  # dribble three bytes at a time
        os.write(w, data[i:i + 3])
    assert reader.read(time.monotonic() + 1)["t"] == "a"
    assert reader.read(time.monotonic() + 1)["n"] == 2
    t0 = time.monotonic()
    with pytest.raises(FrameTimeout):
        reader.read(time.monotonic() + 0.3)
    assert 0.25 < time.monotonic() - t0 < 2
    with pytest.raises(EOFError):  # a dead peer is noticed even while the pipe stays open
        reader.read(time.monotonic() + 5, dead=lambda: True)
    os.write(w, b"\x00\x00\x00\x02{]")
    with pytest.raises(ProtocolError):
        reader.read(time.monotonic() + 1)
    os.close(w)
    os.close(r)


def test_write_frame_times_out_when_the_peer_never_reads():
    r, w = os.pipe()
    os.set_blocking(w, False)
    with pytest.raises(FrameTimeout):
        write_frame(w, {"t": "big", "x": "y" * (4 << 20)}, time.monotonic() + 0.3)
    os.close(r)
    os.close(w)


def test_log_tail_cuts_segments_at_markers_and_bounds_each_one():
    r, w = os.pipe()
    tail = LogTail(r, token="abc", cap=1000)
    os.write(w, b"hello ")
    m1 = marker("abc", 1)
    os.write(w, b"world\n" + m1[:5])  # marker split across writes
    os.write(w, m1[5:])
    assert tail.segment(1) == "hello world\n"
    os.write(w, b"\x1e@kernelopt:other:7\n")  # someone else's token: plain text
    for _ in range(100):
        os.write(w, b"y" * 99 + b"\n")
    os.write(w, b"END\n" + marker("abc", 2))
    seg = tail.segment(2)
    assert seg.endswith("END\n") and "earlier bytes of output dropped" in seg
    assert len(seg) < 1100
    os.write(w, b"after the last marker")
    os.close(w)
    assert tail.current() == "after the last marker"
    assert tail.eof


def test_scrub_env_drops_credentials_and_keeps_the_rest():
    env = {"OPENAI_API_KEY": "x", "ANTHROPIC_API_KEY": "x", "HF_TOKEN": "x", "GITHUB_TOKEN": "x",
           "MY_SECRET_THING": "x", "MLFLOW_TRACKING_PASSWORD": "x", "MLFLOW_TRACKING_URI": "x",
           "AWS_ACCESS_KEY_ID": "x", "DATABRICKS_HOST": "x", "PATH": "/bin", "HOME": "/root",
           "CUDA_VISIBLE_DEVICES": "0", "TOKENIZERS_PARALLELISM": "false"}
    assert set(scrub_env(env)) == {"PATH", "HOME", "CUDA_VISIBLE_DEVICES", "TOKENIZERS_PARALLELISM"}
    leaked_before = ["GITHUB_PAT", "GH_PAT", "OPENAI_KEY", "ANTHROPIC_APIKEY", "AZURE_OPENAI_KEY", "KAGGLE_KEY",
                     "DATABASE_URL", "GOOGLE_APPLICATION_CREDENTIALS", "SSH_AUTH_SOCK", "PGPASSWD", "SENTRY_DSN"]
    needed = ["PATH", "HOME", "LD_LIBRARY_PATH", "PYTHONPATH", "CUDA_HOME", "CUDA_PATH", "CUDA_DEVICE_ORDER",
              "TRITON_INTERPRET", "TRITON_CACHE_DIR", "TORCH_CUDA_ARCH_LIST", "KERNELOPT_CACHE_DIR",
              "KERNELOPT_REFERENCE_TIMES_DIR", "KERNELOPT_OPERATORS_DIR", "KERNELOPT_NCU", "KERNELOPT_WORKER_TARGET"]
    assert set(scrub_env(dict.fromkeys(leaked_before + needed, "x"))) == set(needed)
    wenv = worker_env({"TRITON_INTERPRET": "1"}, base=env)
    assert "OPENAI_API_KEY" not in wenv and wenv["TRITON_INTERPRET"] == "1"
    assert wenv["PYTHONUNBUFFERED"] == "1"


def test_visible_gpus_follows_cuda_visible_devices(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert devices.visible_gpus() == []
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "-1")
    assert devices.visible_gpus() == []
    with pytest.raises(ValueError, match="not a visible GPU"):
        devices.resolve_devices([0])


def test_merge_keeps_workload_order_and_poison_detection_reads_logs():
    req = rmsnorm_request(executor_solution("good"), batch_sizes=(7, 1))
    w7, w1 = req.workloads
    crash = fault_result(req, w1, Fault("crash", "worker crashed (killed by signal SIGSEGV (11))", "tail"))
    ok = EvalResult(definition="rmsnorm_h4096", solution="s", solution_hash="h", environment={"hardware": "cpu"},
                    results=[WorkloadResult(uuid=w7.uuid, axes=w7.axes, status=EvaluationStatus.PASSED)])
    merged = merge_results(req, [ok, crash], wall_s=1.5, executor_info={"kind": "cpu"})
    assert [r.uuid for r in merged.results] == [w7.uuid, w1.uuid]
    assert merged.environment == {"hardware": "cpu", "executor": {"kind": "cpu"}}
    assert "SIGSEGV" in merged.results[1].log and "tail" in merged.results[1].log
    assert not looks_poisoned(merged)
    bad = crash.model_copy(update={"results": [crash.results[0].model_copy(
        update={"log": "RuntimeError: CUDA error: an illegal memory access was encountered"})]})
    assert looks_poisoned(bad)
    with pytest.raises(RuntimeError, match="internal error"):
        merge_results(req, [ok], wall_s=0, executor_info={})
