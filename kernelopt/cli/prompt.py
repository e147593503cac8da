"""`kernelopt prompt operator=... agent=...`: print the prompt a mode would send (no network).

Options (Hydra overrides): ``operator=<name>``, ``agent=full_agent|agent_assisted``,
``direction=<name>`` (the controller's direction), ``parent=<solution json|folder>`` (the current
best), ``bottleneck=<class>`` and ``band=<band>`` (evidence for skill preconditions),
``hardware=h200``, ``show_files=true`` (also list the CLI-agent workspace files).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig

from kernelopt.cli.schema import AgentConf, GeneratorConf, OperatorConf


@dataclass
class PromptConfig:
    """`kernelopt prompt`."""

    operator: OperatorConf = field(default_factory=OperatorConf)
    agent: AgentConf = field(default_factory=AgentConf)
    generator: GeneratorConf = field(default_factory=GeneratorConf)
    direction: str | None = None
    parent: str | None = None
    bottleneck: str | None = None
    band: str | None = None
    hardware: str = "h200"
    show_files: bool = False


ConfigStore.instance().store(name="prompt_schema", node=PromptConfig)


def check_prompt_inputs(op: Any, parent: Any, direction: str | None, skill_groups: list[str],
                        bottleneck: str | None = None, band: str | None = None) -> None:
    """The preview is of a prompt the platform could send: a parent of this operator, a direction one of its
    seeds declares, skill groups that exist, a bottleneck class the classifier gives, a band named as the band
    analysis names them (each a
    :class:`~kernelopt.data.DataError` naming the choices)."""
    from kernelopt.analysis.bottleneck import CLASSES
    from kernelopt.cli.tasks import require_operator
    from kernelopt.data import DataError
    from kernelopt.generators.seeds import load_seeds
    from kernelopt.skills.loader import load_skills

    if parent is not None:
        require_operator(parent, op.name, "parent")
    known = sorted({d for seed in load_seeds(op.name) for d in seed.direction_names})
    if direction and direction not in known:
        raise DataError(f"direction '{direction}': not a direction of {op.name}'s seeds ({', '.join(known)})")
    if bottleneck and bottleneck not in CLASSES:  # a misspelt class silently matched no skill's precondition
        raise DataError(f"bottleneck '{bottleneck}': not a bottleneck class ({', '.join(CLASSES)})")
    if band is not None and not _band_shaped(band, op.definition.var_axes):  # was shown as given, whatever it was
        axes = ", ".join(op.definition.var_axes) or "none"
        raise DataError(f"band '{band}': a band is '<axis> <low>-<high>' (or '<axis> <value>', '... (outlier)') over "
                        f"a var axis of {op.name} ({axes}), as bands.json names it, or 'all'")
    skills = load_skills()
    groups = {s.group for s in skills if s.group} | {s.name for s in skills}
    unknown = [g for g in skill_groups if g not in groups]
    if unknown:
        raise DataError(f"agent.skills: no skill group or skill named {', '.join(map(repr, unknown))} "
                        f"(groups: {', '.join(sorted({s.group for s in skills if s.group}))})")


def _band_shaped(band: str, axes: list[str]) -> bool:
    """Whether ``band`` reads as the band analysis names bands: ``all``, ``<axis> <lo>`` or ``<axis> <lo>-<hi>``,
    with `` (outlier)`` after it for a workload kept as its own band."""
    import re

    if band == "all":
        return True
    m = re.fullmatch(r"(\S+) (\d+)(?:-(\d+))?(?: \(outlier\))?", band)
    return bool(m) and m.group(1) in axes and (m.group(3) is None or int(m.group(2)) <= int(m.group(3)))


def assemble(cfg: Any):  # type: ignore[no-untyped-def]
    """The ``Prompt`` for the composed config."""
    from kernelopt.cli.tasks import load_solution_arg
    from kernelopt.data.records import Decision, Evidence
    from kernelopt.generators.base import GenerationContext
    from kernelopt.generators.prompt import build_prompt
    from kernelopt.operators import load_operator

    op = load_operator(cfg.operator.name)
    mode = cfg.agent.mode.value if hasattr(cfg.agent.mode, "value") else str(cfg.agent.mode)
    parent = load_solution_arg(cfg.parent, cfg) if cfg.parent else None
    check_prompt_inputs(op, parent, cfg.direction, list(cfg.agent.skills or []), cfg.bottleneck, cfg.band)
    evidence = []
    if cfg.bottleneck:
        evidence.append(Evidence(kind="bottleneck", subject=cfg.band or "all", value=cfg.bottleneck))
    decision = Decision(action="generate", direction=cfg.direction, band=cfg.band, evidence=evidence,
                        reason=f"prompt preview ({'direction ' + cfg.direction if cfg.direction else 'no direction'})")
    ctx = GenerationContext(definition=op.definition, operator=op.name, parent=parent, direction=cfg.direction,
                            count=1, mode=mode, decision=decision)
    return build_prompt(ctx, hardware=cfg.hardware, skill_groups=list(cfg.agent.skills or []) or None)


def prompt_main(cfg: DictConfig) -> int:
    """Hydra entry: print the assembled prompt to stdout."""
    from kernelopt.data import DataError

    try:
        prompt = assemble(cfg)
    except (DataError, ValueError, KeyError) as exc:
        import sys

        print(f"kernelopt prompt: {exc}", file=sys.stderr)
        return 2
    print(prompt.text())
    print(f"\n<!-- mode={prompt.mode} skills={','.join(prompt.skill_names) or '-'} "
          f"characters={len(prompt.system) + len(prompt.user)} -->")
    if cfg.show_files:
        print("\n<!-- workspace files: " + ", ".join(sorted(prompt.files)) + " -->")
    return 0
