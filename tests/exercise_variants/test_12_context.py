"""The checks of exercise notebook 12, proven both ways.

Wrong solutions a learner would write, each failing with the API's own error text (when the
API refuses the history) and a message that names the mistake, every message different; and
solutions that are right in another way, which pass. The requirements each check enforces are
listed in the docstring of `course_helpers.exercise_checks.context`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from course_helpers.exercise_checks import (
    CheckFailed,
    check_choose_cut,
    check_clear_results,
    check_sessions,
)
from course_helpers.lessons.pairing import content_blocks, pairing_problems, read_field


def failure_of(check, *functions) -> str:
    with pytest.raises(CheckFailed) as failure:
        check(*functions)
    text = str(failure.value)
    assert "\nHint: " in text, text
    return text


def assert_each_fails_its_own_way(check, variants: dict) -> None:
    messages = {}
    for label, (functions, expected) in variants.items():
        text = failure_of(check, *functions)
        for words in expected:
            assert words in text, f"{label}: {words!r} not in {text!r}"
        messages[label] = text
    assert len(set(messages.values())) == len(messages), messages


def assert_passes(check, capsys, *functions) -> None:
    check(*functions)
    assert "passed" in capsys.readouterr().out


# -- 1. clear_results -------------------------------------------------------------------------


def _old_places(messages, keep):
    places = _places(messages)
    return places[: max(0, len(places) - keep)]


def _calls(messages):
    return {
        read_field(b, "id"): b
        for m in messages
        for b in content_blocks(m)
        if read_field(b, "type") == "tool_use"
    }


def _places(messages):
    return [
        (i, j)
        for i, m in enumerate(messages)
        if read_field(m, "role") == "user"
        for j, b in enumerate(content_blocks(m))
        if read_field(b, "type") == "tool_result"
    ]


def _stub(call) -> str:
    return f"[cleared: call {read_field(call, 'name')}({json.dumps(read_field(call, 'input'))})]"


def clear_right(messages, keep=2):
    calls = _calls(messages)
    for i, j in _old_places(messages, keep):
        blocks = content_blocks(messages[i])
        blocks[j] = {**blocks[j], "content": _stub(calls[blocks[j]["tool_use_id"]])}
        messages[i] = {"role": "user", "content": blocks}


def clear_without_id(messages, keep=2):
    calls = _calls(messages)
    for i, j in _old_places(messages, keep):
        blocks = content_blocks(messages[i])
        stub = _stub(calls[blocks[j]["tool_use_id"]])
        blocks[j] = {"type": "tool_result", "content": stub}  # the id forgotten
        messages[i] = {"role": "user", "content": blocks}


def clear_by_deleting(messages, keep=2):
    for i, j in reversed(_old_places(messages, keep)):
        blocks = content_blocks(messages[i])
        del blocks[j]
        messages[i] = {"role": "user", "content": blocks or "(results removed)"}


def clear_and_drop_thinking(messages, keep=2):
    clear_right(messages, keep)
    for i, m in enumerate(messages):
        if m["role"] == "assistant" and not isinstance(m["content"], str):
            kept = [b for b in m["content"] if read_field(b, "type") != "thinking"]
            messages[i] = {"role": "assistant", "content": kept}


def clear_with_a_vague_stub(messages, keep=2):
    for i, j in _old_places(messages, keep):
        blocks = content_blocks(messages[i])
        blocks[j] = {**blocks[j], "content": "[cleared]"}
        messages[i] = {"role": "user", "content": blocks}


def clear_everything(messages, keep=2):
    clear_right(messages, keep=0) if keep else None
    calls = _calls(messages)
    for i, j in _places(messages):
        blocks = content_blocks(messages[i])
        blocks[j] = {**blocks[j], "content": _stub(calls[blocks[j]["tool_use_id"]])}
        messages[i] = {"role": "user", "content": blocks}


def clear_into_a_copy(messages, keep=2):
    """Builds a cleared copy and returns it: the loop's own list is left as it was."""
    cleared = copy.deepcopy(messages)
    clear_right(cleared, keep)
    return cleared


def clear_with_a_dict(messages, keep=2):
    calls = _calls(messages)
    for i, j in _old_places(messages, keep):
        blocks = content_blocks(messages[i])
        stub = {"type": "text", "text": _stub(calls[blocks[j]["tool_use_id"]])}
        blocks[j] = {**blocks[j], "content": stub}  # a block, not a string or a list of blocks
        messages[i] = {"role": "user", "content": blocks}


def test_clear_results_mistakes_each_fail_their_own_way():
    assert_each_fails_its_own_way(
        check_clear_results,
        {
            "a stub that drops tool_use_id": (
                (clear_without_id,),
                ["tool_result.tool_use_id: Field required", "has no tool_use_id"],
            ),
            "old results deleted": (
                (clear_by_deleting,),
                ["`tool_use` ids were found without `tool_result` blocks", "lost its tool_result"],
            ),
            "thinking blocks dropped": ((clear_and_drop_thinking,), ["an assistant turn"]),
            "a stub that says nothing": ((clear_with_a_vague_stub,), ["how to get it again"]),
            "the newest cleared too": ((clear_everything,), ["one of the newest"]),
            "a cleared copy returned": ((clear_into_a_copy,), ["returned a new list", "in place"]),
            "a stub whose content is a dict": (
                (clear_with_a_dict,),
                ["Input should be a valid list", "a stub the API cannot read"],
            ),
        },
    )


def clear_with_text_blocks(messages, keep=2):
    """Right another way: a stub as a list of text blocks, and short results left alone."""
    calls = _calls(messages)
    for i, j in _old_places(messages, keep):
        blocks = content_blocks(messages[i])
        block = blocks[j]
        if len(str(block.get("content"))) < 200:
            continue
        call = calls[block["tool_use_id"]]
        words = f"Removed. To see it again: {call.name} with {call.input}"
        blocks[j] = {
            "type": "tool_result",
            "tool_use_id": block["tool_use_id"],
            "content": [{"type": "text", "text": words}],
            **({"is_error": True} if block.get("is_error") else {}),
        }
        messages[i] = {**messages[i], "content": blocks}


def clear_the_dicts_themselves(messages, keep=2):
    """Changes each result block's dict itself: every list holding that message sees it."""
    calls = _calls(messages)
    for i, j in _old_places(messages, keep):
        block = content_blocks(messages[i])[j]
        block["content"] = _stub(calls[block["tool_use_id"]])


def test_clear_results_right_solutions_pass(capsys):
    assert_passes(check_clear_results, capsys, clear_right)
    assert_passes(check_clear_results, capsys, clear_with_text_blocks)


def clear_on_a_shallow_copy_of_each_message(messages, keep=2):
    """Right another way: a new message dict per cleared message, its blocks copied one by one."""
    calls = _calls(messages)
    for i, j in _old_places(messages, keep):
        message = dict(messages[i])
        message["content"] = [dict(b) for b in message["content"]]
        message["content"][j]["content"] = _stub(calls[message["content"][j]["tool_use_id"]])
        messages[i] = message


def test_clear_results_right_new_messages_pass(capsys):
    assert_passes(check_clear_results, capsys, clear_on_a_shallow_copy_of_each_message)


def test_a_clear_that_edits_the_callers_messages_fails():
    """The caller's history shares its message objects with `messages` (list(history) does)."""
    text = failure_of(check_clear_results, clear_the_dicts_themselves)
    assert "edited the messages themselves" in text and "list(history)" in text, text


# -- 2. choose_cut ----------------------------------------------------------------------------


def _starts(messages):
    return [i for i, m in enumerate(messages) if read_field(m, "role") == "assistant"]


def cut_right(messages, keep_turns=2):
    starts = _starts(messages)
    return starts[-keep_turns] if len(starts) > keep_turns else None


def cut_one_late(messages, keep_turns=2):
    cut = cut_right(messages, keep_turns)
    return None if cut is None else cut + 1


def cut_into_the_kept_turns(messages, keep_turns=2):
    """keep_turns forgotten: only the last turn is kept."""
    return cut_right(messages, 1)


def cut_a_turn_too_early(messages, keep_turns=2):
    starts = _starts(messages)
    return starts[-keep_turns - 1] if len(starts) > keep_turns else None


def cut_even_when_short(messages, keep_turns=2):
    return cut_right(messages, keep_turns) or 1


def cut_only_at_tool_calls(messages, keep_turns=2):
    """Counts only the turns that call a tool: a history whose last turns are text has none."""
    starts = [
        i
        for i in _starts(messages)
        if any(read_field(b, "type") == "tool_use" for b in content_blocks(messages[i]))
    ]
    return starts[-keep_turns] if len(starts) > keep_turns else None


def test_choose_cut_mistakes_each_fail_their_own_way():
    assert_each_fails_its_own_way(
        check_choose_cut,
        {
            "a cut that orphans a tool_result": (
                (cut_one_late,),
                ["unexpected `tool_use_id` found in `tool_result` blocks", "orphan tool_result"],
            ),
            "keep_turns ignored": ((cut_into_the_kept_turns,), ["cuts into the last 2 turns"]),
            "a cut that keeps too much": ((cut_a_turn_too_early,), ["keeps more than"]),
            "nothing to summarise": ((cut_even_when_short,), ["return None"]),
            "None with turns to summarise": (
                (cut_only_at_tool_calls,),
                ["returned None", "there is something to summarise"],
            ),
        },
    )


def cut_at_the_persons_words(messages, keep_turns=2):
    """Right another way: when the person spoke just before the turn, cut before their words."""
    cut = cut_right(messages, keep_turns)
    if cut is None:
        return None
    before = content_blocks(messages[cut - 1])
    if not any(read_field(b, "type") == "tool_result" for b in before):
        return cut - 1
    return cut


def cut_by_counting(messages, keep_turns=2):
    """Right another way: a history before a call alternates and ends with the person's side."""
    cut = len(messages) - 2 * keep_turns
    return cut if cut > 1 else None


def test_choose_cut_right_solutions_pass(capsys):
    assert_passes(check_choose_cut, capsys, cut_right)
    assert_passes(check_choose_cut, capsys, cut_at_the_persons_words)
    assert_passes(check_choose_cut, capsys, cut_by_counting)


# -- 3. save and resume -----------------------------------------------------------------------


def _plain(block, drop=()):
    data = block if isinstance(block, dict) else block.model_dump(mode="json", exclude_none=True)
    return {k: v for k, v in data.items() if k not in drop}


def _params(messages, drop=()):
    return [
        {
            "role": m["role"],
            "content": m["content"]
            if isinstance(m["content"], str)
            else [_plain(b, drop) for b in m["content"]],
        }
        for m in messages
    ]


def save_right(path: Path, messages):
    path.write_text(json.dumps(_params(messages)), encoding="utf-8")


def resume_right(path: Path):
    messages = json.loads(path.read_text(encoding="utf-8"))
    unsigned = [
        b
        for m in messages
        for b in content_blocks(m)
        if b.get("type") == "thinking"
        if not b.get("signature")
    ]
    if unsigned:
        raise ValueError("a thinking block without its signature")
    if problems := pairing_problems(messages):
        raise ValueError(problems[0])
    return messages


def save_without_signatures(path: Path, messages):
    path.write_text(json.dumps(_params(messages, drop=("signature",))), encoding="utf-8")


def resume_anything(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def resume_without_thinking(path: Path):
    messages = resume_right(path)
    return [
        {**m, "content": [b for b in content_blocks(m) if b.get("type") != "thinking"]}
        for m in messages
    ]


def save_as_repr(path: Path, messages):
    path.write_text(repr(messages), encoding="utf-8")


def save_with_default_str(path: Path, messages):
    path.write_text(json.dumps(messages, default=str), encoding="utf-8")


def resume_refusing_everything_unsigned(path: Path):
    """Asks every block for a signature, not only thinking blocks: refuses a good file."""
    messages = json.loads(path.read_text(encoding="utf-8"))
    if any("signature" not in b for m in messages for b in content_blocks(m)):
        raise ValueError("a block without a signature")
    return messages


def resume_wrapped(path: Path):
    return {"messages": resume_right(path)}


def resume_none_when_broken(path: Path):
    try:
        return resume_right(path)
    except ValueError:
        return None


def test_session_mistakes_each_fail_their_own_way():
    assert_each_fails_its_own_way(
        check_sessions,
        {
            "a resumed history missing a thinking signature": (
                (save_without_signatures, resume_right),
                ["thinking.signature: Field required", "missing a thinking signature"],
            ),
            "a broken file resumed anyway": (
                (save_right, resume_anything),
                ["resume accepted a file", "thinking.signature: Field required"],
            ),
            "thinking blocks left out": ((save_right, resume_without_thinking), ["differ"]),
            "not JSON": ((save_as_repr, resume_right), ["did not write a JSON file"]),
            "SDK objects written as strings": (
                (save_with_default_str, resume_right),
                ["SDK objects as strings", "model_dump"],
            ),
            "a good file refused": (
                (save_right, resume_refusing_everything_unsigned),
                ["resume refused the file save had just written", "a block without a signature"],
            ),
            "a wrapper returned": (
                (save_right, resume_wrapped),
                ["returned dict, not a list", "return the messages themselves"],
            ),
            "None for a broken file": (
                (save_right, resume_none_when_broken),
                ["resume returned None", "raise an exception"],
            ),
        },
    )


class BrokenSession(Exception):
    pass


def save_with_settings(path: Path, messages):
    """Right another way: a wrapper object with a format name and the messages."""
    path.write_text(json.dumps({"format": 1, "messages": _params(messages)}), encoding="utf-8")


def resume_with_settings(path: Path):
    data = json.loads(path.read_text(encoding="utf-8"))
    for message in data["messages"]:
        for block in content_blocks(message):
            if block.get("type") == "thinking" and not block.get("signature"):
                raise BrokenSession("a thinking block lost its signature")
    if problems := pairing_problems(data["messages"]):
        raise BrokenSession(problems[0])
    return data["messages"]


def test_session_right_solutions_pass(capsys):
    assert_passes(check_sessions, capsys, save_right, resume_right)
    assert_passes(check_sessions, capsys, save_with_settings, resume_with_settings)


# -- mistakes that passed before (a learner's solutions, written from the exercise text) -------


def clear_into_new_blocks(messages, keep=2):
    """Builds a new result block for each stub: is_error, where it was set, is lost."""
    calls = _calls(messages)
    for i, j in _places(messages)[: len(_places(messages)) - keep]:
        blocks = content_blocks(messages[i])
        call_id = blocks[j]["tool_use_id"]
        blocks[j] = {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": _stub(calls[call_id]),
        }
        messages[i] = {"role": "user", "content": blocks}


def test_a_stub_that_loses_is_error_fails():
    text = failure_of(check_clear_results, clear_into_new_blocks)
    assert "had is_error: True" in text and "lost it" in text, text


def resume_checking_signatures_only(path: Path):
    """Refuses a missing signature, but never runs pairing_problems."""
    messages = json.loads(path.read_text(encoding="utf-8"))
    for message in messages:
        for block in content_blocks(message):
            if block.get("type") == "thinking" and not block.get("signature"):
                raise ValueError("a thinking block has no signature")
    return messages


def test_a_resume_that_skips_the_pairing_check_fails():
    text = failure_of(check_sessions, save_right, resume_checking_signatures_only)
    assert "a tool_result answers no tool_use" in text and "pairing_problems" in text, text


def clear_with_a_negative_slice(messages, keep=2):
    """places[:-keep] is every place but the last `keep`, except for keep=0: then it is none."""
    calls = _calls(messages)
    for i, j in _places(messages)[:-keep]:
        blocks = content_blocks(messages[i])
        blocks[j] = {**blocks[j], "content": _stub(calls[blocks[j]["tool_use_id"]])}
        messages[i] = {"role": "user", "content": blocks}


def test_a_clear_that_keeps_everything_at_keep_0_fails():
    text = failure_of(check_clear_results, clear_with_a_negative_slice)
    assert "keep=0" in text and "was not cleared" in text, text


def learner_clear_with_len_minus_keep(messages, keep=2):
    """rs[:len(rs) - keep]: with keep above the number of results, the end is negative."""
    calls = _calls(messages)
    places = _places(messages)
    for i, j in places[: len(places) - keep]:
        blocks = content_blocks(messages[i])
        blocks[j] = {**blocks[j], "content": _stub(calls[blocks[j]["tool_use_id"]])}
        messages[i] = {"role": "user", "content": blocks}


def test_a_clear_that_clears_when_keep_exceeds_the_results_fails():
    text = failure_of(check_clear_results, learner_clear_with_len_minus_keep)
    assert "keep=9, more than the 7 results" in text and "negative" in text, text


def learner_cut_that_deletes(messages, keep_turns=2):
    idx = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
    if len(idx) <= keep_turns:
        return None
    cut = idx[-keep_turns]
    del messages[:cut]
    return cut


def test_a_cut_that_edits_the_callers_history_fails():
    text = failure_of(check_choose_cut, learner_cut_that_deletes)
    assert "changed the history it was given" in text and "no del" in text, text


# -- save and resume: a learner's solutions that passed before -----------------------------------


def _learner_save(change=lambda block: block, keep=slice(None), **dumps):
    def save(path, messages):
        def plain(b):
            d = b if isinstance(b, dict) else b.model_dump(mode="json", exclude_none=True)
            return change(dict(d))

        data = [
            {
                "role": m["role"],
                "content": m["content"]
                if isinstance(m["content"], str)
                else [plain(b) for b in m["content"]],
            }
            for m in messages
        ][keep]
        encoding = dumps.pop("encoding", "utf-8")
        Path(path).write_text(json.dumps(data, **dumps), encoding=encoding, errors="replace")

    return save


def _of_type(kind, change):
    return lambda d: change(d) if d.get("type") == kind else d


def _learner_resume(checked=slice(None)):
    def resume(path):
        ms = json.loads(Path(path).read_text(encoding="utf-8"))
        for m in ms[checked]:
            for b in [] if isinstance(m["content"], str) else m["content"]:
                if b.get("type") == "thinking" and not b.get("signature"):
                    raise ValueError("a thinking block has no signature")
        if p := pairing_problems(ms):
            raise ValueError(p)
        return ms

    return resume


def _strip_texts(m):
    return {**m, "content": m["content"].strip()} if isinstance(m["content"], str) else m


def _save_stripping_the_persons_words(path, messages):
    _learner_save()(path, [_strip_texts(m) for m in messages])


LEARNER_SESSIONS = {
    "tool inputs dropped": (
        _learner_save(_of_type("tool_use", lambda d: {**d, "input": {}})),
        "a tool_use block: its input is {}",
    ),
    "results emptied": (
        _learner_save(_of_type("tool_result", lambda d: {**d, "content": "(not saved)"})),
        "a tool_result block: its content is [{'type': 'text', 'text': '(not saved)'}]",
    ),
    "texts cut to 10 characters": (
        _learner_save(_of_type("text", lambda d: {**d, "text": d["text"][:10]})),
        "a text block: its text is 'Before I s'",
    ),
    "the first two messages left out": (
        _learner_save(keep=slice(2, None)),
        "it has 15 messages, but 17 were saved; the first that differs is messages[0], the "
        "person's words",
    ),
    "the person's words stripped": (
        _save_stripping_the_persons_words,
        "messages[2].content[0], a text block: its text is 'Write the report to",
    ),
    "thinking texts stripped": (
        _learner_save(_of_type("thinking", lambda d: {**d, "thinking": d["thinking"].strip()})),
        "save changed the text of 7 of the 7 thinking blocks",
    ),
    "a space after each thought": (
        _learner_save(_of_type("thinking", lambda d: {**d, "thinking": d["thinking"] + " "})),
        "save changed the text of 7 of the 7 thinking blocks",
    ),
    "signatures cut to 20 characters": (
        _learner_save(_of_type("thinking", lambda d: {**d, "signature": d["signature"][:20]})),
        "save changed 7 of the 7 thinking signatures",
    ),
    "written as latin-1": (
        _learner_save(ensure_ascii=False, encoding="latin-1"),
        "but it is not UTF-8 text",
    ),
}


@pytest.mark.parametrize("label", LEARNER_SESSIONS)
def test_a_save_that_changes_the_history_fails_naming_what_changed(label):
    save, named = LEARNER_SESSIONS[label]
    text = failure_of(check_sessions, save, _learner_resume())
    assert named in text, text


def test_a_changed_signature_is_told_from_a_missing_one_and_from_changed_text():
    missing = failure_of(check_sessions, save_without_signatures, resume_right)
    cut = failure_of(
        check_sessions, LEARNER_SESSIONS["signatures cut to 20 characters"][0], resume_right
    )
    stripped = failure_of(
        check_sessions, LEARNER_SESSIONS["thinking texts stripped"][0], resume_right
    )
    assert "lost 7 of the 7 thinking signatures" in missing and "Field required" in missing
    # the signature is still there: the API says it is invalid, not that a field is missing
    assert "Invalid `signature` in `thinking` block" in cut and "Field required" not in cut
    assert "signature seals that text" in stripped and "signatures" not in stripped.split(";")[0]


def test_a_resume_that_checks_the_first_messages_only_fails():
    text = failure_of(check_sessions, save_right, _learner_resume(checked=slice(None, 4)))
    assert "the 2nd of its 7 thinking blocks lost its signature" in text, text
    assert "messages.5.content.0.thinking.signature: Field required" in text, text


def test_the_sessions_data_is_not_all_ascii_and_its_thoughts_have_surrounding_whitespace():
    from course_helpers.exercise_checks.context_history import session_history

    history = session_history()
    thoughts = [
        read_field(b, "thinking")
        for m in history
        for b in content_blocks(m)
        if read_field(b, "type") == "thinking"
    ]
    assert thoughts and all(t != t.strip() and not t.isascii() for t in thoughts)
    assert history[2]["content"] != history[2]["content"].strip()
    assert not history[2]["content"].isascii()


# -- refusals that do not say what is wrong, an empty signature, a save that edits the caller ----


def resume_saying_bad_file(path: Path):
    """Refuses the right files, but with a message that names no problem."""
    try:
        return resume_right(path)
    except ValueError:
        raise ValueError("bad file") from None


def resume_looking_up_the_signature(path: Path):
    """b["signature"] raises KeyError('signature'): a crash, not a refusal."""
    messages = json.loads(path.read_text(encoding="utf-8"))
    for m in messages:
        for b in content_blocks(m):
            if b.get("type") == "thinking":
                b["signature"]  # noqa: B018
    if problems := pairing_problems(messages):
        raise ValueError(problems[0])
    return messages


def resume_testing_only_the_key(path: Path):
    """'signature' not in b: an empty signature passes, and the API refuses it."""
    messages = json.loads(path.read_text(encoding="utf-8"))
    for m in messages:
        for b in content_blocks(m):
            if b.get("type") == "thinking" and "signature" not in b:
                raise ValueError("a thinking block without its signature")
    if problems := pairing_problems(messages):
        raise ValueError(problems[0])
    return messages


def save_converting_the_callers_blocks(path: Path, messages):
    """Turns the caller's SDK blocks into dicts in place, then writes them."""
    for m in messages:
        if not isinstance(m["content"], str):
            m["content"] = [_plain(b, ()) for b in m["content"]]
    path.write_text(json.dumps(messages, ensure_ascii=False), encoding="utf-8")


def test_a_refusal_that_does_not_say_what_is_wrong_fails():
    text = failure_of(check_sessions, save_right, resume_saying_bad_file)
    assert "does not say what is wrong" in text and "'bad file'" in text, text


def test_a_keyerror_from_the_learners_own_lookup_fails():
    text = failure_of(check_sessions, save_right, resume_looking_up_the_signature)
    assert "KeyError" in text and "your own code" in text and "block.get" in text, text


def test_a_resume_that_accepts_an_empty_signature_fails():
    text = failure_of(check_sessions, save_right, resume_testing_only_the_key)
    assert "empty signature" in text, text
    assert "Invalid `signature` in `thinking` block" in text, text


def test_a_save_that_edits_the_callers_messages_fails():
    text = failure_of(check_sessions, save_converting_the_callers_blocks, resume_right)
    assert "save changed the history it was given" in text, text


def cut_a_turn_too_early_when_keeping_one(messages, keep_turns=2):
    return (
        cut_a_turn_too_early(messages, keep_turns)
        if keep_turns == 1
        else cut_right(messages, keep_turns)
    )


def test_a_cut_hint_says_1st_not_1th():
    text = failure_of(check_choose_cut, cut_a_turn_too_early_when_keeping_one)
    assert "keeps more than the last 1 turns" in text, text
    assert "the 1st assistant turn from the end" in text and "1th" not in text, text
