"""An optional model that rewords what people say (``campus run --paraphrase-model provider/name``).

People's replies (``people.ask``) are written from templates. With a paraphraser the session asks a
model to put each quoted reply in its own words and records the words as a ``reply_paraphrased``
event, which the student is shown instead of the template's; replay, ``verify --deep`` and a fork read
them from the log, so the model is never asked again. Only the quoted words change: who speaks, and
any line that is not a quote (an errand handed out with the answer), keep their template form, and
the facts a reply carries (the clue revealed) are the template's. The prompt asks the model to keep
every name, number, code, time and id exactly; what it writes is what the student gets.

Off by default. The scripted controls read the template's wording, so they are meant to play
without it; it is for model-backed agents.
"""

from __future__ import annotations

import os
import re
from typing import Any

from campus.agents.chat import ChatClient
from campus.agents.providers import provider_of, split_model

PROMPT = ("Rewrite what a person on a university campus just said to a student, in your own words, as that person "
          "would say it aloud. Keep every fact exactly: names, numbers, codes, times, dates, rooms, ids and e-mail "
          "addresses. Add nothing and leave nothing out. Answer with the rewritten words only, without quotation marks.")
_QUOTE = re.compile(r'^(?P<who>.+? says: )"(?P<said>.*)"$')


class Paraphraser:
    """A session's ``paraphrase``: ``(call id, a person's reply) -> the reply with each quote reworded``."""

    def __init__(self, client: ChatClient, model: str, max_tokens: int = 300) -> None:
        self.client = client
        self.model = model
        self.max_tokens = max_tokens

    def __call__(self, call_id: str, message: str) -> str:
        return "\n".join(self._line(line) for line in message.split("\n"))

    def _line(self, line: str) -> str:
        quote = _QUOTE.match(line)
        if quote is None:
            return line
        reworded = self._ask(quote["said"]) or quote["said"]
        return f'{quote["who"]}"{reworded}"'

    def _ask(self, said: str) -> str:
        request: dict[str, Any] = {"model": self.model, "temperature": 0, "max_tokens": self.max_tokens,
                                   "messages": [{"role": "system", "content": PROMPT}, {"role": "user", "content": said}]}
        completion = self.client.complete(request)
        return " ".join((completion.content or "").split())


def make_paraphraser(spec: str, base_url: str | None = None) -> Paraphraser:
    """The paraphraser for ``provider/name`` (or a bare name served at ``base_url``); raises ``ValueError`` with a
    one-line reason."""
    provider_name, model = split_model(spec.strip())
    if not model or model.endswith("/"):
        raise ValueError("--paraphrase-model needs a model name, e.g. openai/gpt-4.1-mini or ollama/llama3.1")
    provider = provider_of(provider_name)
    url = base_url or (provider.base_url if provider is not None else os.environ.get("OPENAI_BASE_URL"))
    if not url:
        raise ValueError(f"where is {model!r} served? name a provider (e.g. vllm/{model}) or give --paraphrase-base-url")
    variable = provider.key_variable if provider is not None else "OPENAI_API_KEY"
    key = os.environ.get(variable) if variable else None
    if variable and not key and provider is not None:
        raise ValueError(f"--paraphrase-model {spec} needs the {variable} environment variable")
    return Paraphraser(ChatClient(base_url=url, api_key=key or "none", key_hint=variable or "OPENAI_API_KEY"), model)
