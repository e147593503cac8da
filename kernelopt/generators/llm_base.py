"""Shared machinery of the LLM generators: retries, usage and cost, key scrubbing, artefacts.

A backend implements ``_request(prompt, index) -> Completion`` and ``_retryable(exc) -> bool``;
:class:`LLMGenerator` does the rest. One request is sent per wanted candidate. What a round
produced beyond the solutions travels on a side channel the campaign drains after ``propose``:
``take_log()`` returns a :class:`~kernelopt.generators.proposal_log.ProposalLog` with, per
solution hash, the artefacts to store on its candidate run (``llm/prompt.md``,
``llm/response.md``, ``llm/usage.json``) and the metrics (``llm_input_tokens``,
``llm_output_tokens``, ``llm_cost_usd``), plus the failed proposals (with the reason and the same
artefacts). Every saved text passes :func:`scrub` first; API keys are read from the environment
only and never stored.
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

from pydantic import BaseModel

from kernelopt.data.records import COST_METRIC, TOKEN_METRICS
from kernelopt.data.solution import Solution
from kernelopt.generators.base import GenerationContext
from kernelopt.generators.keys import scrub
from kernelopt.generators.parse import KeyInReplyError, NoCodeError, parse_response
from kernelopt.generators.prompt import Prompt, build_prompt
from kernelopt.generators.proposal_log import ProposalFailure, ProposalLog

MAX_RETRY_AFTER_S = 60.0  # the longest Retry-After honoured; longer ones are capped
#: seconds past ``timeout_s`` before a request that is still receiving is abandoned (:class:`DeadlineError`)
DEADLINE_GRACE_S = 5.0

# USD per million (input, output) tokens; matched by the longest prefix of the model name.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-5-mini": (0.25, 2.0), "gpt-5": (1.25, 10.0), "gpt-4.1-mini": (0.4, 1.6), "gpt-4.1": (2.0, 8.0),
    "gpt-4o-mini": (0.15, 0.6), "gpt-4o": (2.5, 10.0), "o4-mini": (1.1, 4.4), "o3": (2.0, 8.0),
    "claude-opus-4-5": (5.0, 25.0), "claude-opus-4": (15.0, 75.0), "claude-sonnet-4": (3.0, 15.0), "claude-haiku-4": (1.0, 5.0),
    "claude-3-5-haiku": (0.8, 4.0),
}


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the server asked to wait (``retry-after-ms``, or ``Retry-After`` in seconds or as an HTTP date) on
    the SDK error's response, else ``None``."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None or not hasattr(headers, "get"):
        return None
    try:
        if headers.get("retry-after-ms"):
            return max(float(headers.get("retry-after-ms")) / 1000.0, 0.0)
        value = headers.get("retry-after")
        if not value:
            return None
        try:
            return max(float(value), 0.0)
        except ValueError:
            from email.utils import parsedate_to_datetime

            return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError, OverflowError):
        return None


def env_key(var: str, generator: str) -> str:
    """The API key in ``var``.

    Raises:
        RuntimeError: unset, blank, or with surrounding whitespace (a key with a trailing newline used to pass and then
            fail every request as 'APIConnectionError: Connection error.' - the HTTP header was illegal).
    """
    key = os.environ.get(var)
    if not key:
        raise RuntimeError(f"generator '{generator}': set {var} in the environment")
    if key != key.strip():  # (a blank key is whitespace too)
        raise RuntimeError(f"generator '{generator}': {var} has surrounding whitespace or is blank")
    return key


def cost_usd(model: str | None, input_tokens: int, output_tokens: int) -> float | None:
    """Cost of one request from :data:`PRICES` (``None`` for unknown models)."""
    if not model:
        return None
    hits = [k for k in PRICES if model.startswith(k)]
    if not hits:
        return None
    pin, pout = PRICES[max(hits, key=len)]
    return round((input_tokens * pin + output_tokens * pout) / 1e6, 8)


class Completion(BaseModel):
    """One model reply with its usage."""

    text: str
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    transcript: str | None = None  # CLI agents: the raw stdout
    files: dict[str, str] | None = None  # CLI agents: files collected from the workspace
    stop_note: str | None = None  # why the reply ended early ("reply truncated at max_tokens=N", an agent's error)


class GiveUpError(RuntimeError):
    """The backend failed after its bounded retries (or with a non-retryable error)."""


class UnusableError(GiveUpError):
    """The service refused the credentials or the account (401, 403, 429 ``insufficient_quota``): retrying, now or
    in a later round, cannot help. The message starts with ``generator unusable: <status>``."""


def unusable_status(exc: BaseException) -> int | None:
    """The HTTP status of an SDK error that no retry fixes (401, 403, 429 with ``insufficient_quota``), else None."""
    status = getattr(exc, "status_code", None)
    if status in (401, 403):
        return int(status)
    if status == 429 and (getattr(exc, "code", None) == "insufficient_quota" or "insufficient_quota" in str(exc)):
        return 429
    return None


class DeadlineError(TimeoutError):
    """A request had no complete reply within ``timeout_s`` (+ :data:`DEADLINE_GRACE_S`) in total. The SDKs' own
    timeout bounds each socket read, so a server that keeps sending a few bytes at a time never trips it; this is
    the wall-clock bound. Retried like the SDKs' own timeouts."""


def call_within(fn: Any, limit_s: float, what: str) -> Any:
    """``fn()`` run on a daemon thread, abandoned after ``limit_s`` seconds (it ends on its own later: the SDK's read
    timeout or the server closes the connection); its exception is re-raised here.

    Raises:
        DeadlineError: no result within ``limit_s``.
    """
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="kernelopt-llm-request", daemon=True).start()
    if not done.wait(limit_s):
        raise DeadlineError(f"no complete reply within {limit_s:.0f} s from {what}")
    if "error" in box:
        raise box["error"]
    return box["value"]


class NotACompletionError(RuntimeError):
    """The server answered 200 with a body that is not a JSON completion (an HTML page, an event stream)."""


def check_completion(raw: Any, parsed: Any, attr: str, url: str) -> None:
    """Raise :class:`NotACompletionError` when the SDK's ``parsed`` reply (from ``with_raw_response``) lacks ``attr``:
    the SDK hands back the body as a ``str`` when it is not JSON, which used to surface as
    ``AttributeError: 'str' object has no attribute 'choices'``."""
    if hasattr(parsed, attr) and not isinstance(parsed, str):
        return
    headers = getattr(raw, "headers", None) or {}
    ctype = headers.get("content-type") if hasattr(headers, "get") else None
    body = parsed if isinstance(parsed, str) else str(getattr(raw, "text", "") or parsed)
    raise NotACompletionError(f"server at {url} returned a body that is not a JSON completion"
                              f"{f' ({ctype})' if ctype else ''}: {body[:200]!r}")


class LLMGenerator:
    """Base of the SDK and CLI-agent generators (see the module docstring).

    Args:
        seed: Campaign seed (recorded; sent where the backend supports it).
        model: Model name (backend default when ``None``).
        temperature, max_tokens, timeout_s: Sampling and request limits (``timeout_s`` bounds an SDK request's whole
            reply, :class:`DeadlineError`, and a CLI agent's whole run).
        max_retries: Retries after the first attempt on rate limits / server errors.
        base_url: API base URL override (proxies, local fake servers).
        backoff_s, max_backoff_s: Exponential backoff ``min(backoff_s * 2**i, max_backoff_s)``; a longer
            ``Retry-After`` from the server is honoured up to :data:`MAX_RETRY_AFTER_S`.
        hardware: Hardware tag for skill selection. skill_groups: Skill groups (agent config).
        command, max_turns: CLI-agent settings (ignored by SDK backends).
    """

    name = "llm"
    default_model: str | None = None
    #: SDK requests run under a wall-clock deadline (:func:`call_within`); CLI agents bound their subprocess
    wall_clock_deadline = True

    def __init__(self, seed: int = 0, model: str | None = None, temperature: float = 0.7, max_tokens: int = 8192,
                 timeout_s: float = 600.0, max_retries: int = 4, base_url: str | None = None,
                 backoff_s: float = 1.0, max_backoff_s: float = 30.0, hardware: str = "h200",
                 skill_groups: list[str] | None = None, command: str | None = None, max_turns: int = 30) -> None:
        if max_retries < 0 or max_tokens < 1 or timeout_s <= 0:
            raise ValueError(f"{self.name}: max_retries >= 0, max_tokens >= 1 and timeout_s > 0 are required")
        self.seed, self.model = int(seed), model or self.default_model
        self.temperature, self.max_tokens, self.timeout_s = float(temperature), int(max_tokens), float(timeout_s)
        self.max_retries, self.base_url = int(max_retries), base_url
        self.backoff_s, self.max_backoff_s = float(backoff_s), float(max_backoff_s)
        self.hardware, self.skill_groups = hardware, list(skill_groups) if skill_groups else None
        self.command, self.max_turns = command, int(max_turns)
        self.notes: list[str] = []
        self.unusable: str | None = None  # set on a 401/403/insufficient_quota: the reason every later proposal fails
        self._log = ProposalLog()

    # -- backend hooks -------------------------------------------------------------------------
    def _request(self, prompt: Prompt, ctx: GenerationContext, index: int) -> Completion:
        raise NotImplementedError

    def _retryable(self, exc: Exception) -> bool:
        return False

    # -- shared logic --------------------------------------------------------------------------
    def take_log(self) -> ProposalLog:
        """Return and reset what was recorded since the last call."""
        log, self._log = self._log, ProposalLog()
        return log

    def complete(self, prompt: Prompt, ctx: GenerationContext, index: int = 0) -> Completion:
        """One request with bounded retries and exponential backoff.

        Raises:
            GiveUpError: retries exhausted or a non-retryable error (message scrubbed).
        """
        attempt = 0
        while True:
            try:
                if not self.wall_clock_deadline:
                    return self._request(prompt, ctx, index)
                return call_within(lambda: self._request(prompt, ctx, index), self.timeout_s + DEADLINE_GRACE_S,
                                   f"{self.name} ({self.base_url or 'default server'})")
            except Exception as exc:  # noqa: BLE001 - classified below, never swallowed silently
                status = unusable_status(exc)
                if status is not None:
                    raise UnusableError(scrub(f"generator unusable: {status} {self.describe(exc)}")) from None
                if not (isinstance(exc, DeadlineError) or self._retryable(exc)):
                    raise GiveUpError(scrub(self.describe(exc))) from None
                if attempt >= self.max_retries:
                    raise GiveUpError(scrub(f"gave up after {attempt + 1} attempts: {self.describe(exc)}")) from None
                delay = min(self.backoff_s * (2 ** attempt), self.max_backoff_s)
                wait = retry_after_s(exc)
                time.sleep(max(delay, min(wait, MAX_RETRY_AFTER_S)) if wait is not None else delay)
                attempt += 1

    def truncated_note(self, reason: str | None, cut_values: tuple[str, ...]) -> str | None:
        """The :attr:`Completion.stop_note` of an SDK reply whose finish/stop ``reason`` is one of ``cut_values``."""
        return f"reply truncated at max_tokens={self.max_tokens} ({reason})" if reason in cut_values else None

    def describe(self, exc: BaseException) -> str:
        """``Type: message`` of a request error; an SDK connection error (whose message is only 'Connection error.')
        also names the server it tried and the underlying cause (``Connection refused``, a DNS failure...)."""
        msg = f"{type(exc).__name__}: {exc}"
        request = getattr(exc, "request", None)
        if "Connection" in type(exc).__name__ or "Timeout" in type(exc).__name__:
            url = self.base_url or getattr(request, "url", None)
            if url:
                msg += f" (server {url})"
        cause = exc.__cause__
        if cause is not None and str(cause) and str(cause) not in msg:
            msg += f": {type(cause).__name__}: {cause}"
        if getattr(exc, "status_code", None) == 404 and self.base_url:
            msg += (f" (the server has no such route under base_url {self.base_url}: OpenAI-compatible servers "
                    "usually want it to end in /v1; for anthropic give the server's root)")
        return msg

    def artifacts(self, prompt: Prompt, completion: Completion | None, error: str | None = None) -> dict[str, str]:
        """Scrubbed artefacts of one request."""
        out = {"llm/prompt.md": scrub(prompt.text())}
        if completion is not None:
            out["llm/response.md"] = scrub(completion.text)
            out["llm/usage.json"] = json.dumps(self.usage(completion), indent=2)
            if completion.transcript is not None:
                out["agent/transcript.json"] = scrub(completion.transcript)
        if error:
            out["llm/error.txt"] = scrub(error)
        return out

    def usage(self, c: Completion) -> dict[str, Any]:
        """Usage record of one completion."""
        cost = c.cost_usd if c.cost_usd is not None else cost_usd(c.model or self.model, c.input_tokens, c.output_tokens)
        return {"model": c.model or self.model, "input_tokens": c.input_tokens, "output_tokens": c.output_tokens,
                "cost_usd": cost}

    def _fail(self, reason: str, artifacts: dict[str, str], completion: Completion | None = None) -> None:
        reason = scrub(reason)
        self.notes.append(reason)
        usage = self.usage(completion) if completion is not None else None
        self._log.failures.append(ProposalFailure(reason=reason, artifacts=artifacts, usage=usage))

    def solutions_from(self, completion: Completion, ctx: GenerationContext) -> list[Solution]:
        """Parse a completion into solutions (CLI agents override to read workspace files)."""
        extra = {"generator": self.name, "model": completion.model or self.model, "usage": self.usage(completion)}
        return parse_response(completion.text, ctx, generator=self.name, extra=extra)

    def preflight(self) -> None:
        """What a campaign checks before its first round, no request sent: the SDK client builds (its package, its
        API key in the environment); a CLI agent overrides it with its executable. A missing key used to surface
        only as 'baseline generation was tried 2 times and no candidate was evaluated'.

        Raises:
            RuntimeError: the backend cannot run here (the message says what to set).
        """
        client = getattr(self, "_client", None)
        if client is not None:
            client()

    def propose(self, ctx: GenerationContext) -> list[Solution]:
        """One request per wanted candidate; failures are recorded (``take_log``), never raised."""
        prompt = build_prompt(ctx, hardware=self.hardware, skill_groups=self.skill_groups, notes=self.notes)
        out: list[Solution] = []
        if self.unusable:  # the service refused the key/account: no further request is sent
            self._fail(self.unusable, self.artifacts(prompt, None, self.unusable))
            return out
        for i in range(max(ctx.count, 0)):
            try:
                completion = self.complete(prompt, ctx, i)
            except UnusableError as exc:
                self.unusable = f"{exc} ({self.name})"
                self._fail(self.unusable, self.artifacts(prompt, None, str(exc)))
                break
            except GiveUpError as exc:
                self._fail(f"{self.name}: request failed: {exc}", self.artifacts(prompt, None, str(exc)))
                break  # a dead service will not answer the next request either
            try:
                sols = self.solutions_from(completion, ctx)
            except KeyInReplyError as exc:
                self._fail(f"{self.name}: {exc}", self.artifacts(prompt, completion, str(exc)), completion)
                continue
            except NoCodeError as exc:
                note = f"{completion.stop_note}; " if completion.stop_note else ""
                self._fail(f"{self.name}: {note}no usable code in the reply: {exc}",
                           self.artifacts(prompt, completion, str(exc)), completion)
                continue
            usage = self.usage(completion)
            metrics = {TOKEN_METRICS[0]: float(usage["input_tokens"]), TOKEN_METRICS[1]: float(usage["output_tokens"])}
            if usage["cost_usd"] is not None:
                metrics[COST_METRIC] = float(usage["cost_usd"])
            for sol in sols:
                self._log.artifacts[sol.hash()] = self.artifacts(prompt, completion)
                self._log.metrics[sol.hash()] = metrics
                out.append(sol)
        return out


def generator_options(name: str, conf: Any, seed: int, skill_groups: list[str] | None = None,
                      hardware: str | None = None) -> dict[str, Any]:
    """Keyword arguments for ``make_generator(name, ...)`` from a ``GeneratorConf``-like object.

    The offline generator takes ``seed`` and ``hardware`` (where the campaign runs: its seeds that name other
    targets in ``target_hardware`` are left out, e.g. a CUDA seed on the CPU interpreter); the LLM generators take
    every configured field.
    """
    if name == "offline":
        return {"seed": seed, "hardware": hardware}
    keys = ("model", "temperature", "max_tokens", "timeout_s", "max_retries", "base_url", "command", "max_turns")
    opts = {k: getattr(conf, k) for k in keys if getattr(conf, k, None) is not None}
    return {"seed": seed, **opts, "skill_groups": list(skill_groups) if skill_groups else None}
