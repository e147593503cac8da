"""Anthropic generator through the official SDK (Messages API, ``POST /v1/messages``).

The key comes from ``ANTHROPIC_API_KEY`` only. ``generator.base_url`` is the server's root; a trailing ``/v1`` is
dropped (the SDK adds it). ``temperature`` is sent when the installed SDK
still accepts it (recent SDKs dropped the parameter; then the model's default sampling is used). SDK retries are off; the base class retries
429/529/5xx/connection errors with bounded exponential backoff.
"""

from __future__ import annotations

import inspect

from kernelopt.generators.base import GenerationContext
from kernelopt.generators.llm_base import Completion, LLMGenerator, check_completion, env_key
from kernelopt.generators.prompt import Prompt


def sdk_base_url(base_url: str | None) -> str | None:
    """The root the SDK wants: it appends ``/v1/messages`` itself, so a ``base_url`` ending in ``/v1`` (the OpenAI
    habit, and what many proxies document) would request ``/v1/v1/messages`` and get a 404; that suffix is dropped."""
    if not base_url:
        return base_url
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


class AnthropicGenerator(LLMGenerator):
    """Candidates from a Claude model (see the module docstring)."""

    name = "anthropic"
    default_model = "claude-sonnet-4-6"

    def _client(self):  # type: ignore[no-untyped-def]
        try:
            import anthropic
        except ImportError as exc:  # pragma: no cover
            raise RuntimeError("generator 'anthropic' needs the anthropic package (pip install kernelopt[llm])") from exc
        key = env_key("ANTHROPIC_API_KEY", self.name)
        return anthropic.Anthropic(api_key=key, base_url=sdk_base_url(self.base_url), timeout=self.timeout_s,
                                   max_retries=0)

    def _request(self, prompt: Prompt, ctx: GenerationContext, index: int) -> Completion:
        client = self._client()
        params = inspect.signature(client.messages.create).parameters
        kwargs = {"temperature": self.temperature} if "temperature" in params else {}
        raw = client.messages.with_raw_response.create(model=self.model, max_tokens=self.max_tokens,
                                                       system=prompt.system,
                                                       messages=[{"role": "user", "content": prompt.user}], **kwargs)
        resp = raw.parse()
        check_completion(raw, resp, "content", str(client.base_url))
        text = "".join(getattr(b, "text", "") for b in (resp.content or []) if getattr(b, "type", "") == "text")
        usage = resp.usage
        stop = getattr(resp, "stop_reason", None)
        return Completion(text=text, model=resp.model or self.model, stop_note=self.truncated_note(stop, ("max_tokens",)),
                          input_tokens=int(getattr(usage, "input_tokens", 0) or 0),
                          output_tokens=int(getattr(usage, "output_tokens", 0) or 0))

    def _retryable(self, exc: Exception) -> bool:
        import anthropic

        if isinstance(exc, (anthropic.RateLimitError, anthropic.APIConnectionError, anthropic.InternalServerError)):
            return True
        return isinstance(exc, anthropic.APIStatusError) and exc.status_code >= 500
