"""What a generator is given (``GenerationContext``) and what it must provide (``Generator``)."""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.data.definition import Definition
from kernelopt.data.records import CandidateRecord, Decision
from kernelopt.data.solution import Solution

AgentMode = Literal["full_agent", "agent_assisted"]


class GenerationContext(BaseModel):
    """Everything a generator may use to propose candidates for one round.

    Attributes:
        definition: The operator definition.
        operator: Operator (definition) name, also the folder under ``operators/``.
        parent: Solution to improve on; ``None`` asks for the baseline.
        parent_params: The parent's tunable parameters, when it came from a seed.
        direction: Optimisation direction for this round (``None``: generator's choice).
        count: How many candidates to propose.
        mode: Agent mode (Full-Agent sees no human-curated material).
        history: Candidate runs of the campaign so far (the generator avoids repeating them).
        skills: Human-authored skill text (empty in Full-Agent mode).
        seed: Random seed; the same context and seed give the same proposals.
        decision: The controller decision that asked for this round, when known.
    """

    model_config = ConfigDict(extra="forbid")

    definition: Definition
    operator: str
    parent: Solution | None = None
    parent_params: dict[str, Any] | None = None
    direction: str | None = None
    count: int = Field(1, ge=0)
    mode: AgentMode = "full_agent"
    history: list[CandidateRecord] = Field(default_factory=list)
    skills: str = ""
    seed: int = 0
    decision: Decision | None = None


@runtime_checkable
class Generator(Protocol):
    """Something that writes candidate solutions."""

    name: str

    def propose(self, ctx: GenerationContext) -> list[Solution]:
        """Candidate solutions for one round (may be fewer than ``ctx.count``, never raises for
        an empty neighbourhood)."""
        ...


def kernelopt_extra(solution: Solution) -> dict[str, Any]:
    """The ``kernelopt`` extra of a generated solution (``{}`` when absent)."""
    extra = (solution.model_extra or {}).get("kernelopt")
    return dict(extra) if isinstance(extra, dict) else {}
