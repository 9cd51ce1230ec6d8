"""Course machinery (offline course model): a read-only view of a request, with the questions
scenario policies ask of it."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from course_helpers.offline.models import CATALOGUE
from course_helpers.offline.quoted_strings import unescape
from course_helpers.offline.schemas import example_for, tidy


def blocks_of(message: dict) -> list[dict]:
    """A message's content as a list of blocks (a plain string becomes one text block)."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def written(blocks: list[dict], sep: str = "\n") -> str:
    """The words of the `text` blocks only (no tool results), joined with `sep`."""
    return sep.join(b.get("text", "") for b in blocks if b.get("type") == "text")


def text_of(blocks: list[dict]) -> str:
    """The text a person would read in these blocks, tool results included."""
    parts: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            parts.append(block.get("text", ""))
        elif kind == "tool_result":
            parts.append(result_text(block))
    return "\n".join(p for p in parts if p)


_WRAPPED = re.compile(r"<([A-Za-z][\w-]*)(?:\s[^>]*)?>.*?</\1>", re.DOTALL)
# Field sections a program writes around the person's words (dspy's `[[ ## question ## ]]`
# markers, and its closing request for the output sections: `field_sections.py`).
_SECTION_MARKS = re.compile(
    r"^\s*\[\[ ## \w+ ## \]\]\s*$|^Respond with the corresponding output fields\b.*$",
    re.MULTILINE,
)
# A user text a program writes after the model's answer to say the answer failed its validation
# (pydantic-ai, instructor and others ask again with one), or to ask for the previous answer in
# another form (strands-agents: "You must format the previous response as structured output."):
# not the person speaking.
FEEDBACK = re.compile(
    r"automated feedback|not a message from the user|failed (?:the application's )?validation"
    r"|validation errors? found\b|fix the errors? and try again|fix the errors?$"
    r"|recall the function correctly|correct your json"
    r"|\b(?:re)?format\b[^.\n]{0,40}\b(?:previous|last|above) (?:response|answer|message)\b",
    re.IGNORECASE,
)
_FENCED = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_QUOTE_LINE = re.compile(r"^\s*>.*$", re.MULTILINE)
_MIN_COPIED = 16  # a shorter piece of the model's text is a phrase, not a quote
# What the course model says on its own: its scenarios' descriptions (the fallback lists them)
# and the fallback's fixed sentences, registered where they are defined (policy.scenario,
# scenarios.fallback). Quoted back to it, they are not a request.
OWN_LINES: set[str] = set()


def own_words(value: str, said: Sequence[str] = ()) -> str:
    """`value` without what it quotes: tagged context blocks, fenced blocks, `>` quote lines,
    the field-section markers a program writes around it,
    the model's own earlier text (`said`, and `OWN_LINES`), also when a program quoted it as an
    escaped string. The whole text when nothing else is left (a person may write a question
    inside a code fence)."""
    left = unescape(value) if "\\" in value else value
    pieces = set(OWN_LINES)
    for earlier in said:
        for line in earlier.splitlines():
            pieces.update(
                piece
                for piece in re.split(r"(?<=[.!?])\s+", line.strip().removeprefix("- "))
                if len(piece) >= _MIN_COPIED
            )
    for piece in sorted(pieces, key=len, reverse=True):
        if piece in left:
            left = left.replace(piece, " ")
    for pattern in (_WRAPPED, _FENCED, _QUOTE_LINE, _SECTION_MARKS):
        left = pattern.sub(" ", left)
    left = re.sub(r"[ \t]+", " ", re.sub(r"\n\s*\n+", "\n", left)).strip()
    return left if re.search(r"\w", left) else value.strip()


def result_text(block: dict) -> str:
    """The content of a tool_result block as one string."""
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))


@dataclass(frozen=True)
class ToolCall:
    """A tool_use the model made earlier, with the result the program sent back (if any)."""

    id: str
    name: str
    input: dict
    result: str | None = None
    is_error: bool = False


@dataclass
class Conversation:
    """What a policy sees: the request body, with helpers for the usual questions."""

    body: dict
    messages: list[dict] = field(init=False)

    def __post_init__(self) -> None:
        self.messages = list(self.body.get("messages") or [])

    # -- what was offered ---------------------------------------------------------------
    @property
    def model(self) -> str:
        return self.body.get("model", "")

    @cached_property  # every scenario asks; the request does not change
    def tools(self) -> list[dict]:
        """The tools the model has now, each input schema tidied (`schemas.tidy`: any shape a
        client sends can be read): the request's `tools`, plus those a `tool_addition` block added
        later, minus those a `tool_removal` block took away (`removed_tools`)."""
        added = self._tool_changes[0]
        replaced = {t.get("name") for t in added}
        offered = [
            t
            for t in self.body.get("tools") or []
            if isinstance(t, dict)
            if t.get("name") not in replaced
        ] + added
        return [
            {**t, "input_schema": tidy(t["input_schema"])} if "input_schema" in t else t
            for t in offered
            if t.get("name") not in self.removed_tools
        ]

    @property
    def removed_tools(self) -> frozenset[str]:
        """Tools taken away during the conversation: named in a `tool_removal` block of a system
        message, or answered with the runner's "Error: Tool 'NAME' not found" for a call to that
        very tool, and not added back by a later `tool_addition`. The model never calls them."""
        return self._tool_changes[1]

    @cached_property
    def _tool_changes(self) -> tuple[list[dict], frozenset[str]]:
        added: list[dict] = []
        removed: set[str] = set()
        names = {}
        for message in self.messages:
            for block in blocks_of(message):
                kind = block.get("type")
                tool = block.get("tool") if isinstance(block.get("tool"), dict) else {}
                if kind == "tool_use":
                    names[block.get("id")] = block.get("name", "")
                elif kind == "tool_result" and block.get("is_error"):
                    name = names.get(block.get("tool_use_id"), "")
                    if name and result_text(block).strip() == f"Error: Tool '{name}' not found":
                        removed.add(name)
                elif message.get("role") != "system":
                    continue
                elif kind == "tool_removal":
                    removed.add(str(tool.get("name", "")))
                elif kind == "tool_addition" and isinstance(tool.get("definition"), dict):
                    definition = tool["definition"]
                    if not isinstance(definition.get("name"), str):
                        continue  # nothing the model could call
                    removed.discard(definition.get("name", ""))
                    added = [t for t in added if t.get("name") != definition.get("name")]
                    added.append(definition)
        return added, frozenset(removed)

    @property
    def tool_names(self) -> list[str]:
        return [t.get("name", "") for t in self.tools]

    def offers(self, *names: str) -> bool:
        """True when every one of these tools is offered."""
        return all(n in self.tool_names for n in names)

    def tool(self, name: str) -> dict | None:
        return next((t for t in self.tools if t.get("name") == name), None)

    def argument_for(
        self, tool: str, preferred: Sequence[str], *, of_type: str | None = None
    ) -> str:
        """The name the offered tool gives the argument a scenario wants to fill.

        The learner names the arguments, so the scenario lists the names it expects
        (`("path", "file", "filename")`) and takes the first one the tool's schema has; else the
        schema's first required argument; else its first argument (of JSON type `of_type` when
        given); else `preferred[0]`.
        """
        schema = (self.tool(tool) or {}).get("input_schema") or {}
        props = schema.get("properties") or {}
        for name in preferred:
            if name in props:
                return name
        typed = [k for k, v in props.items() if of_type is None or v.get("type") == of_type]
        return (schema.get("required") or typed or [preferred[0]])[0]

    @property
    def tool_choice(self) -> dict:
        return self.body.get("tool_choice") or {"type": "auto"}

    @property
    def forced_tool(self) -> str | None:
        """The tool the request forces with tool_choice {"type": "tool"}, if any."""
        choice = self.tool_choice
        return choice.get("name") if choice.get("type") == "tool" else None

    @property
    def must_use_tool(self) -> bool:
        return self.tool_choice.get("type") in ("any", "tool")

    @property
    def tools_allowed(self) -> bool:
        return bool(self.tools) and self.tool_choice.get("type") != "none"

    @property
    def parallel_allowed(self) -> bool:
        return not self.tool_choice.get("disable_parallel_tool_use", False)

    @property
    def system(self) -> str:
        """The instructions in force for the answer: the top-level `system`, then the text of
        every `{"role": "system"}` message inside `messages`, in order.

        Each system message applies from its position on, and the answer comes after all of
        them; one with `clear_at: "next_user_message"` stops applying once a user message
        follows it (the SDK's `BetaSystemMessageParam`).
        """
        system = self.body.get("system") or ""
        if isinstance(system, str):
            parts = [system]
        else:
            parts = [b.get("text", "") for b in system if isinstance(b, dict)]
        for index, message in enumerate(self.messages):
            if message.get("role") != "system":
                continue
            cleared = message.get("clear_at") == "next_user_message" and any(
                later.get("role") == "user" for later in self.messages[index + 1 :]
            )
            if not cleared:
                parts.append(written(blocks_of(message)))
        return "\n".join(part for part in parts if part)

    @property
    def thinking_enabled(self) -> bool:
        """Whether the answer opens with a thinking block.

        Asked for (`enabled`, `adaptive`), or by default on models that think unless told not
        to (models.CATALOGUE). A forced tool call starts the turn at once: no thinking then;
        nor when the answer continues a prefilled assistant turn (`prefill`).
        """
        if self.prefill is not None:
            return False  # the turn has begun: thinking opens a turn, it cannot follow text
        spec = CATALOGUE.get(self.model)
        thinking = self.body.get("thinking")
        if spec is None:
            return (thinking or {}).get("type") in ("enabled", "adaptive")
        return spec.thinks(thinking) and not (self.must_use_tool and self.tools_allowed)

    @property
    def output_schema(self) -> dict | None:
        """The JSON Schema of `output_config.format` (structured output), if the request has one."""
        fmt = (self.body.get("output_config") or {}).get("format") or {}
        schema = fmt.get("schema") if fmt.get("type") == "json_schema" else None
        return tidy(schema) if isinstance(schema, dict) else None

    # -- what was said -----------------------------------------------------------------
    @property
    def prefill(self) -> str | None:
        """The text of a final assistant message the answer must continue, if the request ends
        with one whose last block is text (prefill). A paused server-tool turn sent back is
        resumed by its scenario, not continued as text."""
        if not self.messages or self.messages[-1].get("role") != "assistant":
            return None
        blocks = blocks_of(self.messages[-1])
        if not blocks or blocks[-1].get("type") != "text":
            return None
        if any(b.get("type") == "server_tool_use" for b in blocks):
            return None
        return written(blocks, "")

    def before_prefill(self) -> Conversation:
        """The same request without its final assistant message: what the answer starts from."""
        return Conversation({**self.body, "messages": self.messages[:-1]})

    @property
    def last(self) -> dict:
        """The last message of the dialogue. A `{"role": "system"}` message after it (agent
        SDKs append one after tool results: token counts, reminders) is an instruction for the
        answer, not a turn: the tool results before it are still what the model reacts to."""
        dialogue = [m for m in self.messages if m.get("role") != "system"]
        return dialogue[-1] if dialogue else {"role": "user", "content": ""}

    @cached_property  # every scenario asks; the request does not change
    def last_user_text(self) -> str:
        """Text of the last user message that has any text of its own (not only results)."""
        for message in reversed(self.messages):
            if message.get("role") != "user":
                continue
            own = [b for b in blocks_of(message) if b.get("type") == "text"]
            text = text_of(own).strip()
            if text:
                return text
        return ""

    @cached_property  # every scenario asks; the request does not change
    def person_text(self) -> str:
        """What the person asks in the last user text: without the context programs wrap around
        it (`<system-reminder>...</system-reminder>` and other tagged blocks), fenced blocks and
        `>` quote lines. Scenario triggers read this, never a system prompt, a tool list or
        quoted text."""
        return own_words(self.last_user_text, self.model_texts)

    @cached_property
    def asked_text(self) -> str:
        """The person's own words to fill a value from: those of the last user text that is
        the person speaking. A retry a program writes ("Your previous response failed the
        application's validation (this is automated feedback, not a message from the user)")
        asks for the same answer again; the words to fill it from are the person's before it."""
        for message in reversed(self.messages):
            if message.get("role") != "user":
                continue
            said = text_of([b for b in blocks_of(message) if b.get("type") == "text"]).strip()
            if said and not FEEDBACK.search(said):
                return own_words(said, self.model_texts)
        return self.person_text

    @cached_property
    def model_texts(self) -> list[str]:
        """The text of every assistant message so far (what the model said)."""
        return [written(blocks_of(m)) for m in self.messages if m.get("role") == "assistant"]

    @cached_property  # every scenario asks; the request does not change
    def first_user_text(self) -> str:
        for message in self.messages:
            if message.get("role") == "user":
                return text_of(blocks_of(message)).strip()
        return ""

    @property
    def ends_with_results(self) -> bool:
        """True when the last message carries tool results (the model's turn to react)."""
        return any(b.get("type") == "tool_result" for b in blocks_of(self.last))

    @property
    def turns(self) -> int:
        """How many assistant turns the conversation already holds."""
        return sum(1 for m in self.messages if m.get("role") == "assistant")

    def calls(self) -> list[ToolCall]:
        """Every tool call so far, in order, each with its result when one was sent."""
        results: dict[str, dict] = {}
        for message in self.messages:
            for block in blocks_of(message):
                if block.get("type") == "tool_result":
                    results[block.get("tool_use_id", "")] = block
        calls = []
        for message in self.messages:
            if message.get("role") != "assistant":
                continue
            for block in blocks_of(message):
                if block.get("type") == "tool_use":
                    result = results.get(block.get("id", ""))
                    calls.append(
                        ToolCall(
                            id=block.get("id", ""),
                            name=block.get("name", ""),
                            input=block.get("input") or {},
                            result=result_text(result) if result else None,
                            is_error=bool(result and result.get("is_error")),
                        )
                    )
        return calls

    def calls_to(self, name: str) -> list[ToolCall]:
        return [c for c in self.calls() if c.name == name]

    def task_calls(self) -> list[ToolCall]:
        """The answered calls made since the user last wrote text: the current task's calls."""
        start = 0
        for index, message in enumerate(self.messages):
            own_text = any(b.get("type") == "text" for b in blocks_of(message))
            if message.get("role") == "user" and own_text:
                start = index
        ids = {
            b.get("id")
            for m in self.messages[start:]
            if m.get("role") == "assistant"
            for b in blocks_of(m)
            if b.get("type") == "tool_use"
        }
        return [c for c in self.calls() if c.id in ids and c.result is not None]

    def latest_results(self) -> list[ToolCall]:
        """The calls answered by the last message, in the order the model made them."""
        answered = {
            b.get("tool_use_id") for b in blocks_of(self.last) if b.get("type") == "tool_result"
        }
        return [c for c in self.calls() if c.id in answered]

    def mentions(self, *words: str) -> bool:
        """True when the person's own words (`person_text`) mention any of these words
        (case-insensitive)."""
        text = self.person_text.lower()
        return any(w.lower() in text for w in words)

    def fingerprint(self) -> str:
        """A stable text form of the body, for deriving ids (streamed or not: the same ids)."""
        body = {k: v for k, v in self.body.items() if k != "stream"}
        return json.dumps(body, sort_keys=True, ensure_ascii=False, default=str)


def example_value(schema: dict[str, Any], name: str = "value") -> Any:
    """A plausible value for a JSON Schema, used when a tool is forced but no scenario knows it."""
    return example_for(schema, name=name)
