"""OpenAI and Anthropic generators through the real SDKs against local fake servers speaking the
real wire formats: success, 429 storms (retried, then given up), garbage replies, key scrubbing."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "llm"))
from fake_llm import KERNEL, FakeLLM

from kernelopt.generators.base import GenerationContext, kernelopt_extra
from kernelopt.generators.llm_base import cost_usd, scrub
from kernelopt.generators.proposal_log import take_log
from kernelopt.generators.registry import make_generator
from kernelopt.operators import load_operator

OPENAI_KEY = "sk-test-OPENAIsecret0123456789"
ANTHROPIC_KEY = "sk-ant-test-ANTHROPICsecret98765"
BACKENDS = {"openai": "/v1", "anthropic": ""}


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)


def ctx(count: int = 1) -> GenerationContext:
    op = load_operator("rmsnorm_h4096")
    return GenerationContext(definition=op.definition, operator=op.name, count=count, mode="agent_assisted")


def gen(name: str, server: FakeLLM, **kw):
    return make_generator(name, base_url=server.url + BACKENDS[name], backoff_s=0.01, max_backoff_s=0.05,
                          model="gpt-4o" if name == "openai" else "claude-sonnet-4-6", **kw)


@pytest.mark.parametrize("name", BACKENDS)
def test_success_records_usage_cost_and_artifacts(name: str):
    with FakeLLM() as server:
        g = gen(name, server, temperature=0.3, max_tokens=1234)
        (sol,) = g.propose(ctx())
        log = take_log(g)
    assert sol.source("kernel.py") == KERNEL and sol.name.startswith(f"{name}_") and sol.author == name
    extra = kernelopt_extra(sol)
    assert extra["generator"] == name and extra["usage"]["input_tokens"] > 0
    metrics = log.metrics[sol.hash()]
    assert metrics["llm_input_tokens"] > 0 and metrics["llm_output_tokens"] > 0 and metrics["llm_cost_usd"] > 0
    arts = log.artifacts[sol.hash()]
    assert "rmsnorm_h4096" in arts["llm/prompt.md"] and KERNEL.strip() in arts["llm/response.md"]
    assert json.loads(arts["llm/usage.json"])["cost_usd"] == metrics["llm_cost_usd"]
    path, headers, body = server.requests[0]
    lower = {k.lower(): v for k, v in headers.items()}
    if name == "openai":
        assert path == "/v1/chat/completions" and body["max_completion_tokens"] == 1234
        assert body["temperature"] == 0.3 and body["messages"][0]["role"] == "system"
        assert lower["authorization"] == f"Bearer {OPENAI_KEY}"
    else:
        assert path == "/v1/messages" and body["max_tokens"] == 1234 and body["system"]
        assert ANTHROPIC_KEY in (lower.get("x-api-key"), lower.get("authorization", "").removeprefix("Bearer "))
    assert not log.failures


@pytest.mark.parametrize("name", BACKENDS)
def test_rate_limit_is_retried_then_succeeds(name: str):
    with FakeLLM(fail_first=2) as server:
        g = gen(name, server, max_retries=3)
        sols = g.propose(ctx())
    assert len(sols) == 1 and len(server.requests) == 3


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("status", [429, 503])
def test_storm_gives_up_cleanly_within_bounded_retries(name: str, status: int):
    with FakeLLM(always_fail=True, fail_status=status) as server:
        g = gen(name, server, max_retries=2)
        t0 = time.monotonic()
        sols = g.propose(ctx(count=3))
        elapsed = time.monotonic() - t0
        log = take_log(g)
    assert sols == [] and len(server.requests) == 3  # 1 + 2 retries, then no further requests
    assert elapsed < 5
    (failure,) = log.failures
    assert "gave up after 3 attempts" in failure.reason and "llm/prompt.md" in failure.artifacts


@pytest.mark.parametrize("name", BACKENDS)
def test_garbage_reply_gives_no_solution_and_a_recorded_reason(name: str):
    with FakeLLM(reply="I'd rather talk about the weather.", echo_auth=True) as server:
        g = gen(name, server)
        assert g.propose(ctx()) == []
        log = take_log(g)
    (failure,) = log.failures
    assert "no usable code" in failure.reason
    assert "weather" in failure.artifacts["llm/response.md"]
    dump = json.dumps([failure.reason, failure.artifacts])
    assert OPENAI_KEY not in dump and ANTHROPIC_KEY not in dump and "[REDACTED]" in dump
    assert g.notes and "no usable code" in g.notes[-1]  # fed back into the next prompt


def test_missing_key_is_a_failed_proposal_not_a_crash(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with FakeLLM() as server:
        g = gen("openai", server)
        assert g.propose(ctx()) == []
        assert "OPENAI_API_KEY" in take_log(g).failures[0].reason and not server.requests


def test_scrub_and_cost_table(monkeypatch: pytest.MonkeyPatch):
    text = f"key={OPENAI_KEY} other=sk-live-abcdefghijklmnopqrst anthropic={ANTHROPIC_KEY}"
    out = scrub(text)
    assert OPENAI_KEY not in out and ANTHROPIC_KEY not in out and "sk-live" not in out
    assert cost_usd("gpt-4o-2024-08-06", 1_000_000, 0) == 2.5
    assert cost_usd("gpt-4o-mini", 0, 1_000_000) == 0.6  # longest prefix wins
    assert cost_usd("some-local-model", 10, 10) is None and cost_usd(None, 1, 1) is None


@pytest.mark.parametrize("name", BACKENDS)
def test_reply_quoting_the_api_key_is_refused_and_never_stored(name: str):
    """A kernel quoting the key (`# KEY=<ANTHROPIC_API_KEY>`) used to become the candidate's source unscrubbed."""
    leaky = "```python\n" + KERNEL + f"# KEY={ANTHROPIC_KEY}\n```\n"
    with FakeLLM(reply=leaky) as server:
        g = gen(name, server)
        assert g.propose(ctx()) == []
        log = take_log(g)
    (failure,) = log.failures
    assert failure.reason == f"{name}: the reply contains an API key (not saved)"
    assert not log.artifacts and ANTHROPIC_KEY not in json.dumps(failure.artifacts)


@pytest.mark.parametrize("name, var", [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")])
@pytest.mark.parametrize("value", [OPENAI_KEY + "\n", " " + ANTHROPIC_KEY, "   "])
def test_preflight_refuses_a_key_with_whitespace_or_blank(monkeypatch: pytest.MonkeyPatch, name: str, var: str,
                                                          value: str):
    """Such a key used to pass preflight; every request then failed as 'APIConnectionError: Connection error.'."""
    monkeypatch.setenv(var, value)
    g = make_generator(name)
    with pytest.raises(RuntimeError, match=f"{var} has surrounding whitespace or is blank"):
        g.preflight()


@pytest.mark.parametrize("name", BACKENDS)
def test_connection_error_names_the_server_and_the_cause(name: str):
    """It used to read only 'APIConnectionError: Connection error.'."""
    import socket

    with socket.socket() as s:  # a port where nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}" + BACKENDS[name]
    g = make_generator(name, base_url=url, max_retries=0)
    assert g.propose(ctx()) == []
    (failure,) = take_log(g).failures
    assert "APIConnectionError" in failure.reason and url in failure.reason
    assert "Connection refused" in failure.reason, failure.reason


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("ctype, body", [("text/html", "<html><body>Please log in</body></html>"),
                                         ("text/event-stream", 'data: {"delta": "x"}\n\n')])
def test_a_body_that_is_not_a_json_completion_is_named(name: str, ctype: str, body: str):
    """It used to read "AttributeError: 'str' object has no attribute 'choices'"."""
    with FakeLLM(raw=(ctype, body)) as server:
        g = gen(name, server, max_retries=2)
        assert g.propose(ctx()) == []
        (failure,) = take_log(g).failures
        assert len(server.requests) == 1  # not retried
    assert f"server at {server.url}" in failure.reason and "not a JSON completion" in failure.reason
    assert ctype in failure.reason and body[:10] in failure.reason and "AttributeError" not in failure.reason


@pytest.mark.parametrize("name", BACKENDS)
def test_retry_after_is_honoured(name: str):
    """A 429 with `Retry-After: 2` used to be retried after the fixed backoff (here 0.01 s)."""
    with FakeLLM(fail_first=1, retry_after="2") as server:
        g = gen(name, server, max_retries=2)
        assert len(g.propose(ctx())) == 1
        gap = server.times[1] - server.times[0]
    assert 1.8 <= gap < 5, gap


@pytest.mark.parametrize("name, finish", [("openai", "length"), ("anthropic", "max_tokens")])
@pytest.mark.parametrize("reply", ["", "```python\ndef run(x):\n    return ("])
def test_reply_cut_at_max_tokens_says_so(name: str, finish: str, reply: str):
    """An empty or cut reply (gpt-5 reasoning used up max_completion_tokens) read only 'the reply is empty' /
    'no fenced code block'."""
    with FakeLLM(reply=reply, finish=finish) as server:
        g = gen(name, server, max_tokens=321)
        assert g.propose(ctx()) == []
    (failure,) = take_log(g).failures
    assert f"reply truncated at max_tokens=321 ({finish})" in failure.reason, failure.reason


@pytest.mark.parametrize("name, status, code", [("openai", 401, "invalid_api_key"), ("anthropic", 401, ""),
                                                ("openai", 403, ""), ("openai", 429, "insufficient_quota")])
def test_rejected_credentials_make_the_generator_unusable(name: str, status: int, code: str):
    """401/403/insufficient_quota used to read like any other error (429 insufficient_quota was even retried)."""
    with FakeLLM(always_fail=True, fail_status=status, fail_code=code or "x") as server:
        g = gen(name, server, max_retries=3)
        assert g.propose(ctx(count=2)) == []
        assert len(server.requests) == 1  # not retried, no second request
        assert g.propose(ctx()) == [] and len(server.requests) == 1  # nor in a later round
    first, later = take_log(g).failures
    assert first.reason.startswith(f"generator unusable: {status} ") and later.reason == first.reason


@pytest.mark.parametrize("name", BACKENDS)
def test_a_reply_that_trickles_in_is_abandoned_at_the_deadline(name: str, monkeypatch: pytest.MonkeyPatch):
    """A proxy sending one byte every 0.2 s never trips the SDK's timeout (it bounds each read): the request used to
    wait for the whole body (here ~5 min). Now timeout_s bounds the whole reply and the attempt is retried."""
    import kernelopt.generators.llm_base as llm_base

    monkeypatch.setattr(llm_base, "DEADLINE_GRACE_S", 0.5)
    with FakeLLM(drip_s=0.2) as server:
        g = gen(name, server, timeout_s=1.0, max_retries=1)
        t0 = time.monotonic()
        assert g.propose(ctx()) == []
        elapsed = time.monotonic() - t0
        assert len(server.requests) == 2  # the first attempt and one retry
    (failure,) = take_log(g).failures
    assert "gave up after 2 attempts" in failure.reason and "no complete reply within 2 s" in failure.reason
    assert server.url in failure.reason, failure.reason
    assert 2.5 < elapsed < 8, elapsed


def test_anthropic_base_url_with_v1_reaches_the_messages_route():
    """`…/v1` (the OpenAI habit) used to become /v1/v1/messages and a 404."""
    with FakeLLM() as server:
        g = make_generator("anthropic", base_url=server.url + "/v1/", model="claude-sonnet-4-6")
        assert len(g.propose(ctx())) == 1
    assert server.requests[0][0] == "/v1/messages"


def test_a_404_names_the_base_url_and_the_likely_fix():
    with FakeLLM() as server:
        g = make_generator("openai", base_url=server.url + "/api", model="gpt-4o", max_retries=0)
        assert g.propose(ctx()) == []
    (failure,) = take_log(g).failures
    assert "404" in failure.reason and f"no such route under base_url {server.url}/api" in failure.reason
