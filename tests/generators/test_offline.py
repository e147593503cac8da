"""The offline generator: baseline, determinism, moves, constraints, history, parent recovery."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.data.definition import Definition
from kernelopt.data.records import CandidateRecord
from kernelopt.generators import GenerationContext, OfflineGenerator, kernelopt_extra, load_seeds
from kernelopt.generators.seeds import read_params_line

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "seeds"
REF = "import torch\n\ndef run(hidden_states, weight):\n    return hidden_states\n"
DEFN = Definition.model_validate({
    "name": "rmsnorm_h4096", "op_type": "rmsnorm",
    "axes": {"batch_size": {"type": "var"}, "hidden_size": {"type": "const", "value": 4096}},
    "inputs": {"hidden_states": {"shape": ["batch_size", "hidden_size"], "dtype": "bfloat16"},
               "weight": {"shape": ["hidden_size"], "dtype": "bfloat16"}},
    "outputs": {"output": {"shape": ["batch_size", "hidden_size"], "dtype": "bfloat16"}},
    "reference": REF,
})


def ctx(**kw) -> GenerationContext:
    return GenerationContext(definition=DEFN, operator="rmsnorm_h4096", **kw)


def params(sol) -> dict:
    return kernelopt_extra(sol)["params"]


@pytest.fixture()
def gen() -> OfflineGenerator:
    return OfflineGenerator(seed=0, root=ROOT)


@pytest.fixture()
def parent(gen):
    return next(s for s in gen.propose(ctx()) if s.name.startswith("tiny_rowwise"))


def test_baseline_is_one_candidate_per_seed_at_defaults(gen):
    sols = gen.propose(ctx(count=1))
    assert [kernelopt_extra(s)["seed"] for s in sols] == ["tiny_rowwise", "tiny_single"]
    s = sols[0]
    assert params(s) == {"BLOCK_H": 4096, "ROWS": 1, "num_warps": 4}
    assert s.name.startswith("tiny_rowwise_") and len(s.name) == len("tiny_rowwise_") + 8
    assert s.author == "kernelopt-offline" and s.definition == "rmsnorm_h4096"
    assert s.spec.target_hardware == ["H200", "CPU-interpreter"] and s.spec.entry_point == "kernel.py::run"
    # the directions that move from this point: fewer_rows is clamped at ROWS=1 (dead here)
    assert kernelopt_extra(s)["directions"] == ["more_rows", "narrow", "wide_many_warps"]
    assert read_params_line(s.source("kernel.py"), "kernel.py") == params(s)
    assert "seed.json" not in [f.path for f in s.sources]


def test_instantiation_rewrites_only_the_params_line(gen):
    seed = load_seeds("rmsnorm_h4096", ROOT)[0]
    a = seed.instantiate({"BLOCK_H": 2048, "ROWS": 2, "num_warps": 8})
    b = seed.instantiate(None)
    la, lb = a.source("kernel.py").splitlines(), b.source("kernel.py").splitlines()
    diff = [(x, y) for x, y in zip(la, lb) if x != y]
    assert len(la) == len(lb) and len(diff) == 1
    assert diff[0][0] == 'PARAMS = {"BLOCK_H": 2048, "ROWS": 2, "num_warps": 8}  # kernelopt:params'
    assert a.hash() != b.hash() and a.name != b.name
    assert seed.instantiate({"num_warps": 8, "ROWS": 2, "BLOCK_H": 2048}).hash() == a.hash()


def test_direction_moves_step_and_set(gen, parent):
    (more,) = gen.propose(ctx(parent=parent, direction="more_rows", count=1))
    assert params(more) == {"BLOCK_H": 4096, "ROWS": 2, "num_warps": 4}
    (narrow,) = gen.propose(ctx(parent=parent, direction="narrow", count=1))
    assert params(narrow) == {"BLOCK_H": 2048, "ROWS": 1, "num_warps": 4}
    (wide,) = gen.propose(ctx(parent=narrow, direction="wide_many_warps", count=1))
    assert params(wide) == {"BLOCK_H": 4096, "ROWS": 1, "num_warps": 8}


def test_clamped_or_seen_move_falls_back_to_neighbours(gen, parent):
    sols = gen.propose(ctx(parent=parent, direction="fewer_rows", count=2))  # ROWS already at its minimum
    assert len(sols) == 2
    for s in sols:
        p = params(s)
        assert sum(p[k] != params(parent)[k] for k in p) >= 1 and s.hash() != parent.hash()


def test_every_proposal_respects_constraints_and_is_new(gen, parent):
    seed = load_seeds("rmsnorm_h4096", ROOT)[0]
    sols = gen.propose(ctx(parent=parent, direction="more_rows", count=12))
    assert len(sols) == 12 and len({s.hash() for s in sols}) == 12
    for s in sols:
        assert seed.valid(params(s)), params(s)
        assert params(s)["ROWS"] * params(s)["BLOCK_H"] <= 8192
        assert params(s)["BLOCK_H"] >= 256 * params(s)["num_warps"]


def test_space_exhaustion_returns_fewer(gen):
    single = next(s for s in gen.propose(ctx()) if s.name.startswith("tiny_single"))
    sols = gen.propose(ctx(parent=single, direction="more_warps", count=5))
    assert sorted(params(s)["num_warps"] for s in sols) == [1, 4]


def test_history_is_not_proposed_again(gen, parent):
    first = gen.propose(ctx(parent=parent, direction="more_rows", count=3))
    history = [CandidateRecord(run_id=f"r{i}", name=s.name, solution_hash=s.hash(), stage="gate")
               for i, s in enumerate(first)]
    second = gen.propose(ctx(parent=parent, direction="more_rows", count=3, history=history))
    assert len(second) == 3 and not {s.hash() for s in first} & {s.hash() for s in second}


def test_same_seed_same_candidates_different_seed_differs(parent):
    def run(seed):
        return [s.hash() for s in OfflineGenerator(seed=seed, root=ROOT).propose(
            ctx(parent=parent, direction="narrow", count=5))]
    assert run(0) == run(0)
    assert run(0)[0] == run(1)[0]  # the direction's own move does not depend on the seed
    assert run(0) != run(1)


def test_parent_recovered_from_sources_without_extra(gen, parent):
    bare = parent.model_validate({k: v for k, v in parent.to_dict().items() if k != "kernelopt"})
    assert kernelopt_extra(bare) == {}
    (s,) = gen.propose(ctx(parent=bare, direction="more_rows", count=1))
    assert params(s) == {"BLOCK_H": 4096, "ROWS": 2, "num_warps": 4}


def test_foreign_parent_is_a_clear_error(gen, parent):
    data = parent.to_dict()
    data.pop("kernelopt")
    data["sources"] = [{"path": "kernel.py", "content": "def run(hidden_states, weight, output):\n    pass\n"}]
    foreign = parent.model_validate(data)
    with pytest.raises(ValueError, match="not an instantiation of any seed"):
        gen.propose(ctx(parent=foreign, direction="more_rows", count=1))


def test_count_zero_and_unknown_direction(gen, parent):
    assert gen.propose(ctx(parent=parent, direction="more_rows", count=0)) == []
    sols = gen.propose(ctx(parent=parent, direction="not_a_direction", count=2))
    assert len(sols) == 2  # neighbours of the parent


@pytest.mark.parametrize("walk_seed", range(8))
def test_invalid_compound_move_tries_its_partial_moves_before_neighbours(walk_seed):
    """wide_many_warps from (2048, 4 rows, 4 warps): the whole move (4096, 4, 8) breaks ROWS*BLOCK_H <= 8192
    and BLOCK_H=4096 alone breaks it too; the warps step alone, (2048, 4, 8), is the direction's valid
    partial move, proposed before any random neighbour (whatever the walk's seed)."""
    gen = OfflineGenerator(seed=walk_seed, root=ROOT)
    seed = load_seeds("rmsnorm_h4096", ROOT)[0]
    start = seed.instantiate({"BLOCK_H": 2048, "ROWS": 4, "num_warps": 4})
    for n in (1, 3):
        sols = gen.propose(ctx(parent=start, direction="wide_many_warps", count=n))
        assert params(sols[0]) == {"BLOCK_H": 2048, "ROWS": 4, "num_warps": 8}, [params(s) for s in sols]
    # seen already: the partial move is skipped like any other seen point
    history = [CandidateRecord(run_id="r0", name="x", solution_hash=seed.instantiate(
        {"BLOCK_H": 2048, "ROWS": 4, "num_warps": 8}).hash(), stage="gate")]
    sols = gen.propose(ctx(parent=start, direction="wide_many_warps", count=1, history=history))
    assert params(sols[0]) != {"BLOCK_H": 2048, "ROWS": 4, "num_warps": 8}


def test_recorded_directions_are_the_live_ones():
    """A solution records the declared directions that reach another valid point from it (whole or partial
    move): clamped at a list's end, or every move breaking a constraint, a direction is dead there."""
    seed = load_seeds("rmsnorm_h4096", ROOT)[0]
    # (1024, 4, 4): ROWS and BLOCK_H clamp; wide_many_warps' moves break a constraint whole or in part
    assert seed.live_directions({"BLOCK_H": 1024, "ROWS": 4, "num_warps": 4}) == ["fewer_rows"]
    edge = {"BLOCK_H": 2048, "ROWS": 4, "num_warps": 8}  # ROWS*BLOCK_H = 8192, BLOCK_H = 256*num_warps
    # more_rows: 16384 > 8192; fewer_rows -> ROWS 2; narrow -> 1024 < 256*8; wide_many_warps: (4096, 4, 8)
    # breaks ROWS*BLOCK_H, warps clamp at 8 -> dead
    assert seed.live_directions(edge) == ["fewer_rows"]
    assert kernelopt_extra(seed.instantiate(edge))["directions"] == ["fewer_rows"]
    mid = {"BLOCK_H": 2048, "ROWS": 2, "num_warps": 4}
    assert seed.live_directions(mid) == ["more_rows", "fewer_rows", "narrow", "wide_many_warps"]


def test_recorded_direction_kernels_are_the_live_ones_that_name_a_kernel(tmp_path):
    """A seed of several kernels says which kernel a direction acts on; a solution records that for its live
    directions only (the controller's kernel focus reads it), and a seed naming an empty kernel is refused."""
    import json
    import shutil

    from kernelopt.data import DataError
    from kernelopt.generators.seeds import load_seed

    seeds = Path(__file__).resolve().parents[2] / "operators" / "gdn_prefill_qk4_v8_d128_k_last" / "solutions" / "seeds"
    seed = load_seed(seeds / "gdn_prefill_chunked_wy3p")
    extra = kernelopt_extra(seed.instantiate())
    assert extra["direction_kernels"] == {n: seed.spec.directions[n].kernel for n in extra["directions"]
                                          if seed.spec.directions[n].kernel}
    assert extra["direction_kernels"]["fewer_output_warps"] == "_o_kernel"
    # at 2 output warps the output kernel's fewer-warps direction is dead: no kernel recorded for it
    low = {**seed.spec.defaults, "num_warps_o": 2}
    assert "fewer_output_warps" not in kernelopt_extra(seed.instantiate(low))["direction_kernels"]
    # a single-kernel seed records none
    assert kernelopt_extra(load_seeds("rmsnorm_h4096", ROOT)[0].instantiate())["direction_kernels"] == {}
    bad = tmp_path / "wy3p_bad"
    shutil.copytree(seeds / "gdn_prefill_chunked_wy3p", bad, symlinks=False)
    spec = json.loads((bad / "seed.json").read_text())
    spec["directions"]["fewer_output_warps"]["kernel"] = ""
    (bad / "seed.json").write_text(json.dumps(spec))
    with pytest.raises(DataError, match="kernel"):
        load_seed(bad, definition="gdn_prefill_qk4_v8_d128_k_last")


def test_seeds_that_do_not_run_where_the_campaign_runs_are_left_out(tmp_path: Path) -> None:
    """A seed naming other targets (a CUDA seed: ``target_hardware: ["H200"]``) is not proposed on the CPU
    interpreter; with no hardware given, or on the GPU, every seed is; none runnable is a clear error."""
    import json
    import shutil

    from kernelopt.data.loader import DataError

    root = tmp_path / "ops"
    seeds = root / "rmsnorm_h4096" / "solutions" / "seeds"
    shutil.copytree(ROOT / "rmsnorm_h4096" / "solutions" / "seeds", seeds)
    first = min(p.parent for p in seeds.glob("*/seed.json"))
    gpu_only = seeds / "gpu_only"
    shutil.copytree(first, gpu_only)
    spec = json.loads((gpu_only / "seed.json").read_text())
    spec.update(name="gpu_only", target_hardware=["H200"])
    (gpu_only / "seed.json").write_text(json.dumps(spec))

    every = {s.name for s in OfflineGenerator(root=root).seeds("rmsnorm_h4096")}
    assert "gpu_only" in every
    assert {s.name for s in OfflineGenerator(root=root, hardware="H200").seeds("rmsnorm_h4096")} == every
    cpu = OfflineGenerator(root=root, hardware="CPU-interpreter")
    assert {s.name for s in cpu.seeds("rmsnorm_h4096")} == every - {"gpu_only"}
    proposed = cpu.propose(GenerationContext(definition=DEFN, operator="rmsnorm_h4096"))
    assert proposed and all(kernelopt_extra(s)["seed"] != "gpu_only" for s in proposed)
    gpu_sol = OfflineGenerator(root=root, hardware="H200").seeds("rmsnorm_h4096")
    assert next(s for s in gpu_sol if s.name == "gpu_only").instantiate(None).spec.target_hardware == ["H200"]
    with pytest.raises(DataError, match="none of its seeds runs on TPU"):
        OfflineGenerator(root=root, hardware="TPU").seeds("rmsnorm_h4096")


def test_the_optimize_task_names_the_cpu_interpreter_for_the_offline_generator() -> None:
    from types import SimpleNamespace

    from kernelopt.generators.llm_base import generator_options

    assert generator_options("offline", SimpleNamespace(), 3, hardware="CPU-interpreter") == {
        "seed": 3, "hardware": "CPU-interpreter"}
    assert generator_options("offline", SimpleNamespace(), 3) == {"seed": 3, "hardware": None}
