"""``kernelopt doctor``: what this machine gives kernelopt, each item checked for real and offline.

Software versions, the GPU (or the Triton interpreter on the CPU), the CUPTI timer, Nsight Compute, the roofline's
device ceilings for each GPU model (shipped, or measured once into the cache by the first campaign), the sandbox a
real evaluation worker gets here (its READY frame: network namespace, read-only checkout), the operator library
(every definition and workload file loads), the Hydra configs (the default ``optimize`` config composes), the
tracking store's folder, and which LLM backends are configured (key names and agent executables on ``PATH`` only:
nothing is sent anywhere). Each check is ``ok``, ``info`` (a fact, nothing wrong), ``warn`` (works, with less than
it could) or ``fail`` (kernelopt will not work like this); the exit code is 1 when one fails.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import shutil
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass

from rich.markup import escape
from rich.table import Table

from kernelopt.cli.display import make_console

STATUSES = ("ok", "info", "warn", "fail")
_STYLE = {"ok": "green", "info": "cyan", "warn": "yellow", "fail": "red"}


@dataclass(frozen=True)
class Check:
    name: str
    status: str
    detail: str


def check_software() -> Check:
    import torch

    parts = [f"python {platform.python_version()}", f"torch {torch.__version__}"]
    try:
        import triton

        parts.append(f"triton {triton.__version__}")
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        return Check("software", "fail", ", ".join(parts) + f"; triton cannot be imported: {exc}")
    return Check("software", "ok", ", ".join(parts))


def check_gpu() -> Check:
    import torch

    if not torch.cuda.is_available():
        return Check("gpu", "info", "no CUDA GPU: evaluations run on the CPU through the Triton interpreter "
                                    "(TRITON_INTERPRET=1), with CPU wall-clock timing")
    names = []
    for i in range(torch.cuda.device_count()):
        major, minor = torch.cuda.get_device_capability(i)
        names.append(f"cuda:{i} {torch.cuda.get_device_name(i)} (sm_{major}{minor})")
    return Check("gpu", "ok", "; ".join(names))


def check_cupti(on_gpu: bool) -> Check:
    from kernelopt.harness.cupti_timer import cupti_available, cupti_version

    if not on_gpu:
        return Check("cupti timer", "info", "not used on the CPU")
    if cupti_available():
        return Check("cupti timer", "ok", f"cupti-python {cupti_version()}: the official kernel-activity timer")
    return Check("cupti timer", "warn", "cupti-python is not importable here (pip install 'kernelopt[gpu]'): timings "
                                        "fall back to CUDA events, which include launch gaps the contest's timer "
                                        "does not count")


def check_ncu(on_gpu: bool) -> Check:
    from kernelopt.harness.ncu import ncu_binary

    path = ncu_binary()
    if path:
        return Check("nsight compute", "ok", f"{path}: profiles carry its metric set")
    return Check("nsight compute", "info" if not on_gpu else "warn",
                 "ncu not on PATH: profiles carry torch.profiler kernel tables only")


def ceilings_detail(name: str) -> str | None:
    """One GPU model's ceilings as doctor shows them (figures and where they come from), None when it has none."""
    from kernelopt.analysis.roofline import cached_ceilings_path, load_ceilings

    ceil = load_ceilings(name)
    if ceil is None:
        return None
    origin = ("shipped with kernelopt" if load_ceilings(name, cache=False) is not None
              else f"measured into {cached_ceilings_path(name)}")
    return (f"{name}: copy {ceil.copy_bandwidth_bytes_per_s / 1e12:.2f} TB/s, bf16 {ceil.rate('bf16') / 1e12:.0f} / "
            f"fp8 {ceil.rate('fp8') / 1e12:.0f} TFLOP/s ({origin})")


def check_ceilings(on_gpu: bool) -> Check:
    """Which visible GPU models have roofline ceilings (shipped with kernelopt or measured into the cache)."""
    import torch

    from kernelopt.analysis.roofline import cached_ceilings_path

    if not on_gpu:
        return Check("device ceilings", "info", "no GPU: no roofline bounds (CPU timings are not compared with one)")
    parts, missing = [], []
    for name in dict.fromkeys(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())):
        detail = ceilings_detail(name)
        if detail is None:
            missing.append(name)
            detail = (f"{name}: none yet (the first campaign measures them, ~10 s, into "
                      f"{cached_ceilings_path(name)}; or python -m kernelopt.harness.ceilings --cache)")
        parts.append(detail)
    return Check("device ceilings", "info" if missing else "ok", "; ".join(parts))


_MEANING = {"network": "candidate code reaches neither the network nor the host's loopback services",
            "files": "candidate code cannot write the checkout or the operator library"}


def check_worker_sandbox() -> list[Check]:
    """Start one real CPU evaluation worker (with this process's KERNELOPT_WORKER_* settings) and read what its
    sandbox got from its READY frame."""
    from kernelopt.executor import WorkerStartError
    from kernelopt.executor.cpu import cpu_specs
    from kernelopt.executor.process import WorkerProcess
    from kernelopt.executor.sandbox import SANDBOXES

    env = {s.env: os.environ[s.env] for s in SANDBOXES if s.env in os.environ}
    try:
        worker = WorkerProcess(cpu_specs(1, env=env, startup_timeout_s=120.0)[0])
    except WorkerStartError as exc:
        return [Check("worker", "fail", f"an evaluation worker does not start: {exc}")]
    try:
        out = []
        for s in SANDBOXES:
            status = getattr(worker, s.kind)  # from the READY frame
            if s.met(status):
                out.append(Check(f"worker {s.kind}", "ok", f"{status}: {_MEANING[s.kind]}"))
            else:
                out.append(Check(f"worker {s.kind}", "info" if s.asked_off(status) else "warn", status))
        return out
    finally:
        worker.shutdown()


def check_operators() -> Check:
    from kernelopt.operators import list_operators, load_operator, operators_root

    names = list_operators()
    if not names:
        return Check("operators", "fail", f"no operator definitions under {operators_root()}")
    broken, workloads = [], 0
    for name in names:
        try:
            workloads += len(load_operator(name).workloads)
        except Exception as exc:  # noqa: BLE001 - every broken operator is listed
            broken.append(f"{name}: {exc}")
    if broken:
        return Check("operators", "fail", f"{len(broken)} of {len(names)} do not load: " + "; ".join(broken)[:600])
    return Check("operators", "ok", f"{len(names)} operators, {workloads} workloads ({operators_root()})")


def check_configs() -> Check:
    from hydra import compose, initialize_config_dir

    from kernelopt.cli.main import CONF_DIR
    from kernelopt.cli.schema import register_schemas

    try:
        register_schemas()
        with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
            cfg = compose(config_name="optimize")
        return Check("configs", "ok", f"{CONF_DIR}: optimize composes (operator {cfg.operator.name}, generator "
                                      f"{cfg.generator.name}, executor {getattr(cfg.executor.kind, 'value', cfg.executor.kind)})")
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        return Check("configs", "fail", f"{CONF_DIR}: the default optimize config does not compose: {exc}")


def check_tracking(uri: str | None) -> Check:
    if importlib.util.find_spec("mlflow") is None:  # the tracking package imports it first
        return Check("tracking", "fail", "mlflow is not installed: campaigns (`kernelopt optimize`), `promote`, "
                                         "`export` and `report` need it (`pip install -e .` installs it); "
                                         "`kernelopt evaluate` and benchmarks/contest.py run without it")
    from kernelopt.tracking.uris import resolve_tracking_uri, sqlite_path

    try:
        resolved = resolve_tracking_uri(uri, make_folder=False)
    except ValueError as exc:
        return Check("tracking", "fail", str(exc))
    db = sqlite_path(resolved)
    if db is None:
        return Check("tracking", "info", f"{resolved} (not a local file: reached when a campaign starts)")
    folder = next((p for p in (db.parent, *db.parents) if p.exists()), None)
    if folder is None or not os.access(folder, os.W_OK):
        return Check("tracking", "fail", f"{resolved}: {folder or db.parent} is not writable")
    state = "exists" if db.exists() else "made on the first campaign"
    return Check("tracking", "ok", f"{resolved} ({state})")


def check_llm_backends() -> Check:
    keys = [k for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY") if os.environ.get(k)]
    agents = [f"{a} ({shutil.which(a)})" for a in ("claude", "codex") if shutil.which(a)]
    detail = (f"API keys set: {', '.join(keys) or 'none'}; agent CLIs on PATH: {', '.join(agents) or 'none'}; "
              "the offline generator needs neither")
    return Check("llm backends", "info", detail)


def run_checks(tracking_uri: str | None = None, progress: Callable[[str], None] | None = None) -> list[Check]:
    """Every check, in order; ``progress`` is told each one's name before it runs."""
    def step(name: str, fn: Callable[[], Check | list[Check]]) -> list[Check]:
        if progress is not None:
            progress(name)
        try:
            got = fn()
        except Exception as exc:  # noqa: BLE001 - a crashing check is a failed check
            got = Check(name, "fail", f"{type(exc).__name__}: {exc}")
        return got if isinstance(got, list) else [got]

    checks = step("software", check_software) + step("gpu", check_gpu)
    on_gpu = checks[-1].status == "ok"
    for name, fn in (("cupti timer", lambda: check_cupti(on_gpu)), ("nsight compute", lambda: check_ncu(on_gpu)),
                     ("device ceilings", lambda: check_ceilings(on_gpu)),
                     ("worker", check_worker_sandbox), ("operators", check_operators), ("configs", check_configs),
                     ("tracking", lambda: check_tracking(tracking_uri)), ("llm backends", check_llm_backends)):
        checks += step(name, fn)
    return checks


def cmd_doctor(args) -> int:  # type: ignore[no-untyped-def]
    """Print the checks (a table, or JSON with ``--json``); 1 when one failed."""
    console = make_console(stderr=bool(args.json))
    with console.status("checking") as status:
        checks = run_checks(args.tracking_uri, lambda name: status.update(f"checking {name}"))
    if args.json:
        print(json.dumps([asdict(c) for c in checks], indent=1))
    else:
        table = Table(title=f"kernelopt doctor ({platform.node()}, {sys.platform})")
        for col in ("check", "status", "detail"):
            table.add_column(col, overflow="fold")
        for c in checks:
            table.add_row(c.name, f"[{_STYLE[c.status]}]{c.status}[/]", escape(c.detail))
        console.print(table)
    return 1 if any(c.status == "fail" for c in checks) else 0
