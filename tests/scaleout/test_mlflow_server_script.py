"""``scripts/mlflow_server.sh`` against real PostgreSQL and ``mlflow server`` processes: it refuses ports
that are taken (never reporting someone else's server as its own) and leaves nothing running when it refuses."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import pytest
from scaleout_helpers import ROOT, free_port, needs_postgres

pytestmark = needs_postgres()
SCRIPT = ROOT / "scripts" / "mlflow_server.sh"


@pytest.fixture(scope="module")
def scratch():
    """A folder for state folders and (as root) the clusters' data folders; TMPDIR of the script so that
    the test sees exactly the data folders it made. World-traversable: as root PostgreSQL runs as `postgres`."""
    root = Path(tempfile.mkdtemp(prefix="kernelopt-script-test-"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def script(action: str, state: Path, scratch: Path, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "TMPDIR": str(scratch), "MLFLOW_WORKERS": "1", "PYTHON": sys.executable, **env}
    return subprocess.run(["bash", str(SCRIPT), action, str(state)], env=full, capture_output=True, text=True,
                          timeout=300, check=False)


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/health", timeout=5) as resp:
            return resp.status == 200
    except OSError:
        return False


def listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def data_folders(scratch: Path) -> list[Path]:
    return sorted(scratch.glob("kernelopt-pg.*")) + sorted(scratch.glob("*/pgdata"))


@pytest.fixture
def stops(scratch):
    """State folders a test starts in: stopped afterwards whatever the script did."""
    states: list[Path] = []
    yield states
    for state in states:
        script("stop", state, scratch)


@pytest.fixture(scope="module")
def server_a(scratch):
    """Server A, started by the script (stopped afterwards)."""
    state = scratch / "srvA"
    ports = {"MLFLOW_PORT": str(free_port()), "PG_PORT": str(free_port())}
    try:
        r = script("start", state, scratch, **ports)
        assert r.returncode == 0, r.stderr[-4000:]
        url = r.stdout.strip().splitlines()[-1]
        assert url == f"http://127.0.0.1:{ports['MLFLOW_PORT']}" and healthy(url)
        pid, pgdata = int((state / "mlflow.pid").read_text()), (state / "pgdata.path").read_text().strip()
        yield {"url": url, "state": state, **{k: int(v) for k, v in ports.items()}}
    finally:
        script("stop", state, scratch)
    # a script that lost track of A (its files rewritten by a later start) must not leave A running
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    if Path(pgdata, "postmaster.pid").is_file():
        os.kill(int(Path(pgdata, "postmaster.pid").read_text().split()[0]), signal.SIGQUIT)


def test_start_refuses_a_taken_mlflow_port_and_leaves_nothing_running(server_a, scratch, stops):
    stops.append(scratch / "srvB")
    before = data_folders(scratch)
    pg_port = free_port()
    r = script("start", scratch / "srvB", scratch, MLFLOW_PORT=str(server_a["MLFLOW_PORT"]), PG_PORT=str(pg_port))
    assert r.returncode == 6 and r.stdout == "", (r.returncode, r.stdout, r.stderr)  # no URI: not our server
    assert r.stderr.count("\n") == 1 and f"MLFLOW_PORT={server_a['MLFLOW_PORT']} is already in use" in r.stderr
    assert not listening(pg_port)  # B's PostgreSQL never started
    assert data_folders(scratch) == before and not (scratch / "srvB" / "pgdata.path").exists()
    assert healthy(server_a["url"])  # A untouched


def test_start_refuses_a_taken_postgres_port(server_a, scratch, stops):
    stops.append(scratch / "srvC")
    before = data_folders(scratch)
    port = free_port()
    r = script("start", scratch / "srvC", scratch, MLFLOW_PORT=str(port), PG_PORT=str(server_a["PG_PORT"]))
    assert r.returncode == 6 and r.stdout == "", (r.returncode, r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and f"PG_PORT={server_a['PG_PORT']} is already in use" in r.stderr
    assert not listening(port) and data_folders(scratch) == before
    assert healthy(server_a["url"])


def test_start_refuses_a_state_folder_whose_server_is_running(server_a, scratch):
    state = server_a["state"]
    pgdata = (state / "pgdata.path").read_text()
    before = data_folders(scratch)
    r = script("start", state, scratch, MLFLOW_PORT=str(free_port()), PG_PORT=str(free_port()))
    assert r.returncode == 6 and r.stdout == "", (r.returncode, r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and f"already running at {server_a['url']}; stop it first" in r.stderr
    assert (state / "pgdata.path").read_text() == pgdata and data_folders(scratch) == before  # nothing new
    assert healthy(server_a["url"])


def test_start_cleans_up_after_a_server_that_died_without_stop(scratch, stops):
    state = scratch / "srvD"
    stops.append(state)
    state.mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = scratch / "stale-pgdata"  # a cluster that is no longer running
    stale.mkdir()
    (stale / "PG_VERSION").write_text("15\n")
    (state / "mlflow.pid").write_text(f"{dead.pid}\n")
    (state / "pgdata.path").write_text(f"{stale}\n")
    (state / "pg.user").write_text("postgres\n" if os.geteuid() == 0 else f"{pwd.getpwuid(os.geteuid()).pw_name}\n")
    port = free_port()
    r = script("start", state, scratch, MLFLOW_PORT=str(port), PG_PORT=str(free_port()))
    assert r.returncode == 0, r.stderr[-4000:]
    assert r.stdout.strip() == f"http://127.0.0.1:{port}" and healthy(r.stdout.strip())
    assert not stale.exists() and Path((state / "pgdata.path").read_text().strip()).is_dir()
    assert (state / "uri").read_text().strip() == r.stdout.strip()
    stop = script("stop", state, scratch)
    assert stop.returncode == 0 and not listening(port)
    assert not (state / "uri").exists() and not (state / "pgdata.path").exists()


def test_mlflow_host_0000_serves_other_machines_by_this_hosts_name(scratch, stops):
    state = scratch / "srvE"
    stops.append(state)
    port, pg_port = free_port(), free_port()
    r = script("start", state, scratch, MLFLOW_HOST="0.0.0.0", MLFLOW_PORT=str(port), PG_PORT=str(pg_port))
    assert r.returncode == 0, r.stderr[-4000:]
    name = subprocess.run(["hostname", "-f"], capture_output=True, text=True, check=True).stdout.strip()
    assert r.stdout.strip() == f"http://{name}:{port}"
    # what a client elsewhere sends: this host's name in the Host header (MLflow refuses Host names it does not
    # allow), to an address of this machine that is not loopback when it has one
    ips = subprocess.run(["hostname", "-I"], capture_output=True, text=True, check=False).stdout.split()
    ip = next((a for a in ips if ":" not in a and not a.startswith("127.")), "127.0.0.1")
    req = urllib.request.Request(f"http://{ip}:{port}/api/2.0/mlflow/experiments/search?max_results=1",
                                 headers={"Host": f"{name}:{port}"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        assert resp.status == 200 and "experiments" in resp.read().decode()
    if ip != "127.0.0.1":  # PostgreSQL stays on loopback
        with socket.socket() as s:
            s.settimeout(2)
            assert s.connect_ex((ip, pg_port)) != 0
        assert listening(pg_port)
