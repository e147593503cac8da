"""Assemble the request a generator sends for one candidate, per agent mode.

* **Full-Agent**: the definition JSON, the reference code, a workload summary (axis value counts),
  the harness's feedback on the campaign's earlier candidates, the generator's own earlier failed
  proposals, the current best solution when the generator wrote it, and the output contract.
* **Agent-Assisted**: in addition the skills whose front matter applies (operator, op_type,
  hardware, mode, evidence preconditions), curated reference kernels (the parent's sources, else the
  operator's seed kernels), the band analysis carried by the controller's decision evidence, and
  the controller's direction and reason.

Everything is bounded (history rows, source sizes) so prompts stay a predictable size.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from pydantic import BaseModel, Field

from kernelopt.data.solution import Solution
from kernelopt.generators.base import AgentMode, GenerationContext
from kernelopt.generators.seeds import AUTHOR as SEED_AUTHOR

MAX_HISTORY = 12
MAX_SOURCE_CHARS = 24_000
MAX_VALUES_PER_AXIS = 24

SYSTEM = (
    "You are an expert GPU kernel engineer. You write correct, fast kernels (Triton preferred, "
    "CUDA allowed) for one operator definition, targeting {target}. An "
    "automated harness builds your code, checks it against the reference on every workload and "
    "times it; only correct kernels count, and lower mean latency wins."
)
#: What the system line says a hardware tag targets (the tags also select skills); no tag: the H200.
TARGETS = {
    "h200": "an NVIDIA H200 (Hopper, sm_90)",
    "h100": "an NVIDIA H100 (Hopper, sm_90)",
    "hopper": "an NVIDIA Hopper GPU (sm_90)",
    "b200": "an NVIDIA B200 (Blackwell, sm_100)",
    "cpu-interpreter": "an NVIDIA H200 (Hopper, sm_90); this run builds, checks and times candidates on the CPU "
                       "through the Triton interpreter (TRITON_INTERPRET=1)",
}


def system_text(hardware: str | None) -> str:
    """The system line for ``hardware`` (a tag of :data:`TARGETS`; another tag is named as given)."""
    target = TARGETS.get((hardware or "h200").lower(), f"the hardware tagged '{hardware}'")
    return SYSTEM.format(target=target)


OUTPUT_CONTRACT = """## Output format
Reply with the complete solution source, nothing elided:
- Single file: one fenced ```python block. It becomes `kernel.py`; the entry point is
  `kernel.py::run`.
- Several files: one fenced block per file whose first line is `# file: <relative path>`
  (`// file: <path>` for C++/CUDA); the entry is `kernel.py::run` unless a line
  `# entry: <file>::<function>` says otherwise.
- Or one ```json block holding a FlashInfer Solution object (`spec` + `sources`).
Calling convention: destination-passing style by default - `run(<inputs in order>, <outputs in
order>)` writes the outputs in place and returns nothing. To return the outputs instead, put the
line `# dps: false` in the entry file. Do arithmetic in fp32 (upcast after loading).
"""


class Prompt(BaseModel):
    """One assembled request.

    Attributes:
        system: System instructions. user: The task message.
        files: Workspace files for CLI agents (relative path -> content).
        mode: Agent mode it was built for. skill_names: Skills included (empty in Full-Agent
            mode unless general rules apply to both modes).
    """

    system: str
    user: str
    files: dict[str, str] = Field(default_factory=dict)
    mode: AgentMode
    skill_names: list[str] = Field(default_factory=list)

    def text(self) -> str:
        """System and user message as one markdown document (for inspection and artefacts)."""
        return f"# System\n\n{self.system}\n\n# User\n\n{self.user}"


def _clip(text: str, limit: int = MAX_SOURCE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n... [{len(text) - limit} characters cut]\n"


def workload_summary(operator: str) -> str:
    """Markdown summary of the operator's workloads: count and value distribution per varying axis."""
    from kernelopt.operators import load_operator

    wls = load_operator(operator).workloads
    lines = [f"{len(wls)} workloads."]
    axes = sorted({k for w in wls for k in w.axes})
    for ax in axes:
        counts = Counter(w.axes.get(ax) for w in wls)
        items = sorted(counts.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))
        shown = ", ".join(f"{v}×{n}" if n > 1 else str(v) for v, n in items[:MAX_VALUES_PER_AXIS])
        more = f", ... ({len(items) - MAX_VALUES_PER_AXIS} more values)" if len(items) > MAX_VALUES_PER_AXIS else ""
        lines.append(f"- `{ax}`: {shown}{more}")
    return "\n".join(lines)


def feedback(ctx: GenerationContext, notes: list[str] | None = None) -> str:
    """Harness feedback on the campaign's last candidates (bounded), plus generator notes."""
    rows = ctx.history[-MAX_HISTORY:]
    out = []
    if rows:
        out.append("| candidate | stage | passed | mean latency ms | status | direction | note |\n|---|---|---|---|---|---|---|")
        for c in rows:
            lat = "-" if c.mean_latency_ms is None else f"{c.mean_latency_ms:.6g}"
            note = str(c.params.get("error") or c.params.get("log_tail") or "")[-300:].replace("\n", " ").replace("|", "/")
            out.append(f"| {c.name} | {c.stage} | {c.pass_count}/{c.workload_count} | {lat} | {c.status} "
                       f"| {c.direction or '-'} | {note} |")
    for n in (notes or [])[-6:]:
        out.append(f"- earlier proposal rejected before evaluation: {n[-400:]}")
    return "\n".join(out) if out else "No candidates evaluated yet in this campaign."


def _sources(sol: Solution, prefix: str) -> dict[str, str]:
    return {f"{prefix}/{s.path}": _clip(s.content) for s in sol.sources}


def _fenced(files: dict[str, str]) -> str:
    blocks = []
    for path, content in files.items():
        lang = "python" if path.endswith(".py") else ("cpp" if path.endswith((".cu", ".cuh", ".cpp", ".h")) else "")
        blocks.append(f"`{path}`:\n```{lang}\n{content.rstrip()}\n```")
    return "\n\n".join(blocks)


def evidence_of(ctx: GenerationContext) -> dict[str, Any]:
    """Evidence for skill preconditions: the decision's band and scalar evidence values by kind."""
    ev: dict[str, Any] = {}
    d = ctx.decision
    if d is None:
        return ev
    for item in d.evidence:
        if isinstance(item.value, (str, int, float)) and item.kind not in ev:
            ev[item.kind] = item.value
        for k, v in item.detail.items():
            if item.kind in ("bottleneck", "band_share", "roofline") and isinstance(v, (str, int, float)):
                ev.setdefault(k, v)
    if d.band:
        ev["band"] = d.band
    if ctx.direction:
        ev["direction"] = ctx.direction
    return ev


def _band_analysis(ctx: GenerationContext) -> str:
    d = ctx.decision
    if d is None:
        return ""
    rows = [e for e in d.evidence if e.kind in ("band_share", "bottleneck", "roofline", "band")]
    if not rows and not d.band:
        return ""
    lines = [f"Band in focus: {d.band}" if d.band else ""]
    lines += [f"- {e.kind} [{e.subject}]: {e.value} {json.dumps(e.detail, default=str)[:300]}" for e in rows]
    return "\n".join(x for x in lines if x)


def reference_kernels(ctx: GenerationContext) -> dict[str, str]:
    """Curated reference kernels: the parent's sources, else the operator's seeds at their defaults."""
    if ctx.parent is not None:
        return _sources(ctx.parent, "best")
    from kernelopt.generators.seeds import load_seeds

    files: dict[str, str] = {}
    try:
        seeds = load_seeds(ctx.operator)
    except (OSError, ValueError):
        return files
    for seed in seeds[:3]:
        files.update(_sources(seed.instantiate(None), f"references/{seed.name}"))
    return files


def build_prompt(ctx: GenerationContext, *, skills: list | None = None, hardware: str | None = "h200",
                 skill_groups: list[str] | None = None, notes: list[str] | None = None) -> Prompt:
    """The request for one candidate in ``ctx.mode`` (see the module docstring).

    Args:
        ctx: The generation context.
        skills: Pre-loaded skills (default: ``kernelopt.skills.load_skills()``).
        hardware: Hardware tag for skill selection.
        skill_groups: Skill groups to draw from (the agent config's ``skills`` list; ``None``: all).
        notes: The generator's own notes on earlier rejected proposals (parse failures).
    """
    from kernelopt.skills import load_skills, render, select_skills

    d = ctx.definition
    assisted = ctx.mode == "agent_assisted"
    files: dict[str, str] = {
        "definition.json": d.model_dump_json(indent=2, exclude_none=True),
        "reference.py": d.reference,
        "workloads.md": workload_summary(ctx.operator),
    }
    chosen = select_skills(load_skills() if skills is None else skills, ctx.operator, d.op_type, ctx.mode,
                           hardware, evidence_of(ctx), skill_groups)
    skill_text = render(chosen)
    if assisted and ctx.skills.strip():
        skill_text += "\n" + ctx.skills.strip() + "\n"
    parts = [f"# Task: a fast kernel for `{d.name}` (op_type `{d.op_type}`)",
             "## Definition (reference shown below)\n```json\n"
             + d.model_dump_json(indent=1, exclude_none=True, exclude={"reference"}) + "\n```",
             "## Reference implementation (the ground truth)\n```python\n" + d.reference.rstrip() + "\n```",
             "## Workloads\n" + files["workloads.md"],
             "## Harness feedback on earlier candidates\n" + feedback(ctx, notes)]
    if assisted:
        refs = reference_kernels(ctx)
        files.update(refs)
        if refs:
            title = "current best solution" if ctx.parent is not None else "curated reference kernels (seeds)"
            parts.append(f"## Reference kernels: {title}\n" + _fenced(refs))
        band = _band_analysis(ctx)
        if band:
            parts.append("## Band analysis\n" + band)
        direction = ctx.direction or "your choice"
        reason = ctx.decision.reason if ctx.decision is not None else ""
        parts.append(f"## Controller direction for this round\nDirection: **{direction}**\n\n{reason}".rstrip())
    elif ctx.parent is not None and ctx.parent.author != SEED_AUTHOR:
        best = _sources(ctx.parent, "best")
        files.update(best)
        parts.append("## Your current best solution (improve on it)\n" + _fenced(best))
    if skill_text.strip():
        files["SKILLS.md"] = skill_text
        parts.append("## Skills\n" + skill_text)
    parts.append(OUTPUT_CONTRACT)
    return Prompt(system=system_text(hardware), user="\n\n".join(parts) + "\n", files=files, mode=ctx.mode,
                  skill_names=[s.name for s in chosen])
