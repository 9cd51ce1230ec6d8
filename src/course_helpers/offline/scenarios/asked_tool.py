"""Course machinery (offline course model): any notebook or client: a tool the person asks for by
what its name says, called with the values the request states.

A request no lesson scenario plays may still ask for exactly what an offered tool does: "Add a
contact: Ada Lovelace, ada@example.com." with an `add_contact` tool. A model calls it. The rule,
for every caller: tools may be called, every word of the tool's name (split at `_`, `-` and
capitals; an MCP client's `mcp__server__` prefix left out) is one of the person's words (or
that word with -s, -es, -ed, -ing), the tool has at least one required field, and the request
states a value for every required field (`filling.stated`: no placeholder is sent). The first
such tool is called once. When its results come back, the answer reports them; a result that
is an error stating exactly what to change in the input (`corrections.py`) gets the call again
with that change, once per input.

It has no line in the capability list: it is not a lesson's scenario.
"""

from __future__ import annotations

import re

from course_helpers.offline.conversation import Conversation
from course_helpers.offline.corrections import put_right
from course_helpers.offline.filling import stated
from course_helpers.offline.policy import Reply, say, scenario, text, tool_use
from course_helpers.offline.schemas import conform


def name_words(name: str) -> list[str]:
    """The words of a tool's name: `add_contact` and `addContact` give add, contact."""
    bare = re.sub(r"^mcp__[^_]+(?:_[^_]+)*?__", "", name)
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", bare)
    return [w.lower() for w in re.split(r"[\s_\-.]+", spaced) if w]


def asks_for(tool: dict, said: str) -> bool:
    """Whether the person's words say every word of the tool's name."""
    words = set(re.findall(r"[a-z]+", said.lower()))
    wanted = name_words(str(tool.get("name", "")))
    forms = ("", "s", "es", "ed", "ing")
    return bool(wanted) and all(any(w + f in words for f in forms) for w in wanted)


def arguments_for(tool: dict, conv: Conversation) -> dict | None:
    """The tool's input from what the request states, or None when a required field is not
    stated."""
    schema = tool.get("input_schema") or {}
    required = schema.get("required") or []
    if not required:
        return None
    found = stated(schema, conv.person_text, asked=conv.asked_text)
    return found if all(name in found for name in required) else None


@scenario("asked_tool", "", priority=800)
def asked_tool(conv: Conversation) -> Reply | None:
    if not conv.tools_allowed:
        return None
    said = conv.person_text
    if conv.ends_with_results:
        results = conv.latest_results()
        asked = [c for c in results if asks_for(conv.tool(c.name) or {}, said)]
        if not asked or len(asked) != len(results):
            return None
        again = _put_right(conv, asked)
        if again is not None:
            return again
        lines = [
            f"{c.name} failed: {c.result}" if c.is_error else f"Done. {c.name} returned: {c.result}"
            for c in asked
        ]
        return say("\n".join(lines))
    for tool in conv.tools:
        if "input_schema" not in tool or not asks_for(tool, said):
            continue
        arguments = arguments_for(tool, conv)
        if arguments is not None:
            name = tool["name"]
            return Reply([text(f"I'll call {name}."), tool_use(name, **arguments)])
    return None


def _put_right(conv: Conversation, answered: list) -> Reply | None:
    """The failed calls again, when their errors state exactly what to change in the input
    (`corrections.put_right`) and that input was not tried before."""
    tried = [(c.name, c.input) for c in conv.calls()]
    calls = []
    for call in answered:
        if not call.is_error or call.result is None:
            continue
        fixed = put_right(call.input, call.result)
        schema = (conv.tool(call.name) or {}).get("input_schema") or {}
        if (
            fixed != call.input
            and (call.name, fixed) not in tried
            and conform(fixed, schema) == fixed
        ):
            calls.append(tool_use(call.name, **fixed))
    if not calls:
        return None
    return Reply([text("The tool said what to change; I'll call it again with that."), *calls])
