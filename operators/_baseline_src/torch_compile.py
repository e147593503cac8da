"""torch.compile wrapper of a definition's reference ``run`` (the "torch_compile" baseline).

``operators/make_baselines.py`` embeds this file in the baseline's ``main.py`` between the
definition's reference code (verbatim) and a generated ``run(<inputs>)`` that calls
:func:`_kopt_call_compiled` with the reference's original ``run``. Compilation happens once per
process, lazily at the first call (torch.compile traces on first use); later calls reuse the compiled
function (dynamo re-specialises on new shapes as usual). If tracing or the backend compiler fails,
the call raises :class:`TorchCompileBaselineError` naming the definition - it never silently falls
back to the eager reference, so a measured "torch_compile" latency is always a compiled one.
"""

import torch

_KOPT_COMPILED: dict = {}


class TorchCompileBaselineError(RuntimeError):
    """torch.compile could not trace or compile the reference."""


def _kopt_compile_errors() -> tuple:
    errors = [torch._dynamo.exc.TorchDynamoException]
    inductor_exc = getattr(getattr(torch, "_inductor", None), "exc", None)
    if inductor_exc is not None and hasattr(inductor_exc, "InductorError"):
        errors.append(inductor_exc.InductorError)
    return tuple(errors)


def _kopt_call_compiled(reference_run, label: str, *args):
    """Call the (cached) ``torch.compile`` of ``reference_run`` on ``args``."""
    compiled = _KOPT_COMPILED.get(label)
    if compiled is None:
        try:
            compiled = torch.compile(reference_run)
        except Exception as exc:
            raise TorchCompileBaselineError(
                f"torch.compile of the {label} reference failed: {type(exc).__name__}: {exc}") from exc
        _KOPT_COMPILED[label] = compiled
    try:
        return compiled(*args)
    except _kopt_compile_errors() as exc:
        raise TorchCompileBaselineError(
            f"torch.compile of the {label} reference failed while tracing/compiling: "
            f"{type(exc).__name__}: {exc}") from exc
