"""Band dispatch: one solution that runs a specialist per band of a var axis (platform code, no LLM).

Given specialists for consecutive bands of an axis (e.g. ``batch_size`` 1-16 and 32-64), the composed
solution holds each specialist's sources under ``b<i>/`` and an entry module ``dispatch.py`` whose
``run`` reads the axis from an input's shape (no host synchronisation, no data read) and calls the
first specialist whose band's upper edge is at least that value; the last specialist takes the rest.
The cost is one Python comparison per band per call.

Only Python-packaged specialists (``python`` / ``triton``) of one calling style (destination-passing
or value-returning) can be combined; :class:`DispatchError` says why otherwise.
"""

from __future__ import annotations

import hashlib
from pathlib import PurePosixPath

from kernelopt.data.definition import Definition
from kernelopt.data.records import Decision
from kernelopt.data.solution import Solution

ENTRY_FILE = "dispatch.py"
PY_LANGUAGES = frozenset({"python", "triton"})


class DispatchError(ValueError):
    """The specialists cannot be combined (message says which and why)."""


def axis_locator(definition: Definition, axis: str) -> tuple[int, str, int]:
    """``(argument index, input name, dimension)`` of the first required input whose shape names ``axis``
    (an optional input may be ``None`` at run time, so its shape cannot be read)."""
    found = definition.shape_axis(axis)
    if found is not None:
        return found
    optional = [name for name, spec in definition.inputs.items() if axis in (spec.shape or [])]
    if optional:
        raise DispatchError(f"{definition.name}: only optional inputs ({', '.join(optional)}) have axis '{axis}' in "
                            "their shape, and they may be None; cannot dispatch on it (dispatch on an axis of a "
                            "required input, e.g. one coupled to it)")
    raise DispatchError(f"{definition.name}: no input has axis '{axis}' in its shape; cannot dispatch on it")


def _module_path(entry_file: str) -> str:
    parts = PurePosixPath(entry_file[: -len(".py")]).parts
    if not entry_file.endswith(".py") or not all(p.isidentifier() for p in parts):
        raise DispatchError(f"entry file '{entry_file}' is not an importable .py path")
    return ".".join(parts)


def _check(definition: Definition, specialists: list[Solution]) -> bool:
    if len(specialists) < 2:
        raise DispatchError(f"a dispatch needs at least 2 specialists, got {len(specialists)}")
    styles = set()
    for s in specialists:
        if s.definition != definition.name:
            raise DispatchError(f"specialist '{s.name}' implements '{s.definition}', not '{definition.name}'")
        if s.spec.language.value not in PY_LANGUAGES:
            raise DispatchError(f"specialist '{s.name}' is {s.spec.language.value}: only python/triton "
                                "specialists can be combined")
        styles.add(bool(s.spec.destination_passing_style))
    if len(styles) != 1:
        which = ", ".join(f"{s.name} ({'destination-passing' if s.spec.destination_passing_style else 'returns'})"
                          for s in specialists)
        raise DispatchError(f"specialists mix destination-passing and value-returning entry points: {which}")
    return styles.pop()


def band_index(value: int, uppers: list[int]) -> int:
    """The specialist that runs for ``value`` of the band axis: the first whose band's upper edge is at least
    ``value``, else the last (the rule of the composed ``run``)."""
    return next((i for i, up in enumerate(uppers) if value <= up), len(uppers))


def compose_planned(definition: Definition, decision: Decision, specialists: list[Solution]) -> Solution:
    """The dispatch candidate of a ``dispatch`` decision: ``specialists`` (the solutions of its
    ``candidate_run_ids``, in order) behind the axis and band edges of its ``dispatch`` evidence row. A band
    the plan splits again (its ``nested`` entry: axis and edge) takes the next two specialists behind an inner
    dispatch on that axis, composed first.

    Raises:
        ValueError: The decision carries no ``dispatch`` evidence row.
        DispatchError: As :func:`compose_dispatch`, or a plan whose bands do not use up the specialists.
    """
    plan = next((e for e in decision.evidence if e.kind == "dispatch"), None)
    if plan is None:
        raise ValueError("a dispatch decision without its 'dispatch' evidence row")
    uppers, axis = list(plan.detail["uppers"]), plan.detail["axis"]
    nested = plan.detail.get("nested") or [None] * (len(uppers) + 1)
    bands, rest = [], list(specialists)
    for inner in nested:
        take = 1 if inner is None else len(inner["uppers"]) + 1
        if len(rest) < take:
            raise DispatchError(f"the plan's bands need more than the {len(specialists)} specialists given")
        part, rest = rest[:take], rest[take:]
        bands.append(part[0] if inner is None else compose_dispatch(definition, part, list(inner["uppers"]),
                                                                   inner["axis"]))
    if rest:
        raise DispatchError(f"{len(rest)} specialist(s) left over by the plan's bands")
    return compose_dispatch(definition, bands, uppers, axis)


def compose_dispatch(definition: Definition, specialists: list[Solution], uppers: list[int], axis: str,
                     author: str = "kernelopt-dispatch") -> Solution:
    """The dispatch solution.

    Args:
        definition: The operator definition.
        specialists: One solution per band, in band order.
        uppers: Upper edge (inclusive) of every band but the last (``len(specialists) - 1`` values,
            strictly increasing).
        axis: The var axis the bands split.
        author: Author string of the composed solution.

    Raises:
        DispatchError: Too few specialists, mixed styles, non-Python languages, an axis no input has,
            or bad edges.
    """
    dps = _check(definition, specialists)
    if len(uppers) != len(specialists) - 1 or any(b <= a for a, b in zip(uppers, uppers[1:])):
        raise DispatchError(f"need {len(specialists) - 1} strictly increasing band edges, got {uppers}")
    arg, input_name, dim = axis_locator(definition, axis)
    params = definition.signature(dps)
    sources, imports = [], []
    for i, s in enumerate(specialists):
        sources += [{"path": f"b{i}/{src.path}", "content": src.content} for src in s.sources]
        imports.append(f"from .b{i}.{_module_path(s.spec.entry_file)} import {s.spec.entry_function} as _f{i}")
    bands = "\n".join(f"#   b{i}: {s.name}  ({axis} <= {uppers[i]})" if i < len(uppers)
                      else f"#   b{i}: {s.name}  (the rest)" for i, s in enumerate(specialists))
    code = f'''"""Band dispatch over `{axis}` (read from `{input_name}.shape[{dim}]`), composed by kernelopt.

{bands.replace("#   ", "")}
"""

{chr(10).join(imports)}

_UPPER = {tuple(uppers)!r}
_FNS = ({", ".join(f"_f{i}" for i in range(len(specialists)))},)


def run({", ".join(params)}):
    args = ({", ".join(params)},)
    value = args[{arg}].shape[{dim}]
    for upper, fn in zip(_UPPER, _FNS):
        if value <= upper:
            return fn(*args)
    return _FNS[-1](*args)
'''
    sources.append({"path": ENTRY_FILE, "content": code})
    first = specialists[0]
    digest = hashlib.sha1("|".join(s.hash() for s in specialists).encode()).hexdigest()[:8]
    # where the dispatch runs: where every band's specialist runs (a CUDA band makes it GPU-only); specialists that
    # name their hardware in different words (["cpu", "cuda"] beside ["H200", "CPU-interpreter"]) share none: the
    # union then, as this metadata was before (it is not part of the hash)
    targets = [t for t in first.spec.target_hardware if all(t in s.spec.target_hardware for s in specialists)]
    targets = targets or sorted({t for s in specialists for t in s.spec.target_hardware})
    deps = sorted({d for s in specialists for d in (s.spec.dependencies or [])})
    spec = first.spec.model_dump(mode="json") | {
        "entry_point": f"{ENTRY_FILE}::run", "target_hardware": targets,
        "dependencies": deps, "destination_passing_style": dps,
        "language": "triton" if any(s.spec.language.value == "triton" for s in specialists) else "python"}
    return Solution.model_validate({
        "name": f"dispatch_{axis}_{digest}", "definition": definition.name, "author": author,
        "description": f"band dispatch over {axis}: " + "; ".join(
            f"{s.name} for {axis} <= {uppers[i]}" if i < len(uppers) else f"{s.name} above"
            for i, s in enumerate(specialists)),
        "spec": spec, "sources": sources,
        "kernelopt": {"dispatch": {"axis": axis, "uppers": list(uppers),
                                   "specialists": [s.name for s in specialists]}}})
