"""Seed loading/validation errors, the real operator seeds, and the generator registry."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kernelopt.data.loader import DataError
from kernelopt.generators import (
    OfflineGenerator,
    UnknownGeneratorError,
    load_seed,
    load_seeds,
    make_generator,
)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "seeds" / "rmsnorm_h4096" / "solutions" / "seeds"
OPERATORS = Path(__file__).resolve().parents[2] / "operators"
REAL_SEEDS = sorted(p.parent for p in OPERATORS.glob("*/solutions/seeds/*/seed.json"))


@pytest.fixture()
def seed_dir(tmp_path) -> Path:
    dst = tmp_path / "op" / "solutions" / "seeds" / "s"
    shutil.copytree(FIXTURE / "tiny_rowwise", dst)
    return dst


def edit(seed_dir: Path, **changes) -> None:
    spec = json.loads((seed_dir / "seed.json").read_text())
    spec.update(changes)
    (seed_dir / "seed.json").write_text(json.dumps(spec))


def test_fixture_seed_loads_with_definition_from_the_folder(seed_dir):
    seed = load_seed(seed_dir)
    assert seed.definition == "op" and seed.name == "tiny_rowwise"
    assert seed.instantiate(None).definition == "op"


@pytest.mark.parametrize("changes,match", [
    ({"defaults": {"BLOCK_H": 4096, "ROWS": 3, "num_warps": 4}}, "defaults.ROWS"),
    ({"defaults": {"BLOCK_H": 4096, "ROWS": 1}}, "field 'defaults'"),
    ({"constraints": ["BLOCK_H >"]}, "constraints\\[0\\]"),
    ({"constraints": ["num_warps > 4"]}, "violates constraints"),
    ({"directions": {"x": {"moves": {"NOPE": "+1"}}}}, "directions.x.moves.NOPE"),
    ({"directions": {"x": {"moves": {"ROWS": 3}}}}, "directions.x.moves.ROWS"),
    ({"entry_point": "other.py::run"}, "entry_point"),
    ({"spaces": {}}, "spaces"),
])
def test_bad_seed_json_names_file_and_field(seed_dir, changes, match):
    edit(seed_dir, **changes)
    with pytest.raises(DataError, match=match) as info:
        load_seed(seed_dir)
    assert str(seed_dir / "seed.json") in str(info.value) or "other.py" in str(info.value)


def test_params_line_must_appear_exactly_once(seed_dir):
    k = seed_dir / "kernel.py"
    text = k.read_text()
    k.write_text(text.replace("  # kernelopt:params", ""))
    with pytest.raises(DataError, match="found 0"):
        load_seed(seed_dir)
    line = next(ln for ln in text.splitlines() if ln.endswith("# kernelopt:params"))
    k.write_text(text + "\n" + line + "\n")
    with pytest.raises(DataError, match="found 2"):
        load_seed(seed_dir)


def test_malformed_json_and_missing_seeds(seed_dir, tmp_path):
    (seed_dir / "seed.json").write_text("{ nope")
    with pytest.raises(DataError, match="malformed JSON"):
        load_seed(seed_dir)
    with pytest.raises(DataError, match="no seeds"):
        load_seeds("missing_op", tmp_path)


def test_constraints_see_no_builtins(seed_dir):
    edit(seed_dir, constraints=["len([1]) == 1"])
    with pytest.raises(DataError, match="violates constraints"):
        load_seed(seed_dir)


@pytest.mark.parametrize("seed_path", REAL_SEEDS, ids=lambda p: p.name)
def test_real_seeds_generate_valid_candidates_along_every_direction(seed_path):
    from kernelopt.generators import GenerationContext, kernelopt_extra
    from kernelopt.operators import load_operator

    seed = load_seed(seed_path)
    op = load_operator(seed_path.parents[2].name)
    assert seed.definition == op.name
    gen = OfflineGenerator(seed=0, root=OPERATORS)
    base = next(s for s in gen.propose(GenerationContext(definition=op.definition, operator=op.name))
                if kernelopt_extra(s)["seed"] == seed.name)
    assert kernelopt_extra(base)["params"] == seed.spec.defaults
    for name in seed.direction_names:
        sols = gen.propose(GenerationContext(definition=op.definition, operator=op.name, parent=base,
                                             direction=name, count=2))
        assert sols, name
        for s in sols:
            assert seed.valid(kernelopt_extra(s)["params"]) and s.hash() != base.hash()


def test_registry_builds_offline_and_rejects_unknown_names():
    g = make_generator("offline", seed=3)
    assert isinstance(g, OfflineGenerator) and g.seed == 3 and g.name == "offline"
    with pytest.raises(UnknownGeneratorError, match="known generators: .*offline"):
        make_generator("gpt-17")
    with pytest.raises(ValueError, match="generator 'offline': bad configuration"):
        make_generator("offline", temperature=0.2)
