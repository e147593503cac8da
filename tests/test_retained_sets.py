"""``tests/retained_sets.py``: the kernels each retained solution runs, read from ``retained/solution.json``."""

from __future__ import annotations

import json

from retained_sets import OPERATORS, retained_names, superseded_dispatch, superseded_seed

RETAINED = sorted(p.parent.parent.name for p in OPERATORS.glob("*/retained/solution.json"))


def test_every_retained_solution_names_itself_and_at_least_one_seed_folder() -> None:
    assert len(RETAINED) == 5, RETAINED  # the five contest definitions
    for definition in RETAINED:
        names = retained_names(definition)
        seeds = {p.name for p in (OPERATORS / definition / "solutions" / "seeds").iterdir()}
        solution = json.loads((OPERATORS / definition / "retained" / "solution.json").read_text())
        assert solution["name"] in names
        assert names & seeds, (definition, sorted(names))
        assert seeds - names, definition  # every retained operator has earlier, superseded seeds


def test_specialists_of_nested_dispatches_count_as_retained() -> None:
    """The GDN prefill's retained dispatch names wy3h only inside its nested dispatches (by number of sequences)."""
    definition = "gdn_prefill_qk4_v8_d128_k_last"
    solution = json.loads((OPERATORS / definition / "retained" / "solution.json").read_text())
    top = next(s["content"] for s in solution["sources"] if s["path"] == "dispatch.py")
    assert "gdn_prefill_chunked_wy3h" not in top
    seeds = OPERATORS / definition / "solutions" / "seeds"
    assert not superseded_seed(seeds / "gdn_prefill_chunked_wy3h")
    assert not superseded_seed(seeds / "gdn_prefill_recurrent")
    # by name: wy3b's state walk and output kernels run through wy3h's linked copy (wy3h's points check them)
    assert superseded_seed(seeds / "gdn_prefill_chunked_wy3b")
    assert superseded_seed(seeds / "gdn_prefill_chunked_wy3")
    dispatch = OPERATORS / definition / "solutions" / "dispatch"
    assert not superseded_dispatch(definition, dispatch / "recurrent_ahead_461_1376_s2bv32.json")
    assert not superseded_dispatch(definition, dispatch / "wy3hh_s2_seqs16_bv32.json")  # a nested specialist
    assert not superseded_seed(seeds / "gdn_prefill_onelaunch_pf")
    assert superseded_dispatch(definition, dispatch / "recurrent_wy3hh_1376_s2bv32.json")  # retained until call QN
    assert superseded_dispatch(definition, dispatch / "wy3hh_seqs16_c32.json")  # its specialist from 402 tokens
    assert superseded_dispatch(definition, dispatch / "recurrent_wy3b_1376_s2bv32.json")  # retained until call GB
    assert superseded_dispatch(definition, dispatch / "recurrent_wy3_401.json")


def test_an_operator_without_a_retained_solution_has_nothing_superseded() -> None:
    seeds = sorted((OPERATORS / "rmsnorm_h4096" / "solutions" / "seeds").iterdir())
    assert seeds and retained_names("rmsnorm_h4096") == frozenset()
    assert not any(superseded_seed(s) for s in seeds)
