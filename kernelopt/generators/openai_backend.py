"""OpenAI generator through the official SDK, using the **Chat Completions** API.

Chat Completions (``POST /v1/chat/completions``) is chosen over the Responses API because every
OpenAI-compatible proxy and local server speaks it, so ``generator.base_url`` can point at one.
The key comes from ``OPENAI_API_KEY`` only. The SDK's own retries are off (``max_retries=0``);
:class:`~kernelopt.generators.llm_base.LLMGenerator` retries 429/5xx/connection errors with
bounded exponential backoff.
"""

from __future__ import annotations

from kernelopt.generators.base import GenerationContext
from kernelopt.generators.llm_base import Completion, LLMGenerator, check_completion, env_key
from kernelopt.generators.prompt import Prompt


class OpenAIGenerator(LLMGenerator):
    """Candidates from an OpenAI chat model (see the module docstring)."""

    name = "openai"
    default_model = "gpt-5"

    def _client(self):  # type: ignore[no-untyped-def]
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - the llm extra is installed in the venv
            raise RuntimeError("generator 'openai' needs the openai package (pip install kernelopt[llm])") from exc
        key = env_key("OPENAI_API_KEY", self.name)
        return openai.OpenAI(api_key=key, base_url=self.base_url, timeout=self.timeout_s, max_retries=0)

    def _request(self, prompt: Prompt, ctx: GenerationContext, index: int) -> Completion:
        client = self._client()
        raw = client.chat.completions.with_raw_response.create(
            model=self.model, temperature=self.temperature, max_completion_tokens=self.max_tokens,
            seed=self.seed + index,
            messages=[{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}],
        )
        resp = raw.parse()
        check_completion(raw, resp, "choices", str(client.base_url))
        choices = resp.choices or []
        text = (choices[0].message.content or "") if choices else ""
        usage = resp.usage
        finish = getattr(choices[0], "finish_reason", None) if choices else None
        return Completion(text=text, model=resp.model or self.model, stop_note=self.truncated_note(finish, ("length",)),
                          input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                          output_tokens=int(getattr(usage, "completion_tokens", 0) or 0))

    def _retryable(self, exc: Exception) -> bool:
        import openai

        if isinstance(exc, (openai.RateLimitError, openai.APIConnectionError, openai.InternalServerError)):
            return True
        return isinstance(exc, openai.APIStatusError) and exc.status_code >= 500
