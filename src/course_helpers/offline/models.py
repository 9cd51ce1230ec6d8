"""Course machinery (offline course model): the model catalogue: what each model id of SDK 2.15
accepts, and how it behaves.

One row a model id of the SDK's `anthropic.types.Model` literal. Validation (`validation/`),
the engine (`engine.py`) and `GET /v1/models` read these rows, so the course model plays each
model by its own rules. Where every fact comes from, and the choices made where sources
disagree or are silent: `docs/models.md`.

    from course_helpers.offline.models import CATALOGUE, model_info
    CATALOGUE["claude-sonnet-5-5"].forced_tool_choice   # False
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from datetime import datetime

from anthropic._data import DEPRECATED_MODELS
from anthropic.types import Model

__all__ = ["CATALOGUE", "RETIRED", "ModelSpec", "model_info", "models_page", "spec_for"]

THINKING_TYPES = ("enabled", "adaptive", "disabled", "between_tools")
EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
TOP_EFFORTS = frozenset({"xhigh", "max"})
SAMPLING_PARAMS = ("temperature", "top_p", "top_k")
UNKNOWN_RELEASE = "1970-01-01T00:00:00Z"  # ModelInfo: "an epoch value if the date is unknown"


@dataclass(frozen=True)
class ModelSpec:
    """What one model accepts and how it answers (see docs/models.md for the sources)."""

    id: str
    display_name: str
    line: str  # "haiku" | "sonnet" | "opus" | "fable" | "mythos"
    released: str  # RFC 3339, or UNKNOWN_RELEASE
    context_window: int  # input tokens
    max_output_tokens: int  # the largest `max_tokens` accepted
    forced_tool_choice: bool  # tool_choice {"type": "any"} / {"type": "tool"} accepted
    thinking_types: frozenset[str]  # accepted values of thinking.type
    thinks_by_default: bool  # thinking omitted: answers open with a signed thinking block
    sampling_params: bool  # temperature / top_p / top_k accepted
    system_role: bool  # {"role": "system"} accepted inside `messages`
    prefill: bool  # a final assistant message (prefill) accepted
    structured_outputs: bool  # output_config.format json_schema and strict tools
    effort_levels: frozenset[str]  # accepted values of output_config.effort (empty: no effort)
    caps_effort_without_thinking: bool  # thinking turned off: xhigh and max refused
    end_of_life: str | None  # from the SDK's own DEPRECATED_MODELS table, as it words it

    @property
    def can_turn_thinking_off(self) -> bool:
        return bool({"disabled", "between_tools"} & self.thinking_types)

    @property
    def thinking_off_type(self) -> str | None:
        """The thinking type that turns thinking off on this model, if any."""
        if "disabled" in self.thinking_types:
            return "disabled"
        if "between_tools" in self.thinking_types:
            return "between_tools"
        return None

    def thinks(self, thinking: dict | None) -> bool:
        """Whether an answer opens with a thinking block for this request's `thinking`."""
        kind = (thinking or {}).get("type")
        if kind is None:
            return self.thinks_by_default
        return kind in ("enabled", "adaptive")


_ADAPTIVE_ONLY = frozenset({"adaptive"})
_ALL_EFFORTS = frozenset(EFFORT_LEVELS)
_NO_XHIGH = frozenset({"low", "medium", "high", "max"})


def _row(
    model_id: str,
    name: str,
    line: str,
    released: str | None,
    *,
    window: int = 1_000_000,
    output: int = 128_000,
    forced: bool = True,
    thinking: frozenset[str] | set[str] = _ADAPTIVE_ONLY,
    default_thinking: bool = True,
    sampling: bool = False,
    system_role: bool = True,
    prefill: bool = False,
    structured: bool = True,
    effort: frozenset[str] = _ALL_EFFORTS,
    effort_cap: bool = False,
) -> ModelSpec:
    return ModelSpec(
        id=model_id,
        display_name=name,
        line=line,
        released=f"{released}T00:00:00Z" if released else UNKNOWN_RELEASE,
        context_window=window,
        max_output_tokens=output,
        forced_tool_choice=forced,
        thinking_types=frozenset(thinking),
        thinks_by_default=default_thinking,
        sampling_params=sampling,
        system_role=system_role,
        prefill=prefill,
        structured_outputs=structured,
        effort_levels=frozenset(effort),
        caps_effort_without_thinking=effort_cap,
        end_of_life=DEPRECATED_MODELS.get(model_id),
    )


_OLDER = {"default_thinking": False, "sampling": True, "system_role": False}
_CLAUDE_4_5 = {
    **_OLDER,
    "window": 200_000,
    "output": 64_000,
    "thinking": {"enabled", "disabled"},
    "prefill": True,
}
_HAIKU_4_5 = {**_CLAUDE_4_5, "effort": frozenset()}
_OPUS_4_5 = {**_CLAUDE_4_5, "effort": frozenset({"low", "medium", "high"})}
_CLAUDE_4_6 = {**_OLDER, "thinking": {"enabled", "adaptive", "disabled"}, "effort": _NO_XHIGH}

_ROWS = [
    # The 5 family: adaptive thinking, thinks by default, no sampling parameters.
    _row("claude-fable-5-2", "Claude Fable 5.2", "fable", None, forced=False),
    _row("claude-mythos-5-2", "Claude Mythos 5.2", "mythos", None, forced=False),
    _row(
        "claude-haiku-5-5",
        "Claude Haiku 5.5",
        "haiku",
        "2026-10-07",
        thinking={"adaptive", "disabled"},
        effort_cap=True,
    ),
    _row(
        "claude-sonnet-5-5",
        "Claude Sonnet 5.5",
        "sonnet",
        "2026-09-28",
        forced=False,
        thinking={"adaptive", "between_tools"},
        effort_cap=True,
    ),
    _row("claude-fable-5-1", "Claude Fable 5.1", "fable", "2026-09-01", forced=False),
    _row("claude-opus-5-5", "Claude Opus 5.5", "opus", "2026-09-22", forced=False),
    _row("claude-mythos-5-1", "Claude Mythos 5.1", "mythos", None, forced=False),
    _row(
        "claude-sonnet-5",
        "Claude Sonnet 5",
        "sonnet",
        "2026-06-29",
        thinking={"adaptive", "disabled"},
    ),
    _row("claude-fable-5", "Claude Fable 5", "fable", "2026-06-07"),
    _row("claude-mythos-5", "Claude Mythos 5", "mythos", None),
    _row(
        "claude-opus-5",
        "Claude Opus 5",
        "opus",
        "2026-07-24",
        thinking={"adaptive", "disabled"},
        effort_cap=True,
    ),
    # 4.7 and 4.8: adaptive only, no sampling parameters, do not think unless asked.
    _row(
        "claude-opus-4-8",
        "Claude Opus 4.8",
        "opus",
        "2026-05-28",
        thinking={"adaptive", "disabled"},
        default_thinking=False,
    ),
    _row(
        "claude-opus-4-7",
        "Claude Opus 4.7",
        "opus",
        "2026-04-14",
        thinking={"adaptive", "disabled"},
        default_thinking=False,
        system_role=False,
    ),
    _row(
        "claude-mythos-preview",
        "Claude Mythos Preview",
        "mythos",
        None,
        thinking={"enabled", "adaptive"},
        sampling=True,
        system_role=False,
        prefill=True,
        effort=_NO_XHIGH,
    ),
    # 4.6: budget or adaptive thinking, sampling parameters, 1M context.
    _row("claude-opus-4-6", "Claude Opus 4.6", "opus", "2026-02-04", **_CLAUDE_4_6),
    _row("claude-sonnet-4-6", "Claude Sonnet 4.6", "sonnet", "2026-02-17", **_CLAUDE_4_6),
    # 4.5: budget thinking only, 200k context, 64k output, prefill.
    _row("claude-haiku-4-5", "Claude Haiku 4.5", "haiku", "2025-10-15", **_HAIKU_4_5),
    _row("claude-haiku-4-5-20251001", "Claude Haiku 4.5", "haiku", "2025-10-15", **_HAIKU_4_5),
    _row("claude-opus-4-5", "Claude Opus 4.5", "opus", "2025-11-24", **_OPUS_4_5),
    _row("claude-opus-4-5-20251101", "Claude Opus 4.5", "opus", "2025-11-24", **_OPUS_4_5),
]

CATALOGUE: dict[str, ModelSpec] = {row.id: row for row in _ROWS}
"""Every model id of SDK 2.15's `Model` literal, in the literal's order (newest first)."""

RETIRED: dict[str, str] = {
    "claude-sonnet-4-5": "November 30th, 2026",
    "claude-sonnet-4-5-20250929": "November 30th, 2026",
}
"""Models past their end of life (dates as SDK 2.10's DEPRECATED_MODELS worded them), which SDK
2.15 dropped from its `Model` literal. The API answers them as an unknown model (404
`model: <id>`), and `GET /v1/models` leaves them out: docs/models.md."""


def _sdk_model_ids() -> list[str]:
    literal = typing.get_args(Model)[0]
    return list(typing.get_args(literal))


_missing = set(_sdk_model_ids()) ^ set(CATALOGUE)
if _missing:  # a new SDK added or dropped a model: the catalogue must say how it behaves
    raise RuntimeError(f"model catalogue out of step with the SDK's Model literal: {_missing}")


def spec_for(model: str) -> ModelSpec | None:
    return CATALOGUE.get(model)


# --------------------------------------------------------------------------- GET /v1/models


def _eol_timestamp(text: str) -> str:
    """'November 30th, 2026' (the SDK's wording) as an RFC 3339 timestamp."""
    cleaned = text.replace("st,", ",").replace("nd,", ",").replace("rd,", ",").replace("th,", ",")
    return datetime.strptime(cleaned, "%B %d, %Y").strftime("%Y-%m-%dT00:00:00Z")


def _support(value: bool) -> dict:
    return {"supported": value}


def model_info(spec: ModelSpec) -> dict:
    """The `ModelInfo` object `GET /v1/models/{id}` answers for this model."""
    deprecated = lifecycle(spec) == "deprecated"
    adaptive = "adaptive" in spec.thinking_types
    return {
        "type": "model",
        "id": spec.id,
        "display_name": spec.display_name,
        "created_at": spec.released,
        "lifecycle": lifecycle(spec),
        # The SDK's table dates only the end of life, not the deprecation: left null.
        "deprecated_at": None,
        "retires_at": _eol_timestamp(spec.end_of_life) if deprecated else None,
        "line": spec.line,
        "max_input_tokens": spec.context_window,
        "max_tokens": spec.max_output_tokens,
        "capabilities": {
            "batch": _support(True),
            "citations": _support(True),
            "code_execution": _support(True),
            "context_management": {
                "supported": True,
                "clear_thinking_20251015": _support(True),
                "clear_tool_uses_20250919": _support(True),
                "compact_20260112": _support(adaptive),
            },
            "effort": {
                "supported": bool(spec.effort_levels),
                **{level: _support(level in spec.effort_levels) for level in EFFORT_LEVELS},
            },
            "image_input": _support(True),
            "pdf_input": _support(True),
            "server_tools": {
                "supported": True,
                "code_execution": _support(True),
                "web_search": _support(True),
            },
            "structured_outputs": _support(spec.structured_outputs),
            "thinking": {
                "supported": True,
                "types": {kind: _support(kind in spec.thinking_types) for kind in THINKING_TYPES},
            },
        },
    }


def lifecycle(spec: ModelSpec) -> str:
    return "deprecated" if spec.end_of_life is not None else "active"


def models_page(
    *,
    after_id: str | None = None,
    before_id: str | None = None,
    limit: int = 20,
    lifecycles: set[str] | None = None,
) -> dict:
    """`GET /v1/models`: newest first, paged by id like the API (`has_more`, first/last id).

    Without `lifecycles`, active and deprecated models are listed. Retired models (`RETIRED`)
    are never listed: the API no longer serves them.
    """
    wanted = lifecycles or {"active", "deprecated"}
    ids = [i for i, spec in CATALOGUE.items() if lifecycle(spec) in wanted]
    # Newest first by `created_at`, as the API lists them (the catalogue follows the SDK's
    # order); a model released the same day, or of unknown date, keeps the catalogue's order.
    ids.sort(key=lambda i: CATALOGUE[i].released, reverse=True)
    if after_id is not None:
        start = ids.index(after_id) + 1 if after_id in ids else len(ids)
        chosen = ids[start : start + limit]
        has_more = start + limit < len(ids)
    elif before_id is not None:
        end = ids.index(before_id) if before_id in ids else 0
        chosen = ids[max(0, end - limit) : end]
        has_more = end - limit > 0
    else:
        chosen = ids[:limit]
        has_more = limit < len(ids)
    data = [model_info(CATALOGUE[i]) for i in chosen]
    return {
        "data": data,
        "has_more": has_more,
        "first_id": chosen[0] if chosen else None,
        "last_id": chosen[-1] if chosen else None,
    }
