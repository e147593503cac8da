"""Parsing LLM replies into solutions: single-file, multi-file, JSON, DPS marker, garbage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.generators.base import GenerationContext, kernelopt_extra
from kernelopt.generators.parse import NoCodeError, parse_response
from kernelopt.operators import load_operator

KERNEL = (Path(__file__).resolve().parents[1] / "fixtures" / "llm" / "rmsnorm_kernel.py").read_text()


@pytest.fixture(scope="module")
def ctx() -> GenerationContext:
    op = load_operator("rmsnorm_h4096")
    return GenerationContext(definition=op.definition, operator=op.name)


def test_single_python_block(ctx):
    text = "Plan: one row per program.\n```python\ndef helper():\n    pass\n```\nFinal:\n```python\n" + KERNEL + "```"
    (sol,) = parse_response(text, ctx, generator="openai", extra={"generator": "openai", "model": "m"})
    assert [s.path for s in sol.sources] == ["kernel.py"] and sol.source("kernel.py") == KERNEL
    assert sol.spec.entry_point == "kernel.py::run" and sol.spec.destination_passing_style
    assert sol.spec.language.value == "triton" and sol.author == "openai"
    assert sol.name == f"openai_{sol.hash()[:8]}" and sol.definition == "rmsnorm_h4096"
    assert kernelopt_extra(sol) == {"generator": "openai", "model": "m"}
    (again,) = parse_response(text, ctx, generator="openai")
    assert again.name == sol.name  # deterministic


def test_dps_marker(ctx):
    code = "# dps: false\nimport torch\n\ndef run(hidden_states, weight):\n    return hidden_states\n"
    (sol,) = parse_response(f"```python\n{code}```", ctx, generator="g")
    assert sol.spec.destination_passing_style is False and sol.spec.language.value == "python"


def test_multi_file_with_entry_line(ctx):
    text = ("```python\n# file: impl/core.py\nimport triton\nX = 1\n```\n"
            "```python\n# file: main.py\n# entry: main.py::launch\nfrom impl.core import X\n\ndef launch(a, b, c):\n    pass\n```\n")
    (sol,) = parse_response(text, ctx, generator="g")
    assert sorted(s.path for s in sol.sources) == ["impl/core.py", "main.py"]
    assert sol.spec.entry_point == "main.py::launch" and sol.source("main.py").startswith("# entry")


def test_json_solution_object(ctx):
    obj = {"name": "whatever", "definition": "other", "author": "x",
           "spec": {"language": "triton", "target_hardware": ["H200"], "entry_point": "k.py::run",
                    "destination_passing_style": True},
           "sources": [{"path": "k.py", "content": KERNEL}]}
    (sol,) = parse_response("```json\n" + json.dumps(obj) + "\n```", ctx, generator="g")
    assert sol.definition == "rmsnorm_h4096" and sol.spec.entry_point == "k.py::run" and sol.author == "g"


@pytest.mark.parametrize("text, match", [
    ("", "empty"),
    ("I am sorry, I cannot help with that.", "no fenced code block"),
    ("```python\nprint('no entry here')\n```", "no fenced code block"),
    ("```python\n# file: a.py\n# entry: main.py::run\nx = 1\n```", "entry file 'main.py' is not among"),
    ("```python\n# file: a.py\nx = 1\n```", "entry file 'a.py' does not define"),
    ("```python\n# file: kernel.py\ndef go():\n    pass\n```", "does not define 'run"),
])
def test_garbage_raises_no_code_error(ctx, text, match):
    with pytest.raises(NoCodeError, match=match):
        parse_response(text, ctx, generator="g")
