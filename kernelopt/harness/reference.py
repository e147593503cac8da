"""Run a definition's Python reference (the ``reference`` source defining top-level ``run``).

The source is compiled into a fresh module namespace (registered with :mod:`linecache`, so
tracebacks show reference lines) at every load. Not cached: a candidate in the same process put its own function
in the cache under the key the harness computes (the definition's name and the SHA1 of its public source), and the
"reference" then agreed with its zeros (the adversarial corpus's ``reference_cache_poison``, PASSED until
2026-12-06). Compiling a reference takes well under a millisecond; its *outputs* are cached per worker
(:mod:`kernelopt.harness.tensor_cache`, fingerprinted and sealed).
"""

from __future__ import annotations

import hashlib
import linecache
import types
from collections.abc import Callable
from typing import Any

import torch

from kernelopt.data.definition import Definition


class ReferenceRunError(RuntimeError):
    """The reference cannot be loaded, was called with missing inputs, or returned the wrong outputs."""


def _key(definition: Definition) -> tuple[str, str]:
    return definition.name, hashlib.sha1(definition.reference.encode()).hexdigest()


def load_reference(definition: Definition) -> Callable[..., Any]:
    """The reference's ``run`` callable, from its source executed afresh in a new module namespace.

    Raises:
        ReferenceRunError: the source fails to compile/execute or defines no callable ``run``.
    """
    key = _key(definition)
    filename = f"<reference {definition.name} {key[1][:10]}>"
    source = definition.reference
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    module = types.ModuleType(f"kernelopt_reference_{definition.name}")
    module.__file__ = filename
    try:
        code = compile(source, filename, "exec")
        exec(code, module.__dict__)  # noqa: S102 - executing the reference is the point
    except Exception as exc:
        raise ReferenceRunError(f"{definition.name}: field 'reference' failed to load: "
                                f"{type(exc).__name__}: {exc}") from exc
    fn = module.__dict__.get("run")
    if not callable(fn):
        raise ReferenceRunError(f"{definition.name}: field 'reference' defines no callable 'run'")
    return fn


def run_reference(definition: Definition, inputs: dict[str, Any]) -> dict[str, torch.Tensor]:
    """Call the reference on ``inputs`` (by name, in signature order); outputs by name.

    A single returned tensor maps to a one-output definition; a tuple/list maps to the outputs in
    order.

    Raises:
        ReferenceRunError: an input is missing, or the number/type of returned values does not match
            the declared outputs. Exceptions raised inside the reference propagate unchanged.
    """
    missing = [n for n in definition.inputs if n not in inputs]
    if missing:
        raise ReferenceRunError(f"{definition.name}: inputs {missing} missing for the reference")
    fn = load_reference(definition)
    with torch.no_grad():
        result = fn(*(inputs[n] for n in definition.inputs))
    values = list(result) if isinstance(result, (tuple, list)) else [result]
    names = list(definition.outputs)
    if len(values) != len(names):
        raise ReferenceRunError(f"{definition.name}: reference returned {len(values)} value(s) but the "
                                f"definition declares {len(names)} output(s) {names}")
    for name, value in zip(names, values):
        if not isinstance(value, torch.Tensor):
            raise ReferenceRunError(f"{definition.name}: reference output '{name}' is a "
                                    f"{type(value).__name__}, not a torch.Tensor")
    return dict(zip(names, values))
