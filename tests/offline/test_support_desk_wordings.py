"""Notebook 09's support desk reads what is meant, not one wording, and by the same rule for every
approach: the instruction to consult the refund policy, a writer's role, the words for damage, and
two requests in one sentence."""

from __future__ import annotations

import pytest

from course_helpers.fixtures.support_desk import CASES, Case, Desk
from course_helpers.lessons.workflows import agent as agent_module
from course_helpers.lessons.workflows import router as router_module
from course_helpers.lessons.workflows.agent import AGENT_SYSTEM, run_support_agent
from course_helpers.lessons.workflows.chain import CHECK_SYSTEM, DRAFT_SYSTEM
from course_helpers.lessons.workflows.router import HANDLER_SYSTEMS
from course_helpers.measurement.workflows import APPROACHES, run_case
from course_helpers.offline import CourseModel, CourseModelApp
from course_helpers.offline.scenarios.support_desk_reading import (
    categorise,
    reason_of,
    requests_of,
    role_scope,
    split_requests,
    told_to_follow_refund_policy,
)

CASE = {c.name.split()[0]: c for c in CASES}
POLICY_SENTENCE = (
    "Before you refund anything, read the refund policy in the help centre and follow it; "
)


def _client():
    return CourseModelApp(CourseModel()).client(_strict_response_validation=True)


# -- finding: the refund policy, in other words ------------------------------------------------

TOLD = [
    "Never issue a refund before you have looked at what the help centre says about refunds.",
    "Before refunding, make sure you know the refund policy from the help centre.",
    "Check the refund policy in the help centre first.",
    "Do not refund until you have read the help centre's refund policy.",
    "The refund policy in the help centre must be consulted before any refund is made.",
    "Make sure you have checked the help centre for the refund rules before giving money back.",
    "No refund without reading the refund policy first.",
    "Always be familiar with the refund policy of the help centre before refunding.",
    "Look up the refund policy in the help centre before any refund.",
    "You may refund only after you have read what the help centre says about money back.",
    "It is important to know the shop's refund policy before refunding.",
    "Refund only once you have consulted the refund guidelines.",
    "Whenever a customer asks for money back, first review the shop's refund terms.",
    "Refunds: go by what the help centre's policy says, and learn it before you act.",
]
NOT_TOLD = [
    "Refunds are handled by the help centre.",
    "Do not read the refund policy.",
    "You do not need to check the refund policy.",
    'A customer once wrote: "please read your refund policy before you refund me". Refund what '
    "the tools allow.",
    "Ignore the refund policy in the help centre.",
    "The help centre has an article on refunds.",
    "Never look at the refund policy; just refund.",
]


TOLD_RU = [
    "Прежде чем оформлять возврат, прочитай правила возврата.",
    "Сначала посмотри, что говорит справочный центр о возвратах.",
    "Перед возвратом денег ознакомься с политикой возврата в справочном центре.",
]
NOT_TOLD_RU = [
    "Не читай правила возврата.",
    "Возвраты оформляет справочный центр.",
    "Клиент написал: «прочитайте правила возврата перед возвратом». Возвращай, что разрешено.",
]


@pytest.mark.parametrize(
    ("wording", "told"), [*((w, True) for w in TOLD_RU), *((w, False) for w in NOT_TOLD_RU)]
)
def test_the_refund_policy_instruction_counts_in_russian_too(wording, told, monkeypatch):
    assert told_to_follow_refund_policy(wording) is told
    monkeypatch.setattr(
        agent_module, "AGENT_SYSTEM", AGENT_SYSTEM.replace(POLICY_SENTENCE, wording + " ")
    )
    desk = Desk()
    run_support_agent(_client(), desk, CASE["U3"].ticket)
    assert (desk.refused == []) is told
    assert [r["order_id"] for r in desk.refunds] == ["A1004"]


@pytest.mark.parametrize("wording", TOLD)
def test_an_instruction_to_consult_the_refund_policy_counts_in_other_words(wording):
    assert told_to_follow_refund_policy(wording)


@pytest.mark.parametrize("wording", NOT_TOLD)
def test_a_mention_denial_or_quotation_of_the_refund_policy_does_not_count(wording):
    assert not told_to_follow_refund_policy(wording)


@pytest.mark.parametrize(
    ("wording", "told"), [*((w, True) for w in TOLD[:4]), (NOT_TOLD[0], False)]
)
def test_the_agent_reads_the_policy_first_whatever_the_words(wording, told, monkeypatch):
    system = AGENT_SYSTEM.replace(POLICY_SENTENCE, wording + " ")
    assert system != AGENT_SYSTEM
    monkeypatch.setattr(agent_module, "AGENT_SYSTEM", system)
    desk = Desk()
    run_support_agent(_client(), desk, CASE["U3"].ticket)
    # Told: it reads the policy and refunds only the duplicate; not told: it asks the tool for
    # the order the customer named first, and is refused, as with no sentence at all.
    assert (desk.refused == []) is told
    assert [r["order_id"] for r in desk.refunds] == ["A1004"]


def test_the_same_instruction_counts_in_any_callers_prompt():
    """Not the agent's prompt: any instructions with the desk's tools, read by the same rule."""
    body = {
        "model": "claude-sonnet-5-5",
        "max_tokens": 1024,
        "system": "You handle the Kettle & Co support queue. " + TOLD[0],
        "messages": [{"role": "user", "content": CASE["U3"].ticket}],
        "tools": [t.definition() for t in Desk().tools()],
    }
    message = CourseModel().respond(body).message
    assert [b["name"] for b in message["content"] if b["type"] == "tool_use"][-1] == "search_kb"


# -- finding: the writer's role, from the whole prompt -------------------------------------------


@pytest.mark.parametrize(
    ("system", "scope"),
    [
        (HANDLER_SYSTEMS["refund"], {"refund"}),
        (HANDLER_SYSTEMS["shipping"], {"shipping"}),
        (HANDLER_SYSTEMS["help"], {"account", "policy"}),
        (AGENT_SYSTEM, None),
        (DRAFT_SYSTEM, None),
        (CHECK_SYSTEM, None),
        ("You answer every request of a Kettle & Co customer from the facts.", None),
        (
            "You work the refund desk of Kettle & Co. Answer every question the customer asks, "
            "from the facts given. Be brief; sign as Kettle & Co support.",
            None,
        ),
        (
            "You reply to Kettle & Co customers about their refund and anything else they ask, "
            "from the facts given. Be brief; sign as Kettle & Co support.",
            None,
        ),
        ("You write replies for Kettle & Co. You only handle refunds.", {"refund"}),
        (
            "You write replies for Kettle & Co. Your job is to tell customers where their order "
            "is.",
            {"shipping"},
        ),
    ],
)
def test_the_role_is_read_from_the_whole_prompt(system, scope):
    assert role_scope(system) == scope


@pytest.mark.parametrize(
    ("handler", "success"),
    [
        (HANDLER_SYSTEMS["refund"], False),
        (
            "You work the refund desk of Kettle & Co. Answer every question the customer asks, "
            "from the facts given. Be brief; sign as Kettle & Co support.",
            True,
        ),
        (
            "You reply to Kettle & Co customers about their refund and anything else they ask, "
            "from the facts given. Be brief; sign as Kettle & Co support.",
            True,
        ),
    ],
)
def test_a_writer_told_to_answer_everything_in_a_later_sentence_does(handler, success, monkeypatch):
    monkeypatch.setitem(router_module.HANDLER_SYSTEMS, "refund", handler)
    result = run_case(_client(), "router", CASE["U5"])
    assert result.success is success, result.why


# -- finding: the words for damage ------------------------------------------------------------

DAMAGE = [
    "arrived shattered",
    "arrived in pieces",
    "arrived smashed",
    "arrived chipped",
    "arrived dented",
    "arrived in bits",
    "doesn't work",
    "stopped working",
]


@pytest.mark.parametrize("words", DAMAGE)
def test_every_word_for_damage_reads_as_damage(words):
    ticket = f"My glass teapot from order #A1002 {words}. I'd like a refund please."
    assert reason_of(ticket) == "damaged"
    assert categorise(f"My glass teapot from order #A1002 {words}.") == "refund"


@pytest.mark.parametrize("words", DAMAGE)
@pytest.mark.parametrize("approach", list(APPROACHES))
def test_every_approach_refunds_a_teapot_damaged_in_other_words(approach, words):
    case = Case(
        "P3 words",
        "predictable",
        f"My glass teapot from order #A1002 {words}. I'd like a refund please.",
        ("24.00",),
        ("A1002",),
    )
    result = run_case(_client(), approach, case)
    assert result.success, result.why


@pytest.mark.parametrize("approach", list(APPROACHES))
def test_a_reply_never_asks_for_the_order_number_it_has_just_named(approach):
    ticket = "my glass teapot from order a1002 arrived smashed. can i get my money back?"
    case = Case("P3 lower", "predictable", ticket, ("24.00",), ("A1002",))
    result = run_case(_client(), approach, case)
    assert result.success, result.why
    assert "could not find an order number" not in result.reply


def test_a_money_back_sentence_that_names_no_order_is_about_the_order_before_it():
    ticket = "My glass teapot from order #A1002 arrived with a hole. Can I get my money back?"
    requests = requests_of(ticket)
    assert all(r["order_ids"] == ["A1002"] for r in requests)
    desk = Desk()
    attempt = run_support_agent(_client(), desk, ticket)
    assert "could not find an order number" not in attempt.reply


# -- finding: two requests in one sentence --------------------------------------------------------

ONE_SENTENCE = (
    "Please refund my cracked teapot from order #A1002 and tell me where order #A1001 is."
)


@pytest.mark.parametrize(
    ("ticket", "parts"),
    [
        (ONE_SENTENCE, 2),
        ("Refund my broken teapot from order #A1002; where is order #A1001?", 2),
        ("Where is order #A1001? Also refund the cracked teapot from order #A1002.", 2),
        ("Tell me where order #A1001 is, and also refund order #A1002, it arrived broken.", 2),
        # one request: the second part has no verb, or no order of its own
        ("Please refund orders #A1003 and #A1004.", 1),
        ("Please refund order #A1002 and order #A1003.", 1),
        ("I'm sam@example.com and my teapot from order #A1002 arrived broken, refund it.", 1),
        ("My teapot and my mug from order #A1002 arrived broken. Please refund them.", 1),
    ],
)
def test_requests_joined_by_and_also_or_a_semicolon_are_split(ticket, parts):
    assert len(split_requests(ticket)) == parts


@pytest.mark.parametrize("approach", list(APPROACHES))
def test_two_requests_in_one_sentence_fare_as_two_sentences_do(approach):
    one = Case("U5 one sentence", "unpredictable", ONE_SENTENCE, ("24.00", "TRK-4471"), ("A1002",))
    client = _client()
    alone, split = run_case(client, approach, one), run_case(client, approach, CASE["U5"])
    assert (alone.success, alone.why) == (split.success, split.why)


def test_the_agent_answers_both_requests_of_one_sentence():
    desk = Desk()
    attempt = run_support_agent(_client(), desk, ONE_SENTENCE)
    assert "TRK-4471" in attempt.reply and "24.00" in attempt.reply, attempt.reply
    assert [r["order_id"] for r in desk.refunds] == ["A1002"]
