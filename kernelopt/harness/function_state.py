"""What a function *is* beyond its identity, for the harness's integrity guard (:mod:`kernelopt.harness.guards`).

An identity snapshot of the harness's functions misses three in-process tamperings, each seen to pass the harness
(the adversarial corpus's ``code_swap_timer``, ``harness_constant`` and ``autocast_reference``, 2026-12-06):

* a function changed **in place**: ``time_callable.__code__ = fake.__code__`` (likewise ``__defaults__``,
  ``__kwdefaults__`` or a closure cell) keeps the object, so ``is`` still holds - :func:`state_of` /
  :func:`same_state` / :func:`restore_state` cover those attributes;
* a module **constant** rebound: ``correctness.EPS = 1e30`` makes every finite error relatively zero -
  :func:`constant_names` lists the module globals that no code of the module rebinds (no ``global`` statement
  names them), which the guard then watches like functions;
* a **torch-made wrapper** around the original: ``torch.autocast(...)(torch.rsqrt)`` has torch's code and
  ``__wrapped__`` is the original, exactly like the one rebinding torch does itself (importing ``torch._dynamo``
  rebinds ``torch.manual_seed`` to ``torch._disable_dynamo(torch.manual_seed)``) - :func:`dynamo_wrapper_of`
  accepts that one only: the code object of ``_disable_dynamo``'s wrapper, whose closure holds the original, and
  whose lazily made ``__dynamo_disable`` hook on the original is dynamo's own ``DisableContext`` wrapper.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import torch

_EMPTY = object()  # an empty closure cell


def _function(f: Any) -> types.FunctionType | None:
    if isinstance(f, (staticmethod, classmethod)):
        f = f.__func__
    return f if isinstance(f, types.FunctionType) else None


def _cell(c: Any) -> Any:
    try:
        return c.cell_contents
    except ValueError:
        return _EMPTY


def state_of(f: Any) -> tuple[Any, ...] | None:
    """``(code, defaults, kwdefaults, kwdefaults' items, closure cells' contents)`` of a Python function (or a
    static / class method of one); ``None`` for anything else (builtins have no such state)."""
    fn = _function(f)
    if fn is None:
        return None
    kw = fn.__kwdefaults__
    return (fn.__code__, fn.__defaults__, kw, None if kw is None else tuple(kw.items()),
            tuple(_cell(c) for c in fn.__closure__ or ()))


def _same_items(a: tuple | None, b: tuple | None) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(ka == kb and va is vb for (ka, va), (kb, vb) in zip(a, b))


def same_state(a: tuple[Any, ...] | None, b: tuple[Any, ...] | None) -> bool:
    """Whether two :func:`state_of` snapshots hold the very same objects."""
    if a is None or b is None:
        return a is b
    return (a[0] is b[0] and a[1] is b[1] and a[2] is b[2] and _same_items(a[3], b[3])
            and len(a[4]) == len(b[4]) and all(x is y for x, y in zip(a[4], b[4])))


def restore_state(f: Any, state: tuple[Any, ...] | None) -> None:
    """Put a :func:`state_of` snapshot back into the function (in place)."""
    fn = _function(f)
    if fn is None or state is None:
        return
    code, defaults, kw, items, cells = state
    fn.__code__ = code
    fn.__defaults__ = defaults
    if kw is not None:
        kw.clear()
        kw.update(items)
    fn.__kwdefaults__ = kw
    for cell, value in zip(fn.__closure__ or (), cells):
        if value is _EMPTY:
            if _cell(cell) is not _EMPTY:
                del cell.cell_contents
        else:
            cell.cell_contents = value


def _probe() -> None:
    """A function for :data:`_DISABLE_DYNAMO_CODE` to wrap (never called)."""


try:  # torch._disable_dynamo(fn) returns the same nested function's code for every fn (it imports nothing yet)
    _DISABLE_DYNAMO_CODE = torch._disable_dynamo(_probe).__code__  # type: ignore[attr-defined]
except Exception:  # pragma: no cover - a torch without it: nothing is adopted
    _DISABLE_DYNAMO_CODE = None


def _closure(fn: types.FunctionType) -> dict[str, Any]:
    return dict(zip(fn.__code__.co_freevars, (_cell(c) for c in fn.__closure__ or ())))


_DISABLE_CONTEXT_CODE: list[Any] = []  # the code of dynamo's DisableContext wrapper, once dynamo is loaded


def _dynamo_hook_ok(original: Any) -> bool:
    """The ``__dynamo_disable`` hook that torch's wrapper sets on (and then calls instead of) the original at its
    first call is absent, or dynamo's own: ``torch._dynamo.disable(original)``'s function - the code object of a
    ``DisableContext`` wrapper (compared with one made here, so whatever the torch version names or places it), a
    closure holding the original, and any ``DisableContext`` there without a callback."""
    hook = getattr(original, "__dict__", {}).get("__dynamo_disable")
    if hook is None:
        return True
    eval_frame = sys.modules.get("torch._dynamo.eval_frame")
    context = getattr(eval_frame, "DisableContext", None)
    if context is None or not isinstance(hook, types.FunctionType):
        return False  # a hook without dynamo loaded is nobody's but the candidate's
    if not _DISABLE_CONTEXT_CODE:
        try:
            _DISABLE_CONTEXT_CODE.append(context()(_probe).__code__)
        except Exception:  # pragma: no cover - a dynamo this cannot probe: no hook is trusted
            return False
    cells = [_cell(c) for c in hook.__closure__ or ()]
    return (hook.__code__ is _DISABLE_CONTEXT_CODE[0] and any(c is original for c in cells)
            and all(getattr(c, "callback", None) is None for c in cells if isinstance(c, context)))


def _is_dynamo_wrapper(f: Any) -> bool:
    """``f`` is ``torch._disable_dynamo``'s wrapper (its code object)."""
    return _DISABLE_DYNAMO_CODE is not None and getattr(f, "__code__", None) is _DISABLE_DYNAMO_CODE


def dynamo_wrapper_of(new: Any, old: Any) -> bool:
    """``new`` is ``torch._disable_dynamo(old)`` made by torch's own code (what importing ``torch._dynamo`` does to
    ``torch.manual_seed``), with dynamo's own hook if any; any other wrapper - torch-made (autocast, no_grad,
    compile) or not - is not."""
    return _is_dynamo_wrapper(new) and _closure(new).get("fn", _EMPTY) is old and _dynamo_hook_ok(old)


def foreign_dynamo_hook(f: Any) -> Any:
    """For ``torch._disable_dynamo``'s wrapper: the function it wraps when that function's ``__dynamo_disable`` hook
    (which the wrapper calls instead of it) is not dynamo's own, else ``None``. The hook lives on another object, so
    :func:`state_of` cannot see it; the wrapper's own closure it does."""
    if not _is_dynamo_wrapper(f):
        return None
    wrapped = _closure(f).get("fn", _EMPTY)
    return None if _dynamo_hook_ok(wrapped) else wrapped


_GLOBAL_STATEMENT = re.compile(r"^[ \t]*global[ \t]+([\w \t,]+)", re.MULTILINE)
_REBOUND: dict[str, frozenset[str]] = {}


def constant_names(module: types.ModuleType) -> list[str]:
    """The module's globals that hold data (not callables, not modules, not dunders) and that no ``global``
    statement of its source names: what the module never rebinds after import (a cache a function fills is
    mutated or rebound under ``global``, so it is left out)."""
    file = getattr(module, "__file__", None) or ""
    if file not in _REBOUND:
        try:
            source = Path(file).read_text() if file.endswith(".py") else ""
        except OSError:
            source = ""
        _REBOUND[file] = frozenset(n.strip() for m in _GLOBAL_STATEMENT.findall(source) for n in m.split(","))
    rebound = _REBOUND[file]
    return [name for name, value in vars(module).items()
            if not (name.startswith("__") and name.endswith("__")) and name not in rebound
            and not callable(value) and not isinstance(value, types.ModuleType)]
