"""Evaluation workers run in their own network namespace (kernelopt.executor.netns): real worker subprocesses,
a real TCP sink on the host's loopback, a candidate that tries to reach it."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading

import pytest

from kernelopt.executor import CpuExecutor, WorkerStartError, netns, readonly_mounts

PROBE = "from kernelopt.executor import netns; print(netns.apply('isolated'))"


def _isolation_here() -> str:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    return out.stdout.strip()


ISOLATION = _isolation_here()
needs_isolation = pytest.mark.skipif(not netns.SANDBOX.met(ISOLATION),
                                     reason=f"this kernel refuses network namespaces: {ISOLATION}")


class Sink:
    """A TCP server on 127.0.0.1 that keeps every byte it receives."""

    def __init__(self) -> None:
        self.srv = socket.create_server(("127.0.0.1", 0))
        self.srv.settimeout(0.2)
        self.received = bytearray()
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def address(self) -> str:
        return "%s:%d" % self.srv.getsockname()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.srv.accept()
            except OSError:
                continue
            self.connections += 1
            with conn:
                conn.settimeout(2)
                try:
                    while chunk := conn.recv(4096):
                        self.received += chunk
                except OSError:
                    pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.srv.close()


@pytest.fixture
def sink():
    s = Sink()
    yield s
    s.close()


def _exfiltrate(env: dict[str, str]):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "adversarial"))
    from adversarial_helpers import corpus_solution, request_for

    with CpuExecutor(env=env) as ex:
        return ex.evaluate_many([request_for(corpus_solution("cheats", "network_exfiltration"), (1,))])[0]


@needs_isolation
def test_a_candidate_cannot_reach_a_server_on_the_host(sink, build_cache_env):
    res = _exfiltrate({**build_cache_env, "ADV_SINK": sink.address})
    assert [r.status.value for r in res.results] == ["PASSED"], res.results[0].log
    assert sink.connections == 0 and not sink.received
    assert netns.SANDBOX.met(res.environment["sandbox"]["network"]), res.environment.get("sandbox")


def test_with_executor_network_host_the_same_candidate_reaches_it(sink, build_cache_env):
    """The sink and the candidate work: only the namespace stops the send above."""
    res = _exfiltrate({**build_cache_env, "ADV_SINK": sink.address, netns.NETWORK_ENV: "host"})
    assert [r.status.value for r in res.results] == ["PASSED"], res.results[0].log
    assert sink.received.startswith(b"leak:") and sink.connections >= 1
    assert res.environment["sandbox"]["network"] == "host (executor.network=host)"


@pytest.mark.parametrize(("env", "mode", "kind"), [(netns.NETWORK_ENV, "everywhere", "network"),
                                                   (readonly_mounts.FILES_ENV, "sometimes", "files")])
def test_an_unknown_sandbox_mode_stops_the_worker_with_its_name(build_cache_env, env, mode, kind):
    ex = CpuExecutor(env={**build_cache_env, env: mode})
    try:
        with pytest.raises(WorkerStartError, match=f"'{mode}' is not a {kind} mode"):
            ex.start()
    finally:
        ex.close()


@needs_isolation
def test_loopback_inside_the_namespace_works_and_the_host_is_gone():
    """Code that talks to itself on 127.0.0.1 (a compile server, a local pool) still runs in an isolated worker."""
    with socket.create_server(("127.0.0.1", 0)) as host_srv:
        port = host_srv.getsockname()[1]
        code = (f"{PROBE}\nimport socket\n"
                "s = socket.create_server(('127.0.0.1', 0)); c = socket.create_connection(s.getsockname())\n"
                "print('self ok')\n"
                f"try:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2); print('host reached')\n"
                "except OSError as e:\n    print('host unreachable', e.errno)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert netns.SANDBOX.met(lines[0]) and "loopback down" not in lines[0]
    assert lines[1] == "self ok" and lines[2].startswith("host unreachable")


def test_modes(monkeypatch):
    monkeypatch.delenv(netns.STATUS_ENV, raising=False)  # apply() sets it; put back at teardown
    assert netns.apply("host") == "host (executor.network=host)"
    with pytest.raises(ValueError, match="choose one of isolated, required, host"):
        netns.apply("open")
    assert netns.SANDBOX.met("isolated (net namespace)") and not netns.SANDBOX.met("host (x)")
    assert not netns.SANDBOX.met(None)
