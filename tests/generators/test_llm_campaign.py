"""Full campaigns with each LLM backend: real tracking store (sqlite), real CPU executor and harness,
operator rmsnorm_h4096; the fake services return a correct Triton kernel (or garbage)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

for _mod in ("openai", "anthropic", "kernelopt.tracking", "kernelopt.executor"):
    pytest.importorskip(_mod)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "llm"))
from fake_llm import KERNEL, FakeLLM, install_agents

from kernelopt.campaign import CampaignConfig, run_campaign
from kernelopt.controller import Budget, Rules
from kernelopt.data import HarnessSettings
from kernelopt.executor import make_executor
from kernelopt.generators.llm_base import generator_options
from kernelopt.generators.registry import make_generator
from kernelopt.tracking import TrackingStore

OP = "rmsnorm_h4096"
KEYS = {"OPENAI_API_KEY": "sk-test-campaignOPENAI0123456789", "ANTHROPIC_API_KEY": "sk-ant-campaignANTHROPIC0987"}
HARNESS = HarnessSettings(warmup=0, iterations=1, trials=1, timer="cpu_wall", flush_l2=False,
                          time_reference=False, timeout_s=120)


@pytest.fixture(scope="module")
def executor():
    with make_executor("cpu") as ex:
        yield ex


@pytest.fixture(autouse=True)
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in KEYS.items():
        monkeypatch.setenv(k, v)
    bin_dir = install_agents(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("FAKE_AGENT_BEHAVIOUR", "write")


def config(mode: str) -> CampaignConfig:
    return CampaignConfig(operator=OP, harness=HARNESS, mode=mode, workload_limit=2,
                          budget=Budget(max_candidates=2, max_rounds=1, wall_clock_s=900),
                          rules=Rules(gate_size=1, repeats=1, finalists=1), reuse_across_campaigns=False)


def all_artifact_text(root: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize("name, mode", [("openai", "full_agent"), ("anthropic", "agent_assisted"),
                                        ("claude_code", "agent_assisted"), ("codex", "full_agent")])
def test_full_campaign_with_backend(tmp_path: Path, executor, name: str, mode: str):
    store = TrackingStore(f"sqlite:///{tmp_path}/mlflow.db", str(tmp_path / "artifacts"))
    with FakeLLM(echo_auth=True) as server:
        base = {"openai": server.url + "/v1", "anthropic": server.url}.get(name)
        gen = make_generator(name, base_url=base, model="gpt-4o" if name == "openai" else None, backoff_s=0.01)
        out = run_campaign(config(mode), store=store, executor=executor, generator=gen)
    assert out.champion is not None, out.stop_reason
    state = store.load_state(out.campaign_run_id)
    gates = [c for c in state.candidates if c.stage == "gate"]
    assert len(gates) == 1 and gates[0].all_passed and gates[0].name.startswith(f"{name}_")
    assert gates[0].params["generator"] == name and gates[0].params["mode"] == mode
    run = store.client.get_run(gates[0].run_id)
    assert run.data.metrics["llm_input_tokens"] > 0 and run.data.metrics["llm_output_tokens"] > 0
    if name in ("openai", "claude_code"):
        assert run.data.metrics["llm_cost_usd"] > 0
    prompt = store.read_artifact_text(gates[0].run_id, "llm/prompt.md")
    assert prompt and ("op_rmsnorm" in prompt) == (mode == "agent_assisted")
    assert store.read_artifact_text(gates[0].run_id, "solution/src/kernel.py") == KERNEL
    if name in ("claude_code", "codex"):
        assert store.read_artifact_text(gates[0].run_id, "agent/transcript.json")
    text = all_artifact_text(tmp_path / "artifacts")
    assert all(v not in text for v in KEYS.values())


def test_garbage_replies_end_the_campaign_cleanly_with_reasons_archived(tmp_path: Path, executor):
    store = TrackingStore(f"sqlite:///{tmp_path}/mlflow.db", str(tmp_path / "artifacts"))
    events: list[tuple[str, dict]] = []
    with FakeLLM(reply="no code today, sorry", echo_auth=True) as server:
        gen = make_generator("openai", base_url=server.url + "/v1", backoff_s=0.01)
        out = run_campaign(config("full_agent"), store=store, executor=executor, generator=gen,
                           progress=lambda e, **i: events.append((e, i)))
    assert out.champion is None and out.evaluations == 0 and "baseline generation was tried" in out.stop_reason
    reasons = [i["reason"] for e, i in events if e == "proposal_failed"]
    assert reasons and all("no usable code" in r for r in reasons)
    archived = sorted(p.relative_to(tmp_path / "artifacts") for p in (tmp_path / "artifacts").rglob("reason.txt"))
    assert archived and all("proposals" in p.parts for p in archived)
    assert store.campaign_run(out.campaign_run_id).info.status == "FINISHED"
    assert all(v not in all_artifact_text(tmp_path / "artifacts") for v in KEYS.values())


def test_a_refused_key_stops_the_campaign_saying_so(tmp_path: Path, executor):
    """After a 401 every request fails the same way: the campaign ran empty rounds until its budget or patience
    ended it, with an unrelated stop reason."""
    store = TrackingStore(f"sqlite:///{tmp_path}/mlflow.db", str(tmp_path / "artifacts"))
    with FakeLLM(always_fail=True, fail_status=401, fail_code="invalid_api_key") as server:
        gen = make_generator("openai", base_url=server.url + "/v1", backoff_s=0.01)
        out = run_campaign(config("full_agent"), store=store, executor=executor, generator=gen)
    assert out.stop_reason.startswith("generator unusable: 401 "), out.stop_reason
    assert "no new candidate can come from it" in out.stop_reason and len(server.requests) == 1


@pytest.mark.parametrize("name", ["openai", "anthropic", "claude_code", "codex", "offline"])
def test_generator_configs_build_the_generator(name: str):
    from hydra import compose, initialize_config_dir

    from kernelopt.cli.main import CONF_DIR
    from kernelopt.cli.schema import register_schemas

    register_schemas()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(config_name="optimize", overrides=[f"generator={name}", "agent=agent_assisted"])
    gen = make_generator(name, **generator_options(name, cfg.generator, 7, list(cfg.agent.skills)))
    assert gen.name == name and gen.seed == 7
    if name != "offline":
        assert gen.skill_groups == list(cfg.agent.skills) and gen.max_retries == cfg.generator.max_retries


def test_truncated_replies_cost_is_counted_on_the_campaign(tmp_path: Path, executor):
    """A reply cut at max_tokens gives no candidate but costs tokens: logged on the campaign run, counted by compare."""
    store = TrackingStore(f"sqlite:///{tmp_path}/mlflow.db", str(tmp_path / "artifacts"))
    with FakeLLM(reply="", finish="length") as server:
        gen = make_generator("openai", base_url=server.url + "/v1", model="gpt-4o", backoff_s=0.01)
        out = run_campaign(config("full_agent"), store=store, executor=executor, generator=gen)
    (row,) = store.compare_campaigns([out.campaign_run_id])
    assert row["tokens"] >= 1500 and row["cost_usd"] > 0
