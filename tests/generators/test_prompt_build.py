"""Prompt assembly per agent mode, and `kernelopt prompt`."""

from __future__ import annotations

import pytest

from kernelopt.cli.main import main
from kernelopt.data.records import CandidateRecord, Decision, Evidence
from kernelopt.generators.base import GenerationContext
from kernelopt.generators.prompt import MAX_HISTORY, build_prompt
from kernelopt.generators.seeds import load_seeds
from kernelopt.operators import load_operator

OP = "rmsnorm_h4096"


def history(n: int) -> list[CandidateRecord]:
    return [CandidateRecord(run_id=f"r{i}", name=f"cand{i:02d}", solution_hash=f"{i:040x}", stage="gate",
                            pass_count=1 if i % 2 else 0, workload_count=1, status="FINISHED",
                            mean_latency_ms=0.5 + i if i % 2 else None,
                            params={"error": "INCORRECT_NUMERICAL: max abs error 3.1"} if not i % 2 else {})
            for i in range(n)]


def ctx(mode: str, **kw) -> GenerationContext:
    op = load_operator(OP)
    decision = Decision(action="generate", direction="more_warps", band="large", reason="round 2: memory-bound band",
                        evidence=[Evidence(kind="bottleneck", subject="large", value="memory_bound")])
    return GenerationContext(definition=op.definition, operator=OP, mode=mode, history=history(20),
                             direction="more_warps", decision=decision, count=1, **kw)


def test_full_agent_prompt_has_task_and_feedback_but_nothing_curated():
    p = build_prompt(ctx("full_agent"), notes=["openai: no usable code in the reply: the reply is empty"])
    assert p.mode == "full_agent"
    u = p.user
    assert '"name": "rmsnorm_h4096"' in u and "torch.rsqrt" in u  # definition + reference
    assert "`batch_size`:" in u and "14 workloads" in u  # workload summary
    assert "cand19" in u and f"cand{20 - MAX_HISTORY - 1:02d}" not in u  # bounded history
    assert "INCORRECT_NUMERICAL" in u and "the reply is empty" in u
    assert "## Output format" in u
    for curated in ("rmsnorm_rowwise", "more_warps", "op_rmsnorm", "Band analysis", "h200_tactics"):
        assert curated not in u, curated
    assert set(p.skill_names) <= {"anti_cheat", "anti_noise", "harness_discipline", "promotion_rules"}
    assert {"definition.json", "reference.py", "workloads.md"} <= set(p.files)


def test_agent_assisted_prompt_adds_skills_references_band_and_direction():
    p = build_prompt(ctx("agent_assisted", skills="EXTRA HUMAN NOTE"))
    u = p.user
    assert "op_rmsnorm" in p.skill_names and "memory_bound_tactics" in p.skill_names
    assert "## Skill: op_rmsnorm" in u and "EXTRA HUMAN NOTE" in u
    assert "references/rmsnorm_rowwise/kernel.py" in p.files and "kernelopt:params" in u  # seed kernels
    assert "Band in focus: large" in u and "memory_bound" in u
    assert "Direction: **more_warps**" in u and "round 2: memory-bound band" in u
    assert "SKILLS.md" in p.files


def test_agent_assisted_with_parent_shows_its_sources():
    (seed,) = load_seeds(OP)
    parent = seed.instantiate(None)
    p = build_prompt(ctx("agent_assisted", parent=parent))
    assert "best/kernel.py" in p.files and "current best solution" in p.user
    full = build_prompt(ctx("full_agent", parent=parent))
    assert "best/kernel.py" not in full.files  # a human seed is curated material


def test_kernelopt_prompt_command_prints_the_prompt(capsys: pytest.CaptureFixture[str]):
    assert main(["prompt", f"operator={OP}", "agent=full_agent"]) == 0
    out = capsys.readouterr().out
    assert "# Task: a fast kernel for `rmsnorm_h4096`" in out and "mode=full_agent" in out
    assert "op_rmsnorm" not in out
    assert main(["prompt", "operator=gdn_decode_qk4_v8_d128_k_last", "agent=agent_assisted",
                 "bottleneck=memory_bound", "direction=more_parallelism"]) == 0
    out = capsys.readouterr().out
    assert "op_gdn_decode" in out and "Direction: **more_parallelism**" in out and "memory_bound_tactics" in out


def test_the_system_line_names_the_hardware_tag_it_was_built_for():
    """`kernelopt prompt hardware=b200` said "targeting an NVIDIA H200" (the tag only chose skills); a CPU campaign's
    prompt says candidates are checked and timed through the Triton interpreter."""
    assert "an NVIDIA H200 (Hopper, sm_90)" in build_prompt(ctx("full_agent")).system
    assert "an NVIDIA B200 (Blackwell, sm_100)" in build_prompt(ctx("full_agent"), hardware="b200").system
    cpu = build_prompt(ctx("full_agent"), hardware="CPU-interpreter").system
    assert "Triton interpreter (TRITON_INTERPRET=1)" in cpu
    assert "NVIDIA H200" in build_prompt(ctx("full_agent"), hardware=None).system
    assert "the hardware tagged 'mi300'" in build_prompt(ctx("full_agent"), hardware="mi300").system
