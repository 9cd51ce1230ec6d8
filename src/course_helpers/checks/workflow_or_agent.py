"""Checks for notebook 09, Choose between a workflow and an agent."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anthropic
import httpx2

from course_helpers.checks.common import (
    Recorder,
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
)


@dataclass
class _OwnAppRecorder(Recorder):
    """A Recorder in front of its own fresh course model, which may rewrite each answer."""

    app: Any = None
    rewrite: Callable[[dict], dict] | None = None

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content or b"{}")
        is_messages = request.url.path.rstrip("/") == "/v1/messages"
        if is_messages:
            self.requests.append(body)
        response = self.app.handle(request)
        if not is_messages or body.get("stream"):
            return response
        response.read()
        data = response.json()
        if self.rewrite is not None and response.status_code == 200:
            data = self.rewrite(data)
            response = httpx2.Response(200, json=data, headers={"request-id": "req_rewritten"})
        self.responses.append({"status": response.status_code, "body": data})
        return response


def fresh_recording_client(
    rewrite: Callable[[dict], dict] | None = None,
) -> tuple[anthropic.Anthropic, Recorder]:
    """Like recording_client, but a course model of its own (an empty prompt cache)."""
    from course_helpers.offline.app import CourseModelApp

    app = CourseModelApp()
    recorder = _OwnAppRecorder(app=app, rewrite=rewrite)
    client = app.client(
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(recorder.handle)),
    )
    return client, recorder


EXPECTED_CATEGORIES = {
    "P1 where is A1001": "shipping",
    "P2 password": "account",
    "P3 broken teapot": "refund",
    "P4 ship to Norway": "policy",
    "U1 kettle, no order id": "shipping",
    "U2 lost, replaced": "shipping",
    "U3 charged twice": "refund",
    "U4 return mugs": "refund",
}
OTHER_TICKET = "Do you have a job opening for a barista?"


def check_classify(classify: Callable) -> None:
    """09 · `classify(client, ticket)`: the router's step, one forced call, a known category."""
    __tracebackhide__ = True
    from course_helpers.workflows import CASES, CATEGORIES

    client, recorder = recording_client()
    tickets = [(c.name, c.ticket, EXPECTED_CATEGORIES[c.name]) for c in CASES]
    tickets.append(("a job application", OTHER_TICKET, "other"))
    systems = []
    for name, ticket, expected in tickets:
        before = len(recorder.requests)
        category = run_learner(classify, client, ticket, name="classify")
        made = len(recorder.requests) - before
        if made != 1:
            fail(
                f"classify made {made} calls for the ticket {name!r}; a router's step is one call.",
                "call client.messages.create once and return the category.",
            )
        request = recorder.requests[-1]
        _check_triage_request(request, ticket)
        systems.append(json.dumps(request.get("system"), sort_keys=True))
        if category not in CATEGORIES:
            fail(
                f"classify returned {short_repr(category)} for {name!r}, which is not one of "
                f"{CATEGORIES}.",
                "return the category from the tool_use block's input, or 'other'.",
            )
        if category != expected:
            fail(
                f"classify returned {category!r} for {name!r}; the model chose {expected!r}.",
                "read block.input['category'] from the tool_use block of the response.",
            )
    if len(set(systems)) != 1:
        fail(
            "the system prompt changed from ticket to ticket; a workflow's step has a fixed "
            "prompt, and only the ticket varies.",
            "keep the instructions in a constant; put the ticket in the user message.",
        )
    _check_classify_fallback(classify)
    passed("classify is one forced call that returns a known category")


def _check_triage_request(request: dict, ticket: str) -> None:
    __tracebackhide__ = True
    names = [t.get("name") for t in request.get("tools") or []]
    choice = request.get("tool_choice") or {}
    if "triage_ticket" not in names or choice.get("name") != "triage_ticket":
        fail(
            "the request does not force the triage_ticket tool, so the model may answer in free "
            "text that your code would have to parse.",
            "pass tools=[TRIAGE_TOOL], tool_choice={'type': 'tool', 'name': 'triage_ticket'}.",
        )
    if names != ["triage_ticket"]:
        fail(
            f"the classification step offers the tools {names}; a router's first step only "
            "sorts, it must not be able to act.",
            "offer TRIAGE_TOOL alone.",
        )
    if ticket not in json.dumps(request.get("messages"), ensure_ascii=False):
        fail("the ticket's text is not in the request.", "send it in the user message.")


def _check_classify_fallback(classify: Callable) -> None:
    __tracebackhide__ = True
    from course_helpers.workflows import CASES

    for label, rewrite in [
        ("a category outside the list ('complaints')", _with_category("complaints")),
        ("no tool_use block at all (only text)", _text_only),
    ]:
        client, _ = fresh_recording_client(rewrite=rewrite)
        try:
            category = classify(client, CASES[0].ticket)
        except Exception as error:
            fail(
                f"when the model answers with {label}, classify raised "
                f"{type(error).__name__}: {error}",
                "a real model can answer outside the schema: map anything unknown to 'other'.",
            )
        if category != "other":
            fail(
                f"when the model answers with {label}, classify returned {short_repr(category)}.",
                "anything that is not one of CATEGORIES becomes 'other' (a person looks at it).",
            )


def _with_category(category: str) -> Callable[[dict], dict]:
    def rewrite(data: dict) -> dict:
        for block in data.get("content", []):
            if block.get("type") == "tool_use":
                block["input"]["category"] = category
        return data

    return rewrite


def _text_only(data: dict) -> dict:
    data["content"] = [{"type": "text", "text": "This looks like a shipping question."}]
    data["stop_reason"] = "end_turn"
    return data


WORKFLOW_APPROACHES = ("chain", "router")


def check_choose(choose: Callable) -> None:
    """09 · `choose(results, case)`: 'workflow' when a workflow solved it, else 'agent'."""
    __tracebackhide__ = True
    import dataclasses

    from course_helpers.workflows import CASES, compare

    client, _ = recording_client()
    results = compare(client)
    for case in CASES:
        rows = {r.approach: r for r in results if r.case == case}
        expected = "workflow" if any(rows[a].success for a in WORKFLOW_APPROACHES) else "agent"
        said = run_learner(choose, results, case, name="choose")
        if said not in ("workflow", "agent"):
            fail(
                f"choose returned {short_repr(said)} for {case.name!r}; it must return 'workflow' "
                "or 'agent'.",
                "return one of the two strings.",
            )
        if said == expected:
            continue
        router, agent = rows["router"], rows["agent"]
        if said == "agent":
            fail(
                f"choose says 'agent' for {case.name!r}, which the router solved with "
                f"{router.calls} calls and {router.input_tokens:,} input tokens (the agent: "
                f"{agent.calls} calls, {agent.input_tokens:,}).",
                "when a workflow got it right, its graph could be drawn in advance: 'workflow'.",
            )
        fail(
            f"choose says 'workflow' for {case.name!r}, which no workflow solved "
            f"({rows['chain'].why or 'failed'}); the agent did.",
            "the path depended on what the lookups returned: 'agent'.",
        )
    u1 = next(c for c in CASES if c.name.startswith("U1"))
    improved = [
        dataclasses.replace(r, success=True, why="")
        if r.case == u1 and r.approach == "router"
        else r
        for r in results
    ]
    said = run_learner(choose, improved, u1, name="choose")
    if said != "workflow":
        fail(
            f"after the router learnt to look customers up by email it solves {u1.name!r}, but "
            f"choose still says {short_repr(said)}.",
            "decide from the measured results (r.success per approach), not from the case's "
            "name or kind.",
        )
    passed("choose follows the measurements")
