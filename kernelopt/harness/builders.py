"""Build a solution into a callable: python/triton packages, cpp/cuda torch extensions.

``build(solution, definition)`` returns the entry-point callable or raises :class:`BuildError`
carrying the log (syntax-error traceback, compiler output, signature mismatch); ``evaluate`` turns
that into ``COMPILE_ERROR``. Callables are cached per process by ``Solution.hash()``, the
``$KERNELOPT_WORKER_KEEP_BUILT`` most recently used ones (``executor.keep_built``, default 8): building another
solution first releases the least recently used one - its modules leave ``sys.modules``, its callable is dropped and
the garbage collector and the CUDA caching allocator give back what only it held - so a persistent worker's memory
(host and GPU) stays bounded over a long campaign, and an earlier candidate's module state (a global cache, a
buffer) does not outlive it by more than a few solutions.
"""

from __future__ import annotations

import gc
import importlib
import inspect
import os
import re
import sys
import traceback
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kernelopt.data.definition import Definition
from kernelopt.data.solution import Language, Solution
from kernelopt.harness import build_cache

_CPP_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")
#: Built callables by ``Solution.hash()``, least recently used first.
_BUILT: OrderedDict[str, Callable[..., Any]] = OrderedDict()
#: How many built solutions a process keeps (``executor.keep_built``: the executor sets it for its workers).
KEEP_BUILT_ENV = "KERNELOPT_WORKER_KEEP_BUILT"
DEFAULT_KEEP_BUILT = 8


class BuildError(RuntimeError):
    """A solution could not be built; ``log`` holds the details shown to the author."""

    def __init__(self, log: str) -> None:
        super().__init__(log)
        self.log = log


def build(solution: Solution, definition: Definition,
          cache_dir: str | Path | None = None) -> Callable[..., Any]:
    """Build ``solution`` and return its checked entry-point callable.

    Args:
        solution: The candidate (sources + build spec).
        definition: Its definition (the signature check needs the input/output counts).
        cache_dir: Build-cache root (default ``$KERNELOPT_CACHE_DIR`` or ``~/.cache/kernelopt/builds``).

    Returns:
        The entry-point callable.

    Raises:
        BuildError: Any build failure, with a log naming the cause.
    """
    if solution.definition != definition.name:
        raise BuildError(f"solution '{solution.name}' is for definition '{solution.definition}', "
                         f"not '{definition.name}'")
    key = solution.hash()
    fn = _BUILT.get(key)
    if fn is not None:
        _BUILT.move_to_end(key)
    else:
        release_built(keep_built() - 1)  # before the build: what the new one allocates fits where the old was
        lang = solution.spec.language
        if lang in (Language.python, Language.triton):
            fn = _build_python(solution, cache_dir)
        elif lang in (Language.cpp, Language.cuda):
            fn = _build_cpp(solution, cache_dir)
        else:
            raise BuildError(f"language '{lang.value}' is not supported by this harness "
                             "(supported: python, triton, cpp, cuda)")
        _BUILT[key] = fn
    check_signature(fn, definition, solution.spec.destination_passing_style)
    return fn


def keep_built() -> int:
    """How many built solutions this process keeps (``$KERNELOPT_WORKER_KEEP_BUILT``, at least 1)."""
    raw = os.environ.get(KEEP_BUILT_ENV, "").strip()
    try:
        return max(1, int(raw)) if raw else DEFAULT_KEEP_BUILT
    except ValueError:
        raise ValueError(f"{KEEP_BUILT_ENV}={raw!r}: expected a whole number of solutions (>= 1)") from None


def built_solutions() -> list[str]:
    """Hashes of the solutions this process keeps built, least recently used first."""
    return list(_BUILT)


def build_state(solution_hash: str) -> dict[str, Any]:
    """What an evaluation's process held built beside ``solution_hash`` (recorded in its environment as
    ``builds``): ``others`` (solutions whose modules were still loaded) and ``keep`` (the bound)."""
    try:
        keep: int | str = keep_built()
    except ValueError as exc:
        keep = str(exc)
    return {"others": sum(1 for k in _BUILT if k != solution_hash), "keep": keep}


def release_built(keep: int = 0) -> list[str]:
    """Release the least recently used built solutions until at most ``keep`` remain; returns their hashes.

    A released solution's package (``ko_<hash>`` and its submodules) leaves ``sys.modules`` and its callable is
    dropped; then the garbage collector runs and, where this process has initialised CUDA, the caching allocator
    returns its free blocks. Building it again imports it afresh from the build cache. (A compiled extension's
    shared library stays mapped: Python cannot unload one.)
    """
    released = []
    while len(_BUILT) > max(keep, 0):
        key = _BUILT.popitem(last=False)[0]  # the callable not bound here: the collection below must free it
        package = build_cache.PACKAGE_PREFIX + key
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]
        released.append(key)
    if released:
        gc.collect()
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_initialized():
            torch.cuda.empty_cache()
    return released


def _build_python(solution: Solution, cache_dir: str | Path | None) -> Callable[..., Any]:
    spec = solution.spec
    if spec.language == Language.triton:
        try:
            importlib.import_module("triton")
        except Exception as exc:  # pragma: no cover - triton is a dependency
            raise BuildError(f"triton solution but triton cannot be imported: {exc}") from None
    pkg = build_cache.materialize(solution, "py", cache_dir)
    try:
        module = build_cache.import_entry_module(pkg, spec.entry_file)
    except BaseException as exc:  # SyntaxError, ImportError, errors raised at import time, SystemExit
        tb = traceback.format_exc()
        raise BuildError(f"importing '{spec.entry_file}' of solution '{solution.name}' failed: "
                         f"{type(exc).__name__}: {exc}\n{tb}") from None
    fn = getattr(module, spec.entry_function, None)
    if fn is None:
        raise BuildError(f"entry function '{spec.entry_function}' not found in '{spec.entry_file}'")
    if not callable(fn):
        raise BuildError(f"entry '{spec.entry_point}' is not callable")
    return fn


def _build_cpp(solution: Solution, cache_dir: str | Path | None) -> Callable[..., Any]:
    spec = solution.spec
    binding = spec.binding or "tvm-ffi"
    if binding != "torch":
        raise BuildError(f"cpp/cuda binding '{binding}' is not supported by this harness; "
                         "set spec.binding to 'torch' (torch.utils.cpp_extension) or use a Python "
                         "entry point that compiles its own extension")
    if not spec.entry_file.endswith(_CPP_SUFFIXES):
        raise BuildError(f"entry file '{spec.entry_file}' must be one of {list(_CPP_SUFFIXES)}")
    import torch
    from torch.utils import cpp_extension

    with_cuda = spec.language == Language.cuda or any(s.path.endswith(".cu") for s in solution.sources)
    if with_cuda and (torch.version.cuda is None or cpp_extension.CUDA_HOME is None):
        raise BuildError("CUDA solution cannot be compiled here: "
                         f"torch CUDA version={torch.version.cuda}, CUDA_HOME={cpp_extension.CUDA_HOME} "
                         "(needs a CUDA build of torch and nvcc)")
    folder = build_cache.materialize(solution, "ext", cache_dir)
    sources = [str(folder / s.path) for s in solution.sources if s.path.endswith(_CPP_SUFFIXES)]
    try:
        ext = cpp_extension.load(
            name=folder.name, sources=sources, extra_include_paths=[str(folder)],
            build_directory=str(folder), with_cuda=with_cuda, verbose=False,
        )
    except Exception as exc:
        raise BuildError(f"torch extension build of solution '{solution.name}' failed:\n{exc}") from None
    fn = getattr(ext, spec.entry_function, None)
    if fn is None:
        exported = sorted(n for n in dir(ext) if not n.startswith("_"))
        raise BuildError(f"symbol '{spec.entry_function}' not exported by the extension "
                         f"(exported: {exported}); bind it with PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)")
    return fn


# -- signature check ---------------------------------------------------------------------------------

def _pybind_params(fn: Callable[..., Any]) -> list[tuple[str, bool]] | None:
    """Parameters ``(name, has_default)`` parsed from a pybind11 docstring's first line, if any."""
    doc = (getattr(fn, "__doc__", None) or "").strip().splitlines()
    name = getattr(fn, "__name__", "")
    if not doc or not name or not doc[0].startswith(name + "("):
        return None
    m = re.match(re.escape(name) + r"\((.*)\)\s*->", doc[0])
    if m is None:
        return None
    params, depth, cur = [], 0, ""
    for ch in m.group(1):
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            params.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        params.append(cur)
    return [(p.split(":")[0].strip(), "=" in p) for p in params]


def check_signature(fn: Callable[..., Any], definition: Definition, dps: bool) -> None:
    """Official signature rule: ``fn`` must bind exactly len(inputs)+len(outputs) positional
    arguments (DPS) or len(inputs) (value-returning); extra defaulted parameters are fine,
    ``*args`` and required keyword-only parameters are not.

    Raises:
        BuildError: ``"<style> callable: expected N positional parameters, but ..."``.
    """
    n = len(definition.inputs) + (len(definition.outputs) if dps else 0)
    style = "Destination-passing style" if dps else "Value-returning"
    head = f"{style} callable: expected {n} positional parameters"
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        params = _pybind_params(fn)
        if params is None:
            return  # not introspectable (e.g. a C function without a text signature): nothing to check
        required = sum(1 for _, d in params if not d)
        if not (required <= n <= len(params)):
            names = ", ".join(p for p, _ in params)
            raise BuildError(f"{head}, but got {len(params)} ({names})") from None
        return
    positional, required, problems = 0, 0, []
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            positional += 1
            required += p.default is p.empty
        elif p.kind is p.VAR_POSITIONAL:
            problems.append(f"variadic *{p.name} is not allowed")
        elif p.kind is p.KEYWORD_ONLY and p.default is p.empty:
            problems.append(f"keyword-only parameter '{p.name}' has no default")
    if not problems and required > n:
        problems.append(f"{required} parameters have no default")
    if not problems and positional < n:
        problems.append(f"only {positional} positional parameters")
    if problems:
        expected = ", ".join(definition.signature(dps))
        raise BuildError(f"{head} ({expected}), but signature '{sig}' is incompatible: "
                         + "; ".join(problems))
