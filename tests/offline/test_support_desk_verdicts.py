"""Notebook 09's check answers with the words its instructions name: "respond with the single
word PASS", "Answer APPROVED or REJECTED", "Reply YES if the draft is fine" (and `OK` with the
corrected reply when they name none)."""

from __future__ import annotations

import pytest
from support_desk_calls import blocks, facts, said

from course_helpers.lessons.workflows.chain import CHECK_SYSTEM, DRAFT_SYSTEM
from course_helpers.offline.scenarios.support_desk_verdict import verdict_words

TICKET = "Ticket:\nHi, where is my order #A1001? It's been a week."
ROLE = "You check a draft reply to a Kettle & Co support ticket against the facts."
GOOD = said(DRAFT_SYSTEM, blocks(TICKET, facts("A1001")))
BAD = "Hello,\n\nYour order A1001 was refunded yesterday.\n\nKettle & Co support"

WORDINGS = {
    "the single word PASS": (
        f"{ROLE} If it is right, respond with the single word PASS.",
        ("PASS", None),
    ),
    "APPROVED or REJECTED": (f"{ROLE} Answer APPROVED or REJECTED.", ("APPROVED", "REJECTED")),
    "YES if fine": (f"{ROLE} Reply YES if the draft is fine.", ("YES", None)),
    "quoted, otherwise": (
        f'{ROLE} Say "GO" when it is supported; otherwise say "STOP".',
        ("GO", "STOP"),
    ),
    "the course's own": (CHECK_SYSTEM, ("OK", None)),
}


@pytest.mark.parametrize("wording", list(WORDINGS))
def test_a_check_reads_the_words_it_is_told_to_answer_with(wording):
    system, words = WORDINGS[wording]
    assert verdict_words(system) == words


@pytest.mark.parametrize("wording", list(WORDINGS))
def test_a_good_draft_is_approved_with_the_named_word(wording):
    system, (approve, _) = WORDINGS[wording]
    draft = f"Draft reply:\n{GOOD}"
    assert said(system, blocks(TICKET, facts("A1001"), draft)) == approve


@pytest.mark.parametrize("wording", list(WORDINGS))
def test_a_wrong_draft_gets_the_named_rejection_or_the_corrected_reply(wording):
    system, (_, reject) = WORDINGS[wording]
    answer = said(system, blocks(TICKET, facts("A1001"), f"Draft reply:\n{BAD}"))
    if reject is None:
        assert "TRK-4471" in answer and "refunded" not in answer, answer
    else:
        assert answer == reject


def test_a_rejection_asked_to_come_with_the_corrected_reply_brings_it():
    system = f"{ROLE} Answer PASS, or FAIL followed by the corrected reply."
    answer = said(system, blocks(TICKET, facts("A1001"), f"Draft reply:\n{BAD}"))
    assert answer.startswith("FAIL\n\n") and "TRK-4471" in answer, answer
