"""Model registry round trip: register, champion alias, get_champion, download, export."""

from __future__ import annotations

import json

import pytest
from tracking_helpers import (
    DEFINITION,
    UUIDS,
    make_result,
    make_solution,
    params,
)

from kernelopt.data import load_solution
from kernelopt.tracking import model_name


def test_register_alias_champion_download_export(store, tmp_path):
    camp = store.start_campaign(DEFINITION, {}, {})
    assert store.get_champion(DEFINITION) is None
    s1, s2 = make_solution("first", 64), make_solution("second", 128)
    r1 = store.log_candidate(camp, s1, make_result(s1, [2.0, 4.0, 6.0]), stage="repeat", params=params())
    r2 = store.log_candidate(camp, s2, make_result(s2, [1.0, 2.0, 3.0]), stage="repeat", params=params())

    v1 = store.register(DEFINITION, r1, {"noise_floor": 0.02})
    assert v1 == "1"
    assert store.get_champion(DEFINITION) is None  # registered, not yet champion
    store.set_champion(DEFINITION, v1)
    champ = store.get_champion(DEFINITION)
    assert champ.run_id == r1 and champ.version == "1"
    assert champ.mean_latency_ms == pytest.approx(4.0) and champ.p95_latency_ms == pytest.approx(5.8)
    assert champ.per_workload_ms == dict(zip(UUIDS, [2.0, 4.0, 6.0]))
    assert champ.noise_floor == pytest.approx(0.02)

    v2 = store.register(DEFINITION, r2, {"noise_floor": 0.01, "mean_latency_ms": 1.9})  # mean over repeats
    store.set_champion(DEFINITION, v2)
    champ = store.get_champion(DEFINITION)
    assert (champ.run_id, champ.version, champ.mean_latency_ms) == (r2, "2", 1.9)
    mv = store.client.get_model_version(model_name(DEFINITION), "2")
    assert mv.source == f"runs:/{r2}/solution" and mv.run_id == r2
    assert mv.tags["pass_count"] == "3.0" and mv.tags["solution_hash"] == s2.hash()
    assert mv.tags["campaign"] == camp and mv.tags["stage"] == "repeat" and mv.tags["promoted_at"]
    assert store.load_state(camp).champion == champ

    assert store.download_solution(r2) == s2
    out = store.export(DEFINITION, path=tmp_path / "exported")  # not a directory yet -> a file path
    assert out == tmp_path / "exported"
    (tmp_path / "dir").mkdir()
    out2 = store.export(DEFINITION, path=tmp_path / "dir")
    assert out2 == tmp_path / "dir" / "second.json"
    data = json.loads(out2.read_text())
    assert "kernelopt" not in data and data["spec"]["entry_point"] == "kernel.py::run"
    loaded = load_solution(out2)
    assert loaded.hash() == s2.hash() and loaded.name == "second"
    # a folder not made yet, written as one (`-o new/`): it was a file named 'new'
    assert store.export(DEFINITION, path=f"{tmp_path / 'new'}/") == tmp_path / "new" / "second.json"
    with pytest.raises(ValueError, match="no version with alias 'staging'"):
        store.export(DEFINITION, alias="staging", path=tmp_path)


def test_register_refuses_wrong_runs(store):
    camp = store.start_campaign(DEFINITION, {}, {})
    sol = make_solution()
    run_id = store.log_candidate(camp, sol, make_result(sol, [1.0]), stage="gate", params=params())
    with pytest.raises(ValueError, match="not a FINISHED kernelopt candidate"):
        store.register(DEFINITION, camp, {})
    with pytest.raises(ValueError, match="belongs to 'rmsnorm_h4096', not 'gemm'"):
        store.register("gemm", run_id, {})
    with pytest.raises(ValueError, match="has no artefact solution/solution.json"):
        store.download_solution(camp)
