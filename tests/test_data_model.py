"""Data model: validation errors name the field; invariants hold; records serialise."""

from __future__ import annotations

import json
import math

import pytest

from kernelopt.data import (
    DataError,
    Definition,
    EvalResult,
    EvaluationStatus,
    LatencyStats,
    Solution,
    Trace,
    WorkloadResult,
    load_definition,
    load_traces,
)

DEF = {
    "name": "tiny", "op_type": "x", "axes": {"n": {"type": "var"}, "h": {"type": "const", "value": 4}},
    "inputs": {"a": {"shape": ["n", "h"], "dtype": "float32"}, "s": {"shape": None, "dtype": "float32"}},
    "outputs": {"o": {"shape": ["n", "h"], "dtype": "bfloat16"}},
    "reference": "def run(a, s):\n    return a * s\n",
    "some_future_key": {"kept": True},
}


def test_definition_roundtrip_keeps_unknown_keys() -> None:
    d = Definition.model_validate(DEF)
    assert d.to_dict() == DEF
    assert d.shape_of("a", {"n": 3}) == (3, 4)
    assert d.shape_of("s", {"n": 3}) is None
    assert d.signature(dps=True) == ["a", "s", "o"]
    assert d.tensor_bytes({"n": 2}) == 2 * 4 * 4 + 4 + 2 * 4 * 2


@pytest.mark.parametrize("patch, needle", [
    ({"inputs": {"a": {"shape": ["n", "zz"], "dtype": "float32"}}}, "undeclared axis 'zz'"),
    ({"inputs": {"a": {"shape": ["n"], "dtype": "float33"}}}, "inputs.a.dtype"),
    ({"reference": "def nope():\n  pass\n"}, "no top-level function 'run'"),
    ({"axes": {"n": {"type": "vary"}}}, "axes.n"),
    ({"outputs": {"a": {"shape": ["n"], "dtype": "float32"}}}, "share names"),
])
def test_malformed_definition_names_field(tmp_path, patch, needle) -> None:
    bad = {**DEF, **patch}
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(bad))
    with pytest.raises(DataError) as exc:
        load_definition(f)
    msg = str(exc.value)
    assert str(f) in msg and needle in msg
    assert msg.count("\n") == 0  # one clear line


def test_malformed_json_names_file_and_line(tmp_path) -> None:
    f = tmp_path / "w.jsonl"
    good = {"definition": "tiny", "solution": None, "workload": {"uuid": "u1", "axes": {"n": 1}, "inputs": {}},
            "evaluation": None}
    f.write_text(json.dumps(good) + "\n" + "{not json\n")
    with pytest.raises(DataError, match=r"w.jsonl:2: malformed JSON"):
        load_traces(f)
    f.write_text(json.dumps(good) + "\n" + json.dumps({**good, "workload": {"uuid": "u2"}}) + "\n")
    with pytest.raises(DataError, match=r"w.jsonl:2: field 'workload.axes'"):
        load_traces(f)


def _solution(**kw) -> dict:
    base = {"name": "s", "definition": "tiny", "author": "me",
            "spec": {"language": "python", "target_hardware": ["cpu"], "entry_point": "main.py::run"},
            "sources": [{"path": "main.py", "content": "def run(a, s, o):\n    pass\n"}]}
    base.update(kw)
    return base


def test_solution_validation_and_hash() -> None:
    s = Solution.model_validate(_solution())
    assert s.spec.destination_passing_style is True
    renamed = Solution.model_validate(_solution(name="other"))
    assert renamed.hash() == s.hash()
    changed = Solution.model_validate(_solution(sources=[{"path": "main.py", "content": "x = 1\n"}]))
    assert changed.hash() != s.hash()
    for bad, needle in [
        (_solution(spec={**_solution()["spec"], "entry_point": "main.py:run"}), "exactly one '::'"),
        (_solution(sources=[{"path": "../main.py", "content": ""}]), "without '..'"),
        (_solution(sources=[{"path": "other.py", "content": ""}]), "entry file"),
    ]:
        with pytest.raises(ValueError, match=needle):
            Solution.model_validate(bad)


def _evaluation(status: str, **kw) -> dict:
    return {"status": status, "environment": {"hardware": "cpu"}, "timestamp": "t", **kw}


def test_evaluation_invariants_and_nonfinite_strings() -> None:
    wl = {"uuid": "u", "axes": {"n": 1}}
    corr = {"max_relative_error": "NaN", "max_absolute_error": "Infinity"}
    perf = {"latency_ms": 1.0, "reference_latency_ms": 2.0, "speedup_factor": 2.0}
    t = Trace.model_validate({"definition": "tiny", "workload": wl, "solution": "s",
                              "evaluation": _evaluation("INCORRECT_NUMERICAL", correctness=corr)})
    assert math.isnan(t.evaluation.correctness.max_relative_error)
    assert t.to_dict()["evaluation"]["correctness"] == corr
    with pytest.raises(ValueError, match="PASSED needs both"):
        Trace.model_validate({"definition": "tiny", "workload": wl,
                              "evaluation": _evaluation("PASSED", correctness=corr)})
    with pytest.raises(ValueError, match="neither"):
        Trace.model_validate({"definition": "tiny", "workload": wl,
                              "evaluation": _evaluation("TIMEOUT", performance=perf)})


def test_eval_result_to_traces() -> None:
    d = Definition.model_validate(DEF)
    from kernelopt.data import Workload

    wls = [Workload(uuid="u1", axes={"n": 1}), Workload(uuid="u2", axes={"n": 2})]
    lat = LatencyStats(mean_ms=0.5, trial_medians_ms=[0.5], timer="cpu_wall")
    res = EvalResult(definition="tiny", solution="s", solution_hash="h", timer="cpu_wall", results=[
        WorkloadResult(uuid="u1", axes={"n": 1}, status=EvaluationStatus.PASSED, latency=lat,
                       reference_latency=lat, speedup=1.0, max_abs_error=0.0, max_rel_error=0.0),
        WorkloadResult(uuid="u2", axes={"n": 2}, status=EvaluationStatus.RUNTIME_ERROR, log="boom"),
    ], environment={"hardware": "cpu", "libs": {"torch": "x"}})
    assert not res.all_passed and res.pass_count == 1 and res.mean_latency_ms() is None
    traces = res.to_traces(d, wls, "2026-11-29T00:00:00Z")
    assert [t.evaluation.status for t in traces] == [EvaluationStatus.PASSED, EvaluationStatus.RUNTIME_ERROR]
    assert traces[0].evaluation.performance.speedup_factor == 1.0
    assert traces[1].evaluation.correctness is None and traces[1].evaluation.log == "boom"
    again = EvalResult.model_validate_json(res.model_dump_json())
    assert again == res
