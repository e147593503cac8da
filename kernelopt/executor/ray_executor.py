"""``ray`` executor: the same persistent workers, hosted by Ray actors across a cluster.

Each actor owns one GPU (``num_gpus=1``; Ray sets its ``CUDA_VISIBLE_DEVICES``) and hosts a
kernelopt :class:`~kernelopt.executor.local.LocalExecutor` over that GPU, or, on a cluster without
GPUs, a one-worker :class:`~kernelopt.executor.cpu.CpuExecutor` (Triton interpreter). Timeouts,
crash isolation and worker restarts are therefore exactly those of the local executor; Ray only
places the actors and carries JSON-ready requests and results.

The driver keeps one request in flight per actor and hands the next request to whichever actor
finishes first (``ray.wait``), so results stream back in completion order
(:meth:`RayExecutor.iter_results`) while :meth:`RayExecutor.evaluate_many` returns them in request
order. A request whose actor is lost (killed, its node gone, or silent far past any harness
deadline) is retried on a fresh actor, placed wherever the cluster has room, up to ``max_retries``
times; after that its workloads are ``RUNTIME_ERROR`` with ``executor_fault="actor_lost"``.

``ray`` is an optional dependency (``pip install 'kernelopt[scale]'``); it is imported only here.
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import socket
import time
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from kernelopt.data.records import EvalRequest, EvalResult
from kernelopt.data.trace import EvaluationStatus
from kernelopt.executor.base import ExecutorError
from kernelopt.executor.protocol import request_from_wire, request_to_wire, result_from_wire, result_to_wire
from kernelopt.executor.results import merge_results, workload_failure

#: Seconds allowed for an actor to start its worker before the first request's deadline runs.
STARTUP_SLACK_S = 300.0
#: Seconds a ``host:port`` cluster address gets to accept a TCP connection before joining it is abandoned
#: (``ray.init`` itself retries an unreachable address silently for minutes).
PROBE_TIMEOUT_S = 5.0


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorError("executor kind 'ray' needs Ray: pip install 'kernelopt[scale]' "
                            "(or 'ray[client]>=2.9')") from None
    return ray


def _host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a ``host:port`` or ``ray://host:port`` address; None for ``auto``, ``local``..."""
    rest = address.strip()
    if rest.startswith("ray://"):
        rest = rest[len("ray://"):]
    elif "://" in rest:
        return None
    host, sep, port = rest.rstrip("/").rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


def probe_address(address: str, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Check that a ``host:port`` / ``ray://host:port`` Ray address accepts TCP connections.

    Raises:
        ExecutorError: nothing accepts a connection there within ``timeout_s``.
    """
    where = _host_port(address)
    if where is None:  # auto, local...: Ray resolves those itself, and fails fast
        return
    try:
        with socket.create_connection(where, timeout=timeout_s):
            pass
    except OSError as exc:
        why = exc.strerror or str(exc) or type(exc).__name__
        raise ExecutorError(f"cannot reach a Ray cluster at {address} ({why}); start one with `ray start --head` "
                            "or leave executor.address unset for a private one") from None


#: ANSI escape sequences (CSI colours such as ``ESC[36m``, OSC titles, lone two-byte escapes).
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


def strip_ansi(text: str) -> str:
    """``text`` without ANSI escape sequences (Ray colours its task errors' ``ray::Actor.method()`` line)."""
    return _ANSI.sub("", text)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _capacity_error(requested: int | None, workers: int, have: int, unit: str) -> str:
    """Why ``workers`` actors of one ``unit`` each cannot be placed, naming the setting to change
    (``requested``: the actor count asked for, i.e. executor.devices' length; None: the default)."""
    if have == 0:
        return (f"ray executor: {unit} actors requested but the Ray cluster has no {unit}; join a cluster with "
                f"{unit}s (executor.address)")
    if requested is None:
        return f"ray executor: {_count(workers, unit + ' actor', unit + ' actors')} do not fit {have} {unit}(s)"
    return (f"ray executor: executor.devices has {_count(requested, 'entry', 'entries')} (one {unit} actor "
            f"each) but the Ray cluster has {_count(have, unit, unit + 's')}; give executor.devices at most {have} "
            "entries, or leave it unset for one actor per GPU (else one per 2 CPUs)")


class EvalActor:
    """Body of a Ray actor: a kernelopt executor over this actor's one GPU (or one CPU worker).

    Args:
        gpu: host a ``LocalExecutor`` on the GPU Ray assigned, else a one-worker ``CpuExecutor``.
        options: keyword arguments for that executor (``timeout_s``, ``env``, ``max_faults``...).
    """

    def __init__(self, gpu: bool, options: dict[str, Any]) -> None:
        self.gpu = gpu
        self.options = options
        self.executor: Any = None

    def _executor(self) -> Any:
        if self.executor is None:
            if self.gpu:
                from kernelopt.executor.local import LocalExecutor

                self.executor = LocalExecutor(devices=None, **self.options).start()
            else:
                from kernelopt.executor.cpu import CpuExecutor

                self.executor = CpuExecutor(workers=1, **self.options).start()
        return self.executor

    def start(self) -> dict[str, Any]:
        """Start the worker now; return where this actor runs (node, pid, devices)."""
        import ray

        ex = self._executor()
        return {"node": ray.util.get_node_ip_address(), "pid": os.getpid(), "devices": ex.devices,
                "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}

    def evaluate(self, wire: dict[str, Any]) -> dict[str, Any]:
        """Evaluate one JSON-ready EvalRequest; return a JSON-ready EvalResult."""
        return result_to_wire(self._executor().evaluate(request_from_wire(wire)))

    def measure_ceilings(self, timeout_s: float) -> tuple[dict[str, Any] | None, str] | None:
        """This actor's GPU's ceilings, measured by its hosted executor (a child process on that GPU; None on a CPU
        actor): the driver keeps them in its own ceilings cache."""
        return self._executor().measure_ceilings(timeout_s)

    def worker_pids(self) -> list[int]:
        """Pids of this actor's live worker subprocesses (for tests and diagnostics)."""
        ex = self._executor()
        return [s.worker.pid for s in ex.pool if s.worker is not None]

    def close(self) -> None:
        """Stop the hosted executor's workers."""
        if self.executor is not None:
            self.executor.close()
            self.executor = None


@dataclass
class _Lane:
    """One actor slot on the driver side; ``actor`` is replaced when the actor is lost."""

    name: str
    actor: Any
    info_ref: Any
    info: dict[str, Any] | None = None
    generation: int = 0
    started_at: float = field(default_factory=time.monotonic)


def _shutdown(ray: Any, lanes: list[_Lane], owns_cluster: bool) -> None:
    for lane in lanes:
        with contextlib.suppress(Exception):  # a dead actor has nothing left to close
            ray.get(lane.actor.close.remote(), timeout=30)
        with contextlib.suppress(Exception):
            ray.kill(lane.actor, no_restart=True)
    lanes.clear()
    if owns_cluster and ray.is_initialized():
        ray.shutdown()


class RayExecutor:
    """Executor over Ray actors, one GPU (or one CPU worker) each.

    Args:
        address: Ray cluster to join (``"auto"``, ``"host:6379"``, ``"ray://host:10001"``); None
            starts a private local cluster (no dashboard, small object store, never one left by
            ``ray start``) unless Ray is already initialised in this process or ``RAY_ADDRESS`` is set.
        workers: number of actors; default one per cluster GPU, or ``max(1, CPUs // 2)`` CPU actors.
        gpu: place GPU actors (``num_gpus=1``); default True when the cluster has a GPU.
        timeout_s: per-workload timeout overriding ``request.settings.timeout_s`` (inside actors).
        max_retries: resubmissions of a request whose actor was lost.
        env: extra environment of the worker subprocesses.
        memory_limit_gb: ``RLIMIT_AS`` of the worker subprocesses (default: the hosted executor's).
        target: harness function ``module:function`` (default the real harness).
        max_faults: worker faults per request before the rest is skipped (as ``local``).
        max_timeouts: timeouts per request before the rest is skipped (as ``local``).
        num_cpus: CPUs of a local cluster this executor starts (default: the machine's, at least
            ``workers``).
        object_store_mb: object store of a local cluster this executor starts.
        poll_s: how often the driver checks in-flight work against its deadline.

    Raises:
        ExecutorError: Ray is not installed, ``address`` (``host:port``, ``ray://host:port``) accepts no
            connection within :data:`PROBE_TIMEOUT_S`, or the cluster cannot host ``workers`` actors.
    """

    kind = "ray"

    def __init__(self, address: str | None = None, *, workers: int | None = None, gpu: bool | None = None,
                 timeout_s: float | None = None, max_retries: int = 2, env: dict[str, str] | None = None,
                 memory_limit_gb: float | None = None, target: str | None = None, max_faults: int = 3,
                 max_timeouts: int = 1, num_cpus: int | None = None, object_store_mb: int = 128,
                 poll_s: float = 1.0) -> None:
        if timeout_s is not None and timeout_s <= 0:
            raise ExecutorError(f"executor timeout_s must be > 0, got {timeout_s}")
        if max_retries < 0:
            raise ExecutorError(f"ray executor: max_retries must be >= 0, got {max_retries}")
        ray = self.ray = _import_ray()
        self.timeout_s, self.max_retries, self.poll_s = timeout_s, max_retries, poll_s
        self.owns_cluster = False
        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # never phone home
            if address is None and not os.environ.get("RAY_ADDRESS"):
                cpus = max(os.cpu_count() or 1, workers or 1, num_cpus or 0)
                ray.init(address="local", num_cpus=cpus, include_dashboard=False,
                         object_store_memory=object_store_mb << 20, log_to_driver=False)
            else:
                probe_address(address or os.environ["RAY_ADDRESS"])
                try:
                    ray.init(address=address, log_to_driver=False)
                except ValueError as exc:
                    if "ray[client]" not in str(exc):
                        raise
                    raise ExecutorError("ray executor: a ray:// address needs Ray's client: pip install "
                                        "'kernelopt[scale]' (or 'ray[client]>=2.9')") from None
            self.owns_cluster = True
        resources = ray.cluster_resources()
        gpus, cpus = int(resources.get("GPU", 0)), int(resources.get("CPU", 0))
        self.gpu = gpus > 0 if gpu is None else gpu
        requested = workers
        if workers is None:
            workers = gpus if self.gpu else max(1, cpus // 2)
        have = gpus if self.gpu else cpus
        if workers < 1 or workers > have:
            if self.owns_cluster:
                ray.shutdown()
            raise ExecutorError(_capacity_error(requested, workers, have, "GPU" if self.gpu else "CPU"))
        self.options: dict[str, Any] = {"timeout_s": timeout_s, "env": env, "target": target,
                                        "max_faults": max_faults, "max_timeouts": max_timeouts}
        if memory_limit_gb is not None:
            self.options["memory_limit_gb"] = memory_limit_gb
        placement = {"num_gpus": 1, "num_cpus": 0} if self.gpu else {"num_cpus": 1}
        self._actor_cls = ray.remote(**placement, max_restarts=0)(EvalActor)
        self.lanes: list[_Lane] = [self._new_lane(f"ray{k}") for k in range(workers)]
        self.actors_started = workers
        self._finalizer = weakref.finalize(self, _shutdown, ray, self.lanes, self.owns_cluster)

    # ------------------------------------------------------------ actors
    def _new_lane(self, name: str, generation: int = 0) -> _Lane:
        actor = self._actor_cls.remote(self.gpu, self.options)
        return _Lane(name=name, actor=actor, info_ref=actor.start.remote(), generation=generation)

    def _replace(self, lane: _Lane) -> None:
        """Kill a lost (or stalled) actor and start a new one in its slot."""
        with contextlib.suppress(Exception):  # already dead
            self.ray.kill(lane.actor, no_restart=True)
        fresh = self._new_lane(lane.name, lane.generation + 1)
        lane.actor, lane.info_ref, lane.info = fresh.actor, fresh.info_ref, None
        lane.generation, lane.started_at = fresh.generation, fresh.started_at
        self.actors_started += 1

    def _lane_info(self, lane: _Lane) -> dict[str, Any]:
        if lane.info is None:
            try:
                lane.info = self.ray.get(lane.info_ref, timeout=30)
            except Exception:  # noqa: BLE001 - informational only
                lane.info = {}
        return lane.info

    @property
    def num_workers(self) -> int:
        """Number of actors that run requests in parallel."""
        return len(self.lanes)

    @property
    def devices(self) -> list[str]:
        """Labels of the actor slots ("ray0", "ray1"...)."""
        return [lane.name for lane in self.lanes]

    @property
    def has_gpu(self) -> bool:
        """Whether the actors evaluate on GPUs."""
        return bool(self.gpu)

    def measure_ceilings(self, timeout_s: float) -> tuple[dict[str, Any] | None, str] | None:
        """The first actor's GPU's ceilings (:meth:`EvalActor.measure_ceilings`), returned to the driver; None with
        CPU actors. An actor that fails or does not answer within ``timeout_s`` (plus its start) gives ``(None,
        why)``."""
        if not self.gpu:
            return None
        lane = self.lanes[0]
        try:
            return self.ray.get(lane.actor.measure_ceilings.remote(timeout_s), timeout=timeout_s + STARTUP_SLACK_S)
        except Exception as exc:  # noqa: BLE001 - a lost actor or Ray's timeout: said, the campaign goes on
            return None, f"ray actor {lane.name}: {strip_ansi(str(exc))[:300]}"

    def start(self) -> RayExecutor:
        """Wait until every actor has started its worker (raises :class:`ExecutorError` if one cannot)."""
        for lane in self.lanes:
            try:
                lane.info = self.ray.get(lane.info_ref)
            except Exception as exc:  # RayTaskError wraps WorkerStartError
                raise ExecutorError(f"ray executor: actor {lane.name} could not start its worker: "
                                    f"{strip_ansi(str(exc))}") from exc
        return self

    # ------------------------------------------------------------ work
    def _deadline_s(self, request: EvalRequest) -> float:
        per = self.timeout_s if self.timeout_s is not None else request.settings.timeout_s
        return per * (len(request.workloads) + 1) + STARTUP_SLACK_S

    def _finish(self, request: EvalRequest, wire: dict[str, Any], lane: _Lane, attempts: int) -> EvalResult:
        result = result_from_wire(wire)
        env = dict(result.environment)
        inner = dict(env.get("executor") or {})
        info = self._lane_info(lane)
        env["executor"] = {**inner, "kind": "ray", "worker_kind": inner.get("kind"), "actor": lane.name,
                           "actor_generation": lane.generation, "node": info.get("node"),
                           "actor_pid": info.get("pid"), "attempts": attempts}
        return result.model_copy(update={"environment": env})

    def _lost(self, request: EvalRequest, why: str, attempts: int, wall_s: float) -> EvalResult:
        log = f"RUNTIME_ERROR: the Ray actor running this request was lost {attempts} time(s); last: {why}"
        parts = [workload_failure(request, w, EvaluationStatus.RUNTIME_ERROR, log,
                                  extra={"executor_fault": "actor_lost"}) for w in request.workloads]
        return merge_results(request, parts, wall_s=wall_s,
                             executor_info={"kind": "ray", "attempts": attempts, "faults": attempts})

    def iter_results(self, requests: Sequence[EvalRequest]) -> Iterator[tuple[int, EvalResult]]:
        """Evaluate ``requests`` over all actors; yield ``(index, result)`` as each one finishes.

        Raises:
            ExecutorError: an actor cannot start its worker (not a kernel fault) or the executor is closed.
        """
        ray = self.ray
        if not self.lanes:
            raise ExecutorError("ray executor is closed")
        lost_errors = (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError,
                       ray.exceptions.ObjectLostError)
        wires = [request_to_wire(r) for r in requests]
        pending = collections.deque(range(len(requests)))
        attempts = [0] * len(requests)
        t0 = [0.0] * len(requests)
        idle = collections.deque(self.lanes)
        inflight: dict[Any, tuple[_Lane, int, float]] = {}
        while pending or inflight:
            while pending and idle:
                lane, i = idle.popleft(), pending.popleft()
                t0[i] = t0[i] or time.monotonic()
                slack = STARTUP_SLACK_S if lane.info is None else 0.0
                ref = lane.actor.evaluate.remote(wires[i])
                inflight[ref] = (lane, i, time.monotonic() + self._deadline_s(requests[i]) + slack)
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=self.poll_s)
            if not ready:
                now = time.monotonic()
                for lane, _, deadline in inflight.values():
                    if now > deadline:  # an actor silent far beyond every harness deadline
                        ray.kill(lane.actor, no_restart=True)
                continue
            ref = ready[0]
            lane, i, _ = inflight.pop(ref)
            try:
                wire = ray.get(ref)
            except lost_errors as exc:
                attempts[i] += 1
                self._replace(lane)
                idle.append(lane)
                if attempts[i] > self.max_retries:
                    text = strip_ansi(str(exc)).strip()
                    why = text.splitlines()[0] if text else type(exc).__name__
                    yield i, self._lost(requests[i], why, attempts[i], time.monotonic() - t0[i])
                else:
                    pending.appendleft(i)  # the next idle actor takes it: elsewhere when one is free
                continue
            except ray.exceptions.RayTaskError as exc:
                raise ExecutorError(f"ray executor: actor {lane.name} failed (not a kernel fault): "
                                    f"{strip_ansi(str(exc))}") from exc
            idle.append(lane)
            yield i, self._finish(requests[i], wire, lane, attempts[i] + 1)

    def evaluate_many(self, requests: Sequence[EvalRequest]) -> list[EvalResult]:
        """Spread requests over all actors; results in request order."""
        out: list[EvalResult | None] = [None] * len(requests)
        for i, result in self.iter_results(requests):
            out[i] = result
        return out  # type: ignore[return-value]

    def evaluate(self, request: EvalRequest) -> EvalResult:
        """Evaluate one request on the next idle actor."""
        return self.evaluate_many([request])[0]

    def close(self) -> None:
        """Stop every actor's workers, kill the actors, and shut down a cluster this executor started."""
        self._finalizer()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
