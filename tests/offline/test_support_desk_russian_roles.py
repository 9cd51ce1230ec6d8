"""Notebook 09's support desk reads Russian role, narrowing and check sentences as it reads their
English twins: «Ты специалист службы поддержки ...», «Отвечай только о возвратах», «Ты
занимаешься только доставкой», «Проверь черновик ... Ответь ОК, если он верен»."""

from __future__ import annotations

import pytest
from support_desk_calls import blocks, facts, said

from course_helpers.offline.scenarios.support_desk_instructions import role_scope, role_sentence

TICKET = (
    "Ticket:\nWhere is my order A1001? Also my teapot from order A1002 arrived broken, I want a "
    "refund."
)
FACTS = facts("A1001", "A1002")
TRACKING = "TRK-4471"  # A1001's tracking number: the answer about where it is
TEAPOT = "A1002 (glass teapot)"  # the answer about the refund

TWINS = {
    "a role": (
        "You are a Kettle & Co support specialist.",
        "Ты специалист службы поддержки Kettle & Co.",
        None,
    ),
    "only refunds": (
        "You are a Kettle & Co support specialist. Answer only about refunds.",
        "Ты специалист службы поддержки Kettle & Co. Отвечай только о возвратах.",
        {"refund"},
    ),
    "only delivery": (
        "You work in Kettle & Co support. You only handle delivery.",
        "Ты работаешь в поддержке Kettle & Co. Ты занимаешься только доставкой.",
        {"shipping"},
    ),
    "only refunds, also delivery": (
        "You handle Kettle & Co support tickets about refunds. Also say where their orders are.",
        "Ты обрабатываешь обращения клиентов Kettle & Co о возвратах. Также сообщай, где их "
        "заказы.",
        {"refund", "shipping"},
    ),
    "every question": (
        "You answer Kettle & Co customers about refunds. Answer every question they ask.",
        "Ты отвечаешь клиентам Kettle & Co о возвратах. Отвечай на все вопросы клиента.",
        None,
    ),
}


@pytest.mark.parametrize("twin", list(TWINS))
def test_a_russian_role_is_read_as_its_english_twin(twin):
    english, russian, scope = TWINS[twin]
    assert role_sentence(russian)
    assert role_scope(english) == role_scope(russian) == scope
    answer = said(russian, blocks(TICKET, FACTS))
    assert answer == said(english, blocks(TICKET, FACTS))
    assert (TRACKING in answer) is (scope is None or "shipping" in scope), answer
    assert (TEAPOT in answer) is (scope is None or "refund" in scope), answer


@pytest.mark.parametrize(
    "system",
    [
        "Ты проверяешь черновик ответа на обращение в поддержку Kettle & Co. Ответь ОК, если он "
        "верен.",
        "Проверь черновик ответа клиенту Kettle & Co. Ответь ОК, если он верен; иначе напиши "
        "исправленный ответ.",
    ],
)
def test_a_russian_check_answers_with_its_word(system):
    good = said("You are a Kettle & Co support specialist.", blocks(TICKET, FACTS))
    assert said(system, blocks(TICKET, FACTS, f"Draft reply:\n{good}")) == "ОК"
    wrong = "Hello,\n\nYour order A1001 was refunded.\n\nKettle & Co support"
    corrected = said(system, blocks(TICKET, FACTS, f"Draft reply:\n{wrong}"))
    assert TRACKING in corrected and "was refunded" not in corrected, corrected
