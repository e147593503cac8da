"""Hydra configs: every group option composes onto its schema; typos and bad values fail early."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf.errors import ConfigKeyError, ValidationError

from kernelopt.cli.main import CONF_DIR
from kernelopt.cli.schema import register_schemas

MOE = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"

register_schemas()


def _options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF_DIR / group).glob("*.yaml"))


def _compose(name: str, overrides: list[str]):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return compose(config_name=name, overrides=overrides)


@pytest.mark.parametrize("group", ["operator", "agent", "generator", "controller", "harness", "executor",
                                   "tracking", "experiment"])
def test_every_option_composes(group: str) -> None:
    opts = _options(group)
    assert opts, f"conf/{group} is empty"
    for opt in opts:
        cfg = _compose("optimize", [f"{group}={opt}"])
        assert cfg.operator.name


def test_operator_configs_match_operator_library() -> None:
    ops = Path(__file__).resolve().parents[1] / "operators"
    if not ops.is_dir():
        pytest.skip("operators/ not present")
    assert set(_options("operator")) == {p.name for p in ops.iterdir() if (p / "definition.json").is_file()}


def test_defaults() -> None:
    cfg = _compose("optimize", [])
    assert cfg.operator.name == "rmsnorm_h4096"
    assert cfg.generator.name == "offline"
    assert cfg.agent.mode.value == "agent_assisted"
    assert cfg.harness.preset.value == "auto"


@pytest.mark.parametrize("override, exc", [
    (["controller.max_candidtes=3"], ConfigCompositionException),   # typo in a key
    (["controller.max_candidates=many"], ConfigCompositionException),  # wrong type
    (["agent.mode=half_agent"], ConfigCompositionException),         # bad enum value
    (["harness.preset=fastest"], ConfigCompositionException),
    (["operator=no_such_op"], ConfigCompositionException),           # unknown group option
])
def test_bad_values_fail_at_composition(override, exc) -> None:
    with pytest.raises((exc, ConfigKeyError, ValidationError)):
        _compose("optimize", override)


def test_experiment_overlay_applies() -> None:
    cfg = _compose("optimize", ["experiment=mode_ablation", "agent=full_agent"])
    assert cfg.controller.max_candidates == 4
    assert cfg.agent.mode.value == "full_agent"
    assert cfg.campaign.name == "mode_ablation"
    assert cfg.campaign.reuse_across_campaigns is False  # each arm measures its own runs


@pytest.mark.parametrize("override, probe", [([], 1), (["controller.probe_candidates=null"], None),
                                             (["controller.probe_candidates=2"], 2)])
def test_probe_candidates_reach_the_controller_rules(override, probe) -> None:
    """Real campaigns use the probe rule benchmarks/controller_efficiency.py measures (1 by default)."""
    from kernelopt.cli.optimize import campaign_config

    cfg = _compose("optimize", override)
    assert campaign_config(cfg, on_gpu=False).rules.probe_candidates == probe


def test_dispatch_objective_reaches_the_rules_and_a_bad_one_is_refused() -> None:
    from kernelopt.cli.optimize import campaign_config

    assert campaign_config(_compose("optimize", []), on_gpu=False).rules.dispatch_objective == "mean_latency"
    cfg = _compose("optimize", ["controller.dispatch_objective=mean_speedup"])
    assert campaign_config(cfg, on_gpu=False).rules.dispatch_objective == "mean_speedup"
    with pytest.raises(ValueError, match="dispatch_objective"):
        campaign_config(_compose("optimize", ["controller.dispatch_objective=geomean"]), on_gpu=False)


@pytest.mark.parametrize(("override", "says"), [
    ("controller.max_candidates=0", "controller.max_candidates: Input should be greater than or equal to 1 (got 0)"),
    ("operator.cpu_workload_limit=0", "operator.cpu_workload_limit: Input should be greater than or equal to 1"),
    ("operator.gate_size=0", "operator.gate_size: Input should be greater than or equal to 1 (got 0)"),
])
def test_a_refused_value_is_named_by_the_key_the_user_typed(override, says) -> None:
    """Not pydantic's multi-line dump naming its model (`1 validation error for Budget ...`)."""
    from kernelopt.cli.optimize import campaign_config
    from kernelopt.data import DataError

    with pytest.raises(DataError) as err:
        campaign_config(_compose("optimize", [override]), on_gpu=False)
    assert str(err.value).startswith(says), str(err.value)
    assert "\n" not in str(err.value)


def test_reuse_across_campaigns_reaches_the_campaign_and_a_bad_value_is_refused() -> None:
    from kernelopt.cli.optimize import campaign_config

    assert campaign_config(_compose("optimize", []), on_gpu=False).reuse_across_campaigns is True
    cfg = _compose("optimize", ["campaign.reuse_across_campaigns=false"])
    assert campaign_config(cfg, on_gpu=False).reuse_across_campaigns is False
    with pytest.raises(Exception, match="reuse_across_campaigns"):
        _compose("optimize", ["campaign.reuse_across_campaigns=sometimes"])


def test_campaign_rules_carry_the_repair_table_of_the_failures_skill(tmp_path) -> None:
    from kernelopt.analysis.failures import load_failure_table
    from kernelopt.cli.optimize import campaign_config

    table = campaign_config(_compose("optimize", []), on_gpu=False).rules.repair_directions
    assert table == load_failure_table() and "shorter_row_tiles" in table["out of resource: shared memory"]
    bad = tmp_path / "failures.md"
    bad.write_text("---\nname: failures\ndata:\n  patterns:\n    oops: not-a-list\n---\n")
    with pytest.raises(ValueError, match="failures.md: field 'data.patterns'"):
        load_failure_table(bad)


def test_workload_sample_on_the_cpu_stays_within_the_smallest_workloads() -> None:
    """On the CPU (Triton interpreter) a spread sample is drawn from the smallest `cpu_workload_limit`
    workloads, as the banner says; on a GPU from all of them."""
    from kernelopt.cli.optimize import campaign_config
    from kernelopt.controller.workloads import by_size
    from kernelopt.operators import load_operator

    op = "gdn_decode_qk4_v8_d128_k_last"
    cfg = _compose("optimize", [f"operator={op}", "operator.workload_sample=3"])
    sizes = {w.uuid: w.axes["batch_size"] for w in load_operator(op).workloads}
    smallest = {w.uuid for w in by_size(load_operator(op).workloads)[:cfg.operator.cpu_workload_limit]}
    cpu = campaign_config(cfg, on_gpu=False).workloads
    assert len(cpu) == 3 and set(cpu) <= smallest
    gpu = campaign_config(cfg, on_gpu=True).workloads
    assert len(gpu) == 3 and max(sizes[u] for u in gpu) == 64


def test_cache_reference_timing_reaches_the_harness_settings() -> None:
    """README: `harness.cache_reference_timing=false` turns the shared reference timings off."""
    from kernelopt.cli.build import harness_settings

    on = _compose("evaluate", ["solution=x"])
    off = _compose("evaluate", ["solution=x", "harness.cache_reference_timing=false"])
    assert harness_settings(on.harness, "rmsnorm_h4096", False).cache_reference_timing is True
    assert harness_settings(off.harness, "rmsnorm_h4096", False).cache_reference_timing is False


def test_official_settings_carry_the_definitions_tolerances() -> None:
    """What `kernelopt evaluate`, benchmarks/contest.py and controller_efficiency.py judge candidates by."""
    from kernelopt.cli.build import harness_settings

    moe = harness_settings({"preset": "official", "time_reference": False}, MOE, True)
    assert (moe.atol, moe.rtol, moe.required_matched_ratio, moe.time_reference) == (1, 0.3, 0.9, False)
    assert (moe.warmup, moe.iterations, moe.trials) == (10, 50, 3)
    gemm = harness_settings({"preset": "official"}, "gemm_n4096_k4096", True)
    assert (gemm.atol, gemm.rtol, gemm.required_matched_ratio) == (1e-2, 1e-2, 1.0)
    assert harness_settings({"preset": "official", "atol": 0.5}, MOE, True).atol == 0.5


def test_a_refused_harness_value_names_its_key() -> None:
    """`harness.timeout_s=-3`: one line naming the key (was pydantic's multi-line 'validation error for
    HarnessSettings' with its documentation link)."""
    from kernelopt.cli.build import harness_settings
    from kernelopt.data import DataError

    with pytest.raises(DataError, match=r"^harness\.timeout_s: Input should be greater than 0 \(got -3\)$"):
        harness_settings({"timeout_s": -3}, "rmsnorm_h4096", False)


@pytest.mark.parametrize("timer", ["cupti", "cuda_event"])
def test_a_gpu_timer_asked_for_on_the_cpu_is_refused(timer) -> None:
    """It became cpu_wall without a word (the figures then read `timer=cpu_wall`); `auto` still picks cpu_wall."""
    from kernelopt.cli.build import harness_settings

    with pytest.raises(ValueError, match=rf"^harness\.timer={timer} needs a CUDA GPU; none is visible"):
        harness_settings({"timer": timer}, "rmsnorm_h4096", False)
    assert harness_settings({"timer": "auto"}, "rmsnorm_h4096", False).timer == "cpu_wall"
    assert harness_settings({"timer": timer}, "rmsnorm_h4096", True).timer == timer
