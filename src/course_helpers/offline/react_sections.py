"""Course machinery (offline course model): dspy's ReAct, which offers tools in the prompt.

dspy's `ReAct` sends no `tools`. Its system prompt lists them, "(1) get_weather, whose
description is <desc>...</desc>. It takes arguments {'city': {'type': 'string'}}.", always with
`finish`, and asks for three sections: `next_thought`, `next_tool_name` (one of the listed names)
and `next_tool_args` (a JSON object). The steps so far come back in the `trajectory` input
field, `[[ ## tool_name_0 ## ]]`, `[[ ## tool_args_0 ## ]]`, `[[ ## observation_0 ## ]]`...
A model reads that as tools it has and calls it has made; so does the course model: it reads the
request as the same conversation with real `tools`, `tool_use` and `tool_result` blocks
(`as_tool_conversation`) and decides by the same rules as for any caller. ReAct makes one call a
step: a call the request needs (at the start, or after the results so far) that is not made yet
is the next step; otherwise the next tool is `finish`. dspy's last step (the
answer's fields, with the trajectory as input) is answered from that conversation too.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable

from course_helpers.offline.conversation import Conversation
from course_helpers.offline.policy import Reply
from course_helpers.offline.schemas import conform

_TOOL = re.compile(
    r"^[ \t]*\(\d+\) (\w+), whose description is <desc>((?:.|\n)*?)</desc>\. "
    r"It takes arguments (\{.*\})\.?[ \t]*$",  # the arguments' dict is written on one line
    re.MULTILINE,
)
_SECTION = re.compile(r"\[\[ ## (\w+) ## \]\]\n?(.*?)(?=\n*\[\[ ## \w+ ## \]\]|\Z)", re.DOTALL)
_STEP = re.compile(r"(thought|tool_name|tool_args|observation)_(\d+)")
_CLOSING = "Respond with the corresponding output fields"
STEP_FIELDS = ("next_thought", "next_tool_name", "next_tool_args")
FINISH = "finish"


def listed_tools(system: str) -> list[dict]:
    """The tools the system prompt lists, as API tool definitions (`finish` left out)."""
    tools = []
    for found in _TOOL.finditer(system):
        name, description, arguments = found.groups()
        try:
            properties = ast.literal_eval(arguments)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            properties = {}
        if name == FINISH or not isinstance(properties, dict):
            continue
        schema = {"type": "object", "properties": properties, "required": list(properties)}
        tools.append({"name": name, "description": description, "input_schema": schema})
    return tools


def sections(text: str) -> dict[str, str]:
    """The `[[ ## name ## ]]` sections of a text, by name."""
    return {name: value.strip() for name, value in _SECTION.findall(text)}


def as_tool_conversation(conv: Conversation, tools: list[dict]) -> Conversation | None:
    """The request as a model with real tools reads it: the person's input fields, then each
    step of the trajectory as a call and its result. None when there is no trajectory field."""
    # The trajectory's steps are sections of their own, after `[[ ## trajectory ## ]]`.
    fields = sections(conv.last_user_text.split(_CLOSING, 1)[0])
    if "trajectory" not in fields:
        return None
    steps: dict[int, dict[str, str]] = {}
    asked = []
    for name, value in fields.items():
        step = _STEP.fullmatch(name)
        if step:
            steps.setdefault(int(step.group(2)), {})[step.group(1)] = value
        elif name != "trajectory" and value:
            asked.append(value)
    messages: list[dict] = [{"role": "user", "content": "\n\n".join(asked)}]
    for index, step in sorted(steps.items()):
        if step.get("tool_name") in (None, FINISH):
            continue
        try:
            arguments = json.loads(step.get("tool_args") or "{}")
        except ValueError:
            arguments = {}
        call = f"toolu_react_{index}"
        use = {"type": "tool_use", "id": call, "name": step["tool_name"], "input": arguments}
        result = {
            "type": "tool_result",
            "tool_use_id": call,
            "content": step.get("observation", ""),
        }
        messages += [{"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]
    # dspy's last step lists no tools: the ones the trajectory called are the ones it had.
    named = {t["name"] for t in tools}
    called = [s["tool_name"] for s in steps.values() if s.get("tool_name") not in (None, FINISH)]
    tools = tools + [
        {"name": name, "input_schema": {"type": "object"}}
        for name in dict.fromkeys(called)
        if name not in named
    ]
    body = {"model": conv.body.get("model"), "max_tokens": 1024, "messages": messages}
    return Conversation({**body, "tools": tools} if tools else body)


def next_step(conv: Conversation, choose: Callable[[Conversation], Reply]) -> dict[str, str] | None:
    """The three sections of ReAct's next step, or None when the request is not such a step."""
    tools = listed_tools(conv.system)
    inner = as_tool_conversation(conv, tools)
    if inner is None:
        return None
    made = [(c.name, json.dumps(c.input, sort_keys=True)) for c in inner.calls()]
    offered = {t["name"]: t["input_schema"] for t in inner.tools}  # tidied: any shape reads
    # ReAct makes one call a step: the calls the request needed at the start that are still
    # to make come first, then whatever the results so far call for.
    first = Conversation({**inner.body, "messages": inner.messages[:1]})
    planned = [*choose(first).content, *choose(inner).content] if made else choose(inner).content
    for block in planned:
        if block.get("type") != "tool_use" or block.get("name") not in offered:
            continue
        arguments = conform(block.get("input") or {}, offered[block["name"]])
        if (block["name"], json.dumps(arguments, sort_keys=True)) in made:
            continue
        return {
            "next_thought": f"I need {block['name']} for this.",
            "next_tool_name": block["name"],
            "next_tool_args": json.dumps(arguments, ensure_ascii=False),
        }
    thought = "I have what I need to answer." if made else "I can answer this without a tool."
    return {"next_thought": thought, "next_tool_name": FINISH, "next_tool_args": "{}"}
