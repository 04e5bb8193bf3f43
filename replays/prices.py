"""What a model run cost in US dollars: a small table of list prices per ``provider/model`` (USD per
million input and output tokens) that a file can extend or override, and the arithmetic over token totals.

A model the table does not name has no price, and its cost is unknown (``None``): never a guess.
The built-in figures are the providers' published list prices as of mid-2025; prices change, so
give your own with a file (TOML or JSON)::

    ["openai/gpt-4.1"]
    input = 2.0
    output = 8.0
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Annotated, Any

import msgspec

from campus.replays.usage import RunUsage, Usage

PER = 1_000_000
USD = Annotated[float, msgspec.Meta(ge=0)]


class Price(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    input: USD
    """USD per million prompt (input) tokens."""
    output: USD
    """USD per million completion (output) tokens."""


PRICES: dict[str, Price] = {
    "openai/gpt-4.1": Price(2.0, 8.0),
    "openai/gpt-4.1-mini": Price(0.4, 1.6),
    "openai/gpt-4.1-nano": Price(0.1, 0.4),
    "openai/gpt-4o": Price(2.5, 10.0),
    "openai/gpt-4o-mini": Price(0.15, 0.6),
    "openai/o4-mini": Price(1.1, 4.4),
    "anthropic/claude-sonnet-4-20250514": Price(3.0, 15.0),
    "anthropic/claude-opus-4-20250514": Price(15.0, 75.0),
    "anthropic/claude-3-5-haiku-20241022": Price(0.8, 4.0),
    "gemini/gemini-2.5-pro": Price(1.25, 10.0),
    "gemini/gemini-2.5-flash": Price(0.3, 2.5),
    "deepseek/deepseek-chat": Price(0.27, 1.1),
}


def load_prices(path: str | Path | None) -> dict[str, Price]:
    """The built-in table, with the file's entries (if a file is given) added over it.

    ``ValueError`` in one line when the file cannot be read or is not a table of prices.
    """
    if path is None:
        return dict(PRICES)
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read the price file {path}: {error}") from None
    try:
        raw = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except ValueError as error:  # TOMLDecodeError and JSONDecodeError are ValueErrors, as a 5,000-digit number is
        kind = "TOML" if path.suffix.lower() == ".toml" else "JSON (name a TOML file *.toml)"
        raise ValueError(f"the price file {path} is not valid {kind}: {error}") from None
    except RecursionError:
        raise ValueError(f"the price file {path} nests tables or lists too deeply to be a table of prices") from None
    try:
        extra = msgspec.convert(raw, dict[str, Price])
    except msgspec.ValidationError as error:
        raise ValueError(f"the price file {path} should map 'provider/model' to {{input = USD, output = USD}} "
                         f"per million tokens: {error}") from None
    endless = sorted(key for key, price in extra.items() if not (math.isfinite(price.input) and math.isfinite(price.output)))
    if endless:
        raise ValueError(f"the price file {path} gives {endless[0]} a price that is not a number of dollars (Infinity or NaN)")
    return PRICES | extra


def price_for(table: dict[str, Price], key: str | None) -> Price | None:
    """The price of the model named ``key`` (``provider/model``, or a bare model name), if the table has one."""
    return table.get(key) if key is not None else None


def cost_usd(usage: Usage, price: Price | None) -> float | None:
    """What the tokens cost at ``price``; ``None`` when the price is unknown."""
    if price is None:
        return None
    return round((usage.prompt_tokens * price.input + usage.completion_tokens * price.output) / PER, 6)


def cost_text(cost: float | None) -> str:
    if cost is None:
        return "unknown"
    return f"${cost:.4f}" if cost < 1 else f"${cost:,.2f}"


def run_cost(usage: RunUsage, price: Price | None) -> dict[str, Any]:
    """The run's cost in USD, the price used, and each task's cost (``None`` throughout when the price is unknown)."""
    return {"usd": cost_usd(usage.total, price), "price": None if price is None else msgspec.to_builtins(price),
            "by_task": {task: cost_usd(spent, price) for task, spent in usage.by_task.items()}}


def cost_line(usage: Usage, price: Price | None, key: str) -> str:
    if price is None:
        return f"cost unknown: no price for {key} (give one with --prices FILE)"
    return (f"cost {cost_text(cost_usd(usage, price))} ({key} at ${price.input:g} in / ${price.output:g} out "
            "per 1M tokens)")
