"""Notebook 09's support desk reads the writer's role from what the instructions mean: a prompt
in the imperative ("Check a draft ...", "Tell Kettle & Co customers ...") engages it exactly as
the same prompt opening with "You ..." does, and a sentence about how to work ("You must read the
refund policy before any refund") is an instruction, not a narrowing of the role."""

from __future__ import annotations

import pytest

from course_helpers.fixtures.support_desk import CASES, Desk
from course_helpers.lessons.workflows import agent as agent_module
from course_helpers.lessons.workflows import chain as chain_module
from course_helpers.lessons.workflows import orchestrator as orchestrator_module
from course_helpers.lessons.workflows import router as router_module
from course_helpers.lessons.workflows.agent import AGENT_SYSTEM, run_support_agent
from course_helpers.lessons.workflows.chain import CHECK_SYSTEM, DRAFT_SYSTEM
from course_helpers.lessons.workflows.orchestrator import MERGE_SYSTEM
from course_helpers.lessons.workflows.router import HANDLER_SYSTEMS
from course_helpers.measurement.workflows import APPROACHES
from course_helpers.offline import CourseModel, CourseModelApp
from course_helpers.offline.conversation import Conversation
from course_helpers.offline.scenarios.support_desk import support_desk
from course_helpers.offline.scenarios.support_desk_reading import role_scope

CASE = {c.name.split()[0]: c for c in CASES}


def _client():
    return CourseModelApp(CourseModel()).client(_strict_response_validation=True)


def _imperative(prompt: str, verb: str) -> str:
    """The prompt with its "You <verb>s ..." opening in the imperative ("<Verb> ...")."""
    opening = prompt.split(" ", 2)
    assert opening[0] == "You", prompt
    return f"{verb} {opening[2]}"


# (module, attribute, key, the same prompt in the imperative, the approaches that send it)
IMPERATIVES = [
    (chain_module, "CHECK_SYSTEM", None, _imperative(CHECK_SYSTEM, "Check"), ["chain"]),
    (
        chain_module,
        "CHECK_SYSTEM",
        None,
        _imperative(CHECK_SYSTEM, "Compare").replace(" against ", " with "),
        ["chain"],
    ),
    (chain_module, "DRAFT_SYSTEM", None, _imperative(DRAFT_SYSTEM, "Write"), ["chain"]),
    (
        router_module,
        "HANDLER_SYSTEMS",
        "shipping",
        _imperative(HANDLER_SYSTEMS["shipping"], "Tell"),
        ["router", "orchestrator"],
    ),
    (
        router_module,
        "HANDLER_SYSTEMS",
        "refund",
        _imperative(HANDLER_SYSTEMS["refund"], "Tell"),
        ["router", "orchestrator"],
    ),
    (
        router_module,
        "HANDLER_SYSTEMS",
        "help",
        _imperative(HANDLER_SYSTEMS["help"], "Answer"),
        ["router", "orchestrator"],
    ),
    (
        orchestrator_module,
        "MERGE_SYSTEM",
        None,
        _imperative(MERGE_SYSTEM, "Merge"),
        ["orchestrator"],
    ),
]


def _replies(approach: str) -> dict[str, tuple[str, list[str]]]:
    out = {}
    for case in CASES:
        desk = Desk()
        attempt = APPROACHES[approach](_client(), desk, case.ticket)
        out[case.name] = (attempt.reply, [r["order_id"] for r in desk.refunds])
    return out


@pytest.mark.parametrize(
    ("module", "name", "key", "prompt", "approaches"),
    IMPERATIVES,
    ids=[f"{m[1]}{'-' + m[2] if m[2] else ''}-{m[3].split()[0]}" for m in IMPERATIVES],
)
def test_the_same_prompt_in_the_imperative_gives_every_case_the_same_reply(
    module, name, key, prompt, approaches, monkeypatch
):
    shipped = {approach: _replies(approach) for approach in approaches}
    if key is None:
        monkeypatch.setattr(module, name, prompt)
    else:
        monkeypatch.setitem(getattr(module, name), key, prompt)
    for approach in approaches:
        assert _replies(approach) == shipped[approach], (approach, prompt)


@pytest.mark.parametrize(
    "system",
    [
        _imperative(CHECK_SYSTEM, "Check"),
        _imperative(HANDLER_SYSTEMS["refund"], "Tell"),
        "Kettle & Co is a kitchenware shop. Answer its customers' support tickets from the facts.",
        "Please write the reply to this Kettle & Co customer's ticket from the facts given.",
        "Role: the writer of replies to Kettle & Co support tickets.",
        "You are a writer for Kettle & Co, a kitchenware shop, answering people who wrote to us.",
    ],
)
def test_a_role_in_any_mood_engages_the_desk_and_is_never_the_capability_menu(system):
    body = {
        "model": "claude-sonnet-5-5",
        "max_tokens": 1024,
        "system": system,
        "messages": [{"role": "user", "content": f"Ticket:\n{CASE['P1'].ticket}"}],
    }
    assert support_desk(Conversation(body)) is not None
    content = CourseModel().respond(body).message["content"]
    said = "".join(b.get("text", "") for b in content if b["type"] == "text")
    assert "offline course model" not in said and "Kettle & Co support" in said


@pytest.mark.parametrize(
    "system",
    [
        "You are a coding assistant. Check the user's code for Kettle & Co support scripts.",
        "Translate the user's text into German. Kettle & Co support wrote it.",
        "Check the spelling of the user's text for the Kettle & Co marketing team.",
        "You are a translator for Kettle & Co. Translate the user's text into German.",
    ],
)
def test_an_imperative_about_other_work_still_engages_nothing(system):
    body = {
        "model": "claude-sonnet-5-5",
        "max_tokens": 1024,
        "system": system,
        "messages": [{"role": "user", "content": "Where is my order A1001? It's been a week."}],
    }
    assert support_desk(Conversation(body)) is None


# -- a sentence about how to work is not a role ------------------------------------------------

PROCEDURE = " You must read the refund policy in the help centre before any refund, and follow it."


@pytest.mark.parametrize(
    "system",
    [
        AGENT_SYSTEM.split(" Before you refund")[0] + PROCEDURE,
        AGENT_SYSTEM + " You should never promise a refund the tools do not show.",
        AGENT_SYSTEM + " You do not refund anything the refund tool refuses.",
    ],
)
def test_a_procedural_you_sentence_does_not_narrow_the_agent(system, monkeypatch):
    assert role_scope(system) is None
    monkeypatch.setattr(agent_module, "AGENT_SYSTEM", system)
    desk = Desk()
    attempt = run_support_agent(_client(), desk, CASE["U5"].ticket)
    assert "TRK-4471" in attempt.reply and "24.00" in attempt.reply, attempt.reply
    assert [r["order_id"] for r in desk.refunds] == ["A1002"]


def test_a_writer_told_it_never_promises_a_refund_still_answers_every_request():
    system = DRAFT_SYSTEM + " You never promise a refund the facts do not show."
    assert role_scope(system) is None
    # A role sentence keeps narrowing, in either mood.
    assert role_scope(HANDLER_SYSTEMS["refund"]) == {"refund"}
    assert role_scope(_imperative(HANDLER_SYSTEMS["refund"], "Tell")) == {"refund"}


def test_a_merge_whose_prompt_names_no_shop_merges_answers_the_shops_workers_signed(monkeypatch):
    system = MERGE_SYSTEM.replace("Sign as Kettle & Co support.", "Sign as the support team.")
    shipped = _replies("orchestrator")["U5 two requests"][0]
    monkeypatch.setattr(orchestrator_module, "MERGE_SYSTEM", system)
    merged = _replies("orchestrator")["U5 two requests"][0]
    assert merged == shipped.replace("Kettle & Co support", "the support team")


# -- a role that names what the model can do forbids nothing else -------------------------------


@pytest.mark.parametrize(
    "system",
    [
        "You handle customer tickets and you can refund orders.",
        "You handle customer tickets, and you can also refund orders.",
        "You can refund orders.",
    ],
)
def test_a_role_that_names_one_thing_it_can_do_does_not_narrow_the_agent(system, monkeypatch):
    assert role_scope(system) is None
    monkeypatch.setattr(agent_module, "AGENT_SYSTEM", system)
    attempt = run_support_agent(_client(), Desk(), CASE["P1"].ticket)  # where is A1001?
    assert "TRK-4471" in attempt.reply, attempt.reply


def test_a_role_that_says_it_can_only_refund_still_narrows():
    assert role_scope("You can only refund orders.") == {"refund"}
    added = "You handle refunds. You can also tell them where their orders are."
    assert role_scope(added) == {"refund", "shipping"}
