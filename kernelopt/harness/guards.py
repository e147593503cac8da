"""Anti-cheat guards around a solution call (REFERENCE §7).

* Output poisoning: DPS output buffers are filled before every checked call - floats with NaN (so any
  element the kernel never writes fails the non-finite check), integers with ``INT_POISON[dtype]``
  (the dtype's minimum, e.g. -2**31 for int32: never a valid index, count or -1 padding), bool with
  True - so a kernel cannot pass by leaving a stale correct result in uninitialised memory.
* Input mutation: inputs are copied before the call and compared bitwise afterwards; a difference
  is ``REJECTED`` with reason ``input mutation: <name>``.
* Plain tensors: returned outputs must be exactly ``torch.Tensor`` (no subclass / lazy tensor) with
  storage on the evaluation device.
* Harness integrity: the timing and synchronisation functions the harness relies on must be the same
  objects after the call (no monkey-patching of timers); replaced ones are put back.
* Threads: Python threads started during timing and left running, or threads the solution started
  earlier (a pool) that burn CPU during the timed calls, are work outside the timed window.
"""

from __future__ import annotations

import builtins
import sys
import threading
import time
import types
from collections.abc import Mapping
from typing import Any

import torch

from kernelopt.harness.cupti_timer import cupti_version
from kernelopt.harness.function_state import (
    constant_names,
    dynamo_wrapper_of,
    foreign_dynamo_hook,
    restore_state,
    same_state,
    state_of,
)
from kernelopt.harness.interception import (
    leave_torch_modes,
    restore_hooks,
    same_hooks,
    same_modes,
    torch_modes,
    trace_hooks,
)

#: Read-only: a candidate that set a poison value to what its kernel leaves behind would pass stale memory.
INT_POISON: Mapping[torch.dtype, int] = types.MappingProxyType(
    {**{d: torch.iinfo(d).min for d in (torch.int8, torch.int16, torch.int32, torch.int64)}, torch.uint8: 0xFF})


def poison_(t: torch.Tensor) -> torch.Tensor:
    """Fill a tensor in place with its dtype's poison value (NaN, integer minimum, or True)."""
    if t.is_floating_point():
        if t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            t.view(torch.uint8).fill_(0x7F)  # NaN bit pattern in both fp8 formats
        else:
            t.fill_(float("nan"))
    elif t.dtype == torch.bool:
        t.fill_(True)
    elif t.dtype in INT_POISON:
        t.fill_(INT_POISON[t.dtype])
    else:
        t.view(torch.uint8).fill_(0xFF)
    return t


def _bytes(t: torch.Tensor) -> torch.Tensor:
    t = t.detach().contiguous()
    return t.reshape(-1).view(torch.uint8) if t.numel() else t.reshape(-1).to(torch.uint8)


class InputGuard:
    """Bitwise copies of a call's inputs, to detect mutation and to feed trusted code later."""

    def __init__(self, inputs: dict[str, Any]) -> None:
        self.copies: dict[str, Any] = {
            k: (v.detach().clone() if isinstance(v, torch.Tensor) else v) for k, v in inputs.items()
        }

    def mutated(self, inputs: dict[str, Any]) -> list[str]:
        """Names of inputs whose bytes (or shape/dtype, or scalar value) changed."""
        bad = []
        for k, ref in self.copies.items():
            cur = inputs[k]
            if isinstance(ref, torch.Tensor):
                if (not isinstance(cur, torch.Tensor) or cur.shape != ref.shape or cur.dtype != ref.dtype
                        or not torch.equal(_bytes(cur), _bytes(ref))):
                    bad.append(k)
            elif cur != ref and not (cur != cur and ref != ref):  # NaN scalars compare unequal
                bad.append(k)
        return bad

    def fresh(self) -> dict[str, Any]:
        """New clones of the pristine inputs."""
        return {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in self.copies.items()}


def _same_device(t: torch.Tensor, device: torch.device) -> bool:
    if t.device.type != device.type:
        return False
    if device.type == "cuda":
        want = device.index if device.index is not None else torch.cuda.current_device()
        return t.device.index == want
    return True


def output_problems(names: list[str], outs: list[Any], device: torch.device) -> list[str]:
    """Reasons why returned outputs are not plain, materialised tensors on ``device``."""
    problems = []
    for name, t in zip(names, outs):
        if type(t) is not torch.Tensor:
            problems.append(f"output '{name}' is a {type(t).__module__}.{type(t).__qualname__}, "
                            "not a plain torch.Tensor")
            continue
        if t.is_meta or t.layout != torch.strided:
            problems.append(f"output '{name}' has no dense storage (layout {t.layout}, meta={t.is_meta})")
        elif not _same_device(t, device):
            problems.append(f"output '{name}' is on {t.device}, expected {device}")
    return problems


_BUILTINS = ("isinstance", "type", "len", "min", "max", "sum", "abs", "float", "int", "any", "all",
             "sorted", "getattr", "setattr", "hasattr", "print", "__import__", "id", "zip", "range",
             "bool", "round", "str", "repr", "list", "tuple", "dict", "set", "enumerate", "iter", "next", "hash",
             "callable", "vars", "issubclass", "divmod", "pow", "map", "filter", "reversed", "format")


#: Libraries whose modules (and submodules) in ``sys.modules`` are watched: what the reference and the checks import
_LIBRARY_MODULES = frozenset({"torch", "numpy", "math", "time", "threading", "builtins", "functools", "operator",
                              "cupti"})

class _Resolved:
    """Owner of a ``[resolved]`` entry: the attribute as read through the class's MRO (nothing to put back)."""

    def __init__(self, cls: type) -> None:
        self.cls = cls


def _resolve(cls: type, attr: str) -> Any:
    value = getattr(cls, attr, None)  # a classmethod resolves to a new bound method at every look-up
    return value.__func__ if isinstance(value, types.MethodType) else value


#: The torch.cuda names the harness calls (timers, synchronisation, device queries)
_TORCH_CUDA = ("synchronize", "Event", "Stream", "current_stream", "default_stream", "stream", "set_stream", "device",
               "current_device", "device_count", "is_available", "is_initialized", "get_device_name",
               "get_device_properties", "empty_cache")

_INHERITED = object()  # marks a class attribute that was not set on the class itself
_GONE = object()  # a watched name no longer there
_MODES_LEFT_ON = "torch mode stacks (a TorchFunctionMode / TorchDispatchMode left on)"


#: Tensor methods and operators references and checks use (the public methods; the arithmetic, comparison, logical,
#: indexing and conversion dunders: a patched ``__gt__`` or ``__bool__`` could turn a tolerance test around)
_TENSOR_DUNDERS = (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "matmul", "pow", "neg", "abs", "invert",
    "radd", "rsub", "rmul", "rtruediv", "rfloordiv", "rpow", "rmatmul",
    "iadd", "isub", "imul", "itruediv", "and", "or", "xor", "rand", "ror", "rxor",
    "lt", "le", "gt", "ge", "eq", "ne",
    "getitem", "setitem", "bool", "float", "int", "index", "len", "iter", "contains", "array", "format",
)
_TENSOR_METHODS = tuple(sorted({n for n in dir(torch.Tensor) if not n.startswith("_")}
                               | {f"__{op}__" for op in _TENSOR_DUNDERS if hasattr(torch.Tensor, f"__{op}__")}))


def _ours(mod_name: str, mod: Any) -> bool:
    """The platform's own modules in this process: ``kernelopt.*`` and a worker run as ``python -m kernelopt...``
    (its ``__main__``: a candidate that replaced the worker's ``result_to_wire`` at import reported every later
    result of that worker, the next candidates' included, 1000x faster)."""
    if mod_name.startswith("kernelopt."):
        return True
    spec = getattr(mod, "__spec__", None) if mod_name == "__main__" else None
    return bool(spec is not None and str(getattr(spec, "name", "")).startswith("kernelopt."))


def _watched() -> dict[str, tuple[Any, str, Any]]:
    """``name -> (owner, attribute, value)`` for every function the harness times and checks with
    (builtins apart: see :class:`IntegrityGuard`)."""
    import numpy as np

    cuda = torch.cuda
    watched: dict[str, tuple[Any, str, Any]] = {}
    for mod_name, mod in list(sys.modules.items()):
        if mod is None:
            continue
        ours = _ours(mod_name, mod)
        # a stand-in library module in sys.modules is what code importing it afterwards gets - the reference, loaded
        # from its source at every evaluation, included (the corpus's fake_torch_module PASSED with zeros)
        if ours or mod_name.split(".")[0] in _LIBRARY_MODULES:
            watched[f"sys.modules[{mod_name}]"] = (sys.modules, mod_name, mod)
        if not ours:
            continue
        for attr in constant_names(mod):  # EPS, THREAD_CPU_NS...: a rebound constant turns a verdict around
            watched[f"{mod_name}.{attr}"] = (mod, attr, vars(mod)[attr])
        for attr, val in list(vars(mod).items()):
            if callable(val):
                watched[f"{mod_name}.{attr}"] = (mod, attr, val)
            if isinstance(val, type) and val.__module__ == mod_name:
                for meth, fn in list(vars(val).items()):
                    if callable(fn) or isinstance(fn, (staticmethod, classmethod)):
                        watched[f"{mod_name}.{attr}.{meth}"] = (val, meth, fn)
    extra: list[tuple[str, Any, str]] = [
        ("numpy", np, "median"), ("numpy", np, "mean"), ("numpy", np, "percentile"),
        ("time", time, "perf_counter"), ("time", time, "perf_counter_ns"), ("time", time, "time"),
        ("time", time, "monotonic"), ("time", time, "sleep"),
        ("threading", threading, "active_count"), ("threading", threading, "enumerate"),
        ("torch.cuda", cuda, "synchronize"), ("torch.cuda.Event", cuda.Event, "record"),
        ("torch.cuda.Event", cuda.Event, "elapsed_time"), ("torch.cuda.Event", cuda.Event, "synchronize"),
        ("torch.cuda.Event", cuda.Event, "__init__"), ("torch.cuda.Stream", cuda.Stream, "synchronize"),
        ("torch.Tensor", torch.Tensor, "zero_"), ("torch.Tensor", torch.Tensor, "fill_"),
        ("torch.Tensor", torch.Tensor, "copy_"), ("torch.Tensor", torch.Tensor, "clone"),
        ("torch.Tensor", torch.Tensor, "to"), ("torch.Tensor", torch.Tensor, "float"),
        ("torch.Tensor", torch.Tensor, "abs"), ("torch.Tensor", torch.Tensor, "__sub__"),
        ("torch.Tensor", torch.Tensor, "__gt__"), ("torch.Tensor", torch.Tensor, "item"),
        ("torch", torch, "equal"), ("torch", torch, "isfinite"), ("torch", torch, "isnan"),
        ("torch", torch, "isinf"), ("torch", torch, "allclose"), ("torch", torch, "abs"),
        ("torch", torch, "empty"), ("torch", torch, "empty_like"),
        ("torch.Tensor", torch.Tensor, "__torch_function__"), ("torch.Tensor", torch.Tensor, "__torch_dispatch__"),
    ]
    # what the reference computes with: every public function of torch and torch.nn.functional and every public
    # Tensor method (a candidate that replaced torch.rsqrt at import made the reference return zeros, and its
    # all-zeros output PASSED; one that slowed it down inflated its speedup)
    for prefix, owner in (("torch", torch), ("torch.nn.functional", torch.nn.functional)):
        extra += [(prefix, owner, name) for name, val in list(vars(owner).items())
                  if not name.startswith("_") and callable(val) and not isinstance(val, (type, types.ModuleType))]
    extra += [("torch.Tensor", torch.Tensor, name) for name in _TENSOR_METHODS]
    # what the timers read: the torch.cuda functions and classes the harness uses (a stand-in torch.cuda.Event would
    # time every cuda_event call), and cupti-python's functions (fabricated activity records) where it is loaded
    extra += [("torch.cuda", cuda, name) for name in _TORCH_CUDA if hasattr(cuda, name)]
    for prefix in [m for m in ("cupti.cupti",) if m in sys.modules]:
        owner = sys.modules[prefix]
        extra += [(prefix, owner, name) for name, val in list(vars(owner).items())
                  if not name.startswith("_") and callable(val) and not isinstance(val, types.ModuleType)]
    for prefix, owner in (("torch", torch), ("torch.nn", torch.nn)):  # torch.nn.functional, torch.linalg...
        extra += [(prefix, owner, name) for name, val in list(vars(owner).items())
                  if isinstance(val, types.ModuleType) and not name.startswith("__")]
    for prefix, owner, attr in extra:
        if isinstance(owner, type):  # inherited methods are read through the MRO; a patch shadows them
            watched[f"{prefix}.{attr}"] = (owner, attr, owner.__dict__.get(attr, _INHERITED))
            watched[f"{prefix}.{attr}[resolved]"] = (_Resolved(owner), attr, _resolve(owner, attr))
        else:
            watched[f"{prefix}.{attr}"] = (owner, attr, getattr(owner, attr, None))
    return watched


def _current(owner: Any, attr: str) -> Any:
    """What a watched entry's ``(owner, attr)`` holds now, read as :func:`_watched` read it."""
    if owner is sys.modules:
        return sys.modules.get(attr, _GONE)
    if isinstance(owner, _Resolved):
        return _resolve(owner.cls, attr)
    if isinstance(owner, type):
        return owner.__dict__.get(attr, _INHERITED)
    return getattr(owner, attr, None)


class IntegrityGuard:
    """Snapshot of the functions (and module constants) the harness times and checks with.

    ``tampered()`` names what was replaced since the snapshot - module functions of every ``kernelopt`` module and
    their classes' methods, those modules' constants, the modules themselves in ``sys.modules``, timers,
    synchronisation, comparison functions, every public torch function, common builtins - or changed in place (a
    Python function's code, defaults or closure: :mod:`kernelopt.harness.function_state`), and torch modes or trace
    hooks left on (:mod:`kernelopt.harness.interception`); ``restore()`` puts the
    snapshot's objects and states back, so a persistent worker stays trustworthy after a cheat.
    """

    def __init__(self) -> None:
        if torch.cuda.is_available():  # the official timer imports cupti-python lazily, after a candidate could have:
            cupti_version()  # import it (the timer's own probe) before the snapshot, so its functions are watched
        self.builtins = {b: builtins.__dict__.get(b) for b in _BUILTINS}
        self.before = _watched()
        self.states = {k: state_of(f) for k, (_, _, f) in self.before.items()}
        self.modes = torch_modes()
        self.hooks = trace_hooks()

    def _bad_builtins(self) -> list[str]:
        # dict look-ups and identity only: a patched builtin must not break the check itself
        return ["builtins." + b for b in _BUILTINS if builtins.__dict__.get(b) is not self.builtins[b]]

    def tampered(self) -> list[str]:
        """Names of watched objects that were replaced or changed in place since the snapshot.

        One replacement is torch's own and is adopted into the snapshot instead: ``torch._disable_dynamo``'s
        wrapper around the snapshot's very function (importing ``torch._dynamo`` - which fla, Inductor and any
        ``torch.compile`` user import - rebinds ``torch.manual_seed`` to ``torch._disable_dynamo(torch.manual_seed)``;
        the first candidate of a worker to import it was REJECTED for tampering). No other wrapper is, torch-made or
        not (``torch.autocast(...)(torch.rsqrt)`` has torch's code and the original as ``__wrapped__`` too)."""
        bad = self._bad_builtins()
        if bad:
            return bad
        out = [] if same_modes(torch_modes(), self.modes) else [_MODES_LEFT_ON]
        if not same_hooks(trace_hooks(), self.hooks):
            out.append("trace / profile hooks (sys.settrace, sys.setprofile, threading, sys.monitoring)")
        for k, (owner, attr, f) in self.before.items():
            cur = _current(owner, attr)
            if cur is not f and cur is not _GONE and dynamo_wrapper_of(cur, f):
                self.before[k] = (owner, attr, cur)
                self.states[k] = state_of(cur)
                f = cur
            if cur is not f or not same_state(state_of(f), self.states[k]) or foreign_dynamo_hook(f) is not None:
                out.append(k)
        return out

    def restore(self) -> list[str]:
        """Put replaced functions back, and changed functions' code, defaults and closures (a foreign
        ``__dynamo_disable`` hook is removed: torch makes its own again at the next call); returns their names."""
        bad = self._bad_builtins()
        for name in bad:
            builtins.__dict__[name[len("builtins."):]] = self.builtins[name[len("builtins."):]]
        later = self.tampered()
        leave_torch_modes(self.modes)
        restore_hooks(self.hooks)
        for k in later:
            if k not in self.before:
                continue
            owner, attr, val = self.before[k]
            restore_state(val, self.states[k])
            hooked = foreign_dynamo_hook(val)
            if hooked is not None:  # torch makes its own hook again at the next call
                getattr(hooked, "__dict__", {}).pop("__dynamo_disable", None)
            try:
                if isinstance(owner, _Resolved):
                    continue
                if owner is sys.modules:
                    sys.modules[attr] = val
                elif val is _INHERITED:
                    delattr(owner, attr)
                else:
                    setattr(owner, attr, val)
            except (AttributeError, TypeError):  # an immutable owner: nothing was replaced there
                pass
        return bad + later


#: CPU time a thread the solution started earlier may use during timed calls (idle pools use ~0).
THREAD_CPU_NS = 20_000


#: Library threads that wake on their own and never run solution code: module -> (class, method that the
#: thread runs). tqdm's monitor thread (``tqdm_monitor``, a ``Thread`` subclass; torch.compile's progress
#: bars start it) got a torch.compile baseline REJECTED on the H200, and so did a Triton kernel timed in a
#: worker where Inductor's compile-worker pool timer (``subproc_worker_timer``, a plain ``Thread`` running
#: ``Timer.check``) started again, and so did a torch.compile baseline for
#: the pool's reader thread (``InductorSubproc``, ``SubprocPool._read_thread``: it only collects compiled
#: kernels from the pool's process). A thread is allowed only when the code it runs *is* that method's code
#: object, captured the first time the module is seen in ``sys.modules`` (importing it ourselves would
#: cost seconds) and only if it comes from that module's own file: a look-alike name or an overridden
#: method is still flagged.
_LIBRARY_THREADS = {"tqdm._monitor": ("TMonitor", "run"),
                    "torch._inductor.compile_worker.timer": ("Timer", "check"),
                    "torch._inductor.compile_worker.subproc_pool": ("SubprocPool", "_read_thread")}
_LIBRARY_CODE: dict[str, Any] = {}


def _library_code(module: str) -> Any:
    if module not in _LIBRARY_CODE:
        mod = sys.modules.get(module)
        cls_name, method = _LIBRARY_THREADS[module]
        code = getattr(getattr(getattr(mod, cls_name, None), method, None), "__code__", None)
        if code is None or code.co_filename != getattr(mod, "__file__", None):
            return None
        _LIBRARY_CODE[module] = code
    return _LIBRARY_CODE[module]


def housekeeping(t: threading.Thread) -> bool:
    """Whether ``t`` runs an unmodified library housekeeping method (see :data:`_LIBRARY_THREADS`): its
    ``target`` for a plain ``Thread``, its class's ``run`` for a subclass."""
    if type(t) is threading.Thread:
        entry = getattr(getattr(t, "_target", None), "__func__", None)
    else:
        entry = type(t).run
    code = getattr(entry, "__code__", None)
    return code is not None and any(code is _library_code(m) for m in _LIBRARY_THREADS)


def thread_cpu_ns(ident: int) -> int | None:
    """CPU time of a live thread in ns (``None`` when it is gone or the platform cannot tell)."""
    try:
        return time.clock_gettime_ns(time.pthread_getcpuclockid(ident))
    except (AttributeError, OSError, OverflowError):
        return None


class ThreadWatch:
    """Python threads alive at construction, and the CPU time of ``watched`` threads then.

    ``spawned()`` names threads started since and still alive (work a call left running after it
    returned, outside the timed window); ``busy()`` names watched threads (ones the solution started
    in an earlier call, e.g. a pool) that used more than :data:`THREAD_CPU_NS` of CPU since.
    """

    def __init__(self, watched: set[int] | None = None) -> None:
        alive = threading.enumerate()
        self.before = {t.ident for t in alive}
        quiet = {t.ident for t in alive if housekeeping(t)}
        self.cpu = {i: thread_cpu_ns(i) for i in (watched or set()) if i in self.before and i not in quiet}

    def new_threads(self) -> list[threading.Thread]:
        """Threads started since construction and still alive (library housekeeping threads aside)."""
        return [t for t in threading.enumerate()
                if t.ident not in self.before and t.is_alive() and not housekeeping(t)]

    def spawned(self) -> list[str]:
        """Names of threads that did not exist at construction and are still alive."""
        return [t.name for t in self.new_threads()]

    def busy(self) -> list[str]:
        """Names of watched threads that used more than ``THREAD_CPU_NS`` of CPU since construction."""
        names = {t.ident: t.name for t in threading.enumerate()}
        out = []
        for ident, before in self.cpu.items():
            now = thread_cpu_ns(ident)
            if before is not None and now is not None and now - before > THREAD_CPU_NS:
                out.append(names.get(ident, str(ident)))
        return out
