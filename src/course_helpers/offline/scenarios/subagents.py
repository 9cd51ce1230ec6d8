"""Course machinery (offline course model): a model that delegates with a `task` tool, for notebook 13.

Offered a tool named `task` (and tools allowed), the model reads the person's request (the last
user text) as a list of parts, the same way the support desk of notebook 09 reads a ticket
(`support_desk.split_requests`: sentences, joined while the topic stays). It delegates when the
request has more than one part, or when `task` is the only tool it has (it cannot do the work
itself), and at least one part asks the shop for something (`asks_the_shop`: "What is 2+2?" is
not handed over); otherwise this scenario stays out of the way and the model works with its
other tools.

1. **Delegate.** One `task` call per part, all in one turn (or one a turn, in order, when the
   request disables parallel tool use). The task's prompt is the part in the person's words.
   A short label goes in a `description` field (or `title`, `name`) if the tool has one; any
   other required field gets a valid value (an enum's first choice). If the
   tool's schema has a `context` field (or `background`, `facts`), the model fills it with the
   sentences of the request, outside this part, that ask for nothing themselves and hold an
   email address or an order id the part does not name, and with every email the request
   states elsewhere, whatever sentence it sits in ("The customer's email is ..."): who the
   customer is matters to every part, while an order id inside another part's request belongs
   to that part. A sentence that only says who the customer is ("My email is ...", no order
   id) is not glued to the part beside it: it leaves that part's prompt and goes to the
   context of every part. Without such a field the prompt is all the subagent gets: what the
   parent knew and did not write down is lost, as it is with a real model that writes a terse
   task.
2. **Answer.** When every part has a result: one reply, the greeting and sign-off of the
   answers written once and each answer's body in order; a part whose result is an error is
   named and said to be passed to a colleague.

The rule is the same for every caller. It reads the request's words and the tools offered, never
the system prompt and never which program asks: a subagent offered `task` with a request of
several parts delegates again (which is what a depth limit is for). What a subagent does with its
part is played by the scenario its request matches (the support desk for the shop's parts).
"""

from __future__ import annotations

import re

from course_helpers.offline.conversation import Conversation
from course_helpers.offline.policy import Reply, say, scenario, text, tool_use
from course_helpers.offline.reading import EMAIL as _EMAIL
from course_helpers.offline.scenarios.support_desk import merge
from course_helpers.offline.scenarios.support_desk_reading import (
    ORDER_ID,
    asks_the_shop,
    categorise,
    item_of,
    split_requests,
)
from course_helpers.offline.schemas import conform

TASK = "task"
_PROMPT_FIELDS = ("prompt", "instructions", "request", "task")
_LABEL_FIELDS = ("description", "title", "name", "label")
_CONTEXT_FIELDS = ("context", "background", "facts")


def _properties(conv: Conversation) -> dict:
    schema = (conv.tool(TASK) or {}).get("input_schema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def _field(props: dict, names: tuple[str, ...]) -> str | None:
    """The first of `names` the schema has as a string field (a field with no type counts)."""
    for name in names:
        spec = props.get(name)
        if isinstance(spec, dict) and spec.get("type", "string") == "string":
            return name
    return None


def _sentences(request: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.?!])\s+", request.strip()) if s]


def identifiers(text_: str) -> set[str]:
    """The emails and order ids a text names."""
    return {m.lower() for m in _EMAIL.findall(text_)} | set(ORDER_ID.findall(text_))


def _about_the_customer(sentence: str) -> bool:
    """A sentence that asks for nothing and only says who the customer is (an email, no order
    id): "My email is sam@example.com." It belongs to every part, not to the one it sits by."""
    return (
        categorise(sentence) == "other"
        and bool(_EMAIL.search(sentence))
        and not ORDER_ID.search(sentence)
    )


def parts_of(request: str) -> list[str]:
    """The request's parts (`split_requests`), each without the sentences that only say who the
    customer is: those go to every part's context instead (`context_for`)."""
    parts = []
    for part in split_requests(request):
        kept = " ".join(s for s in _sentences(part) if not _about_the_customer(s))
        if kept:
            parts.append(kept)
    return parts


def context_for(part: str, request: str) -> str:
    """What the part needs from the rest of the request: the sentences outside `part` that ask
    for nothing themselves (their topic is 'other') and name an email or order id `part`
    lacks; then every email the request states, in whatever sentence, that neither names
    (who the customer is matters to every part). An order id inside another part's own
    request belongs to that part and is not copied."""
    own = identifiers(part)
    facts = [
        s
        for s in _sentences(request)
        if s not in part and categorise(s) == "other" and identifiers(s) - own
    ]
    told = identifiers(" ".join([part, *facts]))
    emails = sorted({m.lower() for m in _EMAIL.findall(request)} - told)
    facts += [f"The customer's email is {email}." for email in emails]
    return " ".join(facts)


def label_of(part: str) -> str:
    """A short label for a part: its topic and the order or item it names."""
    orders = ORDER_ID.findall(part)
    about = ", ".join(orders) if orders else item_of(part)
    return f"{categorise(part)}: {about}" if about else categorise(part)


def _task_call(conv: Conversation, part: str, request: str) -> dict:
    props = _properties(conv)
    strings = [
        n for n, spec in props.items() if isinstance(spec, dict) and spec.get("type") == "string"
    ]
    prompt = _field(props, _PROMPT_FIELDS) or next(iter(strings), _PROMPT_FIELDS[0])
    arguments = {prompt: part}
    label = _field(props, _LABEL_FIELDS)
    if label and label != prompt:
        arguments[label] = label_of(part)
    context = _field(props, _CONTEXT_FIELDS)
    if context and context not in arguments:
        arguments[context] = context_for(part, request)
    # Any other field the schema requires gets a valid value (an enum's first choice).
    schema = (conv.tool(TASK) or {}).get("input_schema")
    if isinstance(schema, dict):
        arguments = conform(arguments, schema)
    return tool_use(TASK, **arguments)


def _answer(conv: Conversation, parts: list[str], calls: list) -> Reply:
    answers, failed = [], []
    for part, done in zip(parts, calls, strict=False):
        if done.is_error:
            failed.append(part)
        else:
            answers.append(done.result or "")
    merged = merge(answers).splitlines()
    lines = [f'I could not finish this part, so I passed it to a colleague: "{p}"' for p in failed]
    if lines:  # before the sign-off
        merged[-2:-2] = lines
    return say("\n".join(merged))


@scenario(
    "subagents",
    "Delegate the parts of a request to subagents with a `task` tool, then answer once: offered "
    "task, 'My teapot from order #A1002 arrived broken, please refund it. Where is my blue "
    "kettle? My email is sam@example.com.' (notebook 13)",
    priority=30,
)
def subagents(conv: Conversation) -> Reply | None:
    if not conv.offers(TASK) or not conv.tools_allowed or conv.forced_tool not in (None, TASK):
        return None
    request = conv.person_text
    parts = parts_of(request) if request else []
    only_task = conv.tool_names == [TASK]
    if not parts or (len(parts) < 2 and not only_task):
        return None
    if not any(asks_the_shop(part) for part in parts):
        return None  # "What is 2+2?": nothing to hand over; the model answers it itself
    calls = conv.task_calls()
    delegated = [c for c in calls if c.name == TASK]
    if len(delegated) >= len(parts):
        return _answer(conv, parts, delegated)
    remaining = parts[len(delegated) :]
    if not conv.parallel_allowed or conv.forced_tool:
        remaining = remaining[:1]
    count = len(remaining)
    words = "a subagent" if count == 1 else f"{count} subagents"
    preamble = f"I'll give {'this part' if count == 1 else 'these parts'} to {words}."
    return Reply([text(preamble), *(_task_call(conv, p, request) for p in remaining)])
