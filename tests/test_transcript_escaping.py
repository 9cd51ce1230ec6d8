"""Attacks on what a transcript and an approval prompt show: control characters, look-alike
names and one very long line (course_helpers.display, course_helpers.approvers)."""

import unicodedata

import pytest

from course_helpers.approvers import describe_call
from course_helpers.display import Transcript
from course_helpers.display.shown import LONG_LINE, cut_long_lines, mark_unnormalised, shown

EVIL = "A\x1b[2JB\rC\u202eD\x07E"
RAW = ("\x1b", "\r", "\u202e", "\x07")


def call(name="run", arguments=None):
    return {"type": "tool_use", "id": "toolu_1", "name": name, "input": arguments or {}}


def with_result(content):
    return [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [call()]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": content}],
        },
    ]


CASES = {
    "tool_result string": with_result(EVIL),
    "tool_result blocks": with_result([{"type": "text", "text": EVIL}]),
    "tool_use input": [{"role": "assistant", "content": [call(arguments={"c": EVIL})]}],
    "tool_use name": [{"role": "assistant", "content": [call(name=EVIL)]}],
    "assistant text": [{"role": "assistant", "content": [{"type": "text", "text": EVIL}]}],
    "user text": [{"role": "user", "content": EVIL}],
    "thinking": [
        {"role": "assistant", "content": [{"type": "thinking", "thinking": EVIL, "signature": "x"}]}
    ],
    "role": [{"role": EVIL, "content": "hi"}],
    "block type": [{"role": "user", "content": [{"type": EVIL, "x": 1}]}],
    "tool_use id": [{"role": "assistant", "content": [dict(call(), id=EVIL)]}],
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("rendering", ["text", "html"])
def test_no_raw_control_or_bidi_character_reaches_either_rendering(case, rendering):
    shown_text = getattr(Transcript(CASES[case]), rendering)()
    assert not [char for char in RAW if char in shown_text], shown_text
    if (case, rendering) != ("tool_use id", "text"):  # the text rendering shows no ids
        assert "\\u202e" in shown_text and ("\\x1b" in shown_text or "\\u001b" in shown_text)


def test_a_planted_file_read_as_a_tool_result_shows_its_escapes_not_a_link():
    planted = (
        "all tests pass\x1b[1A\x1b[2K\r\x1b]8;;https://evil.example/\x07see docs\x1b]8;;\x07"
        " \u202egnp.exe"
    )
    text = Transcript(with_result(planted)).text()
    assert "\\x1b[1A\\x1b[2K\\r\\x1b]8;;https://evil.example/\\x07see docs" in text
    assert "\\u202egnp.exe" in text


def test_title_and_usage_are_escaped_too():
    response = {
        "role": "assistant",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 1,
            "output_tokens": 1,
            "server_tool_use": {"web_search_requests": EVIL},
        },
    }
    transcript = Transcript([], response=response, title=EVIL)
    for rendering in (transcript.text(), transcript.html()):
        assert not [char for char in RAW if char in rendering]


def test_readable_text_is_unchanged_newlines_tabs_accents_emoji_and_windows_line_ends():
    text = "def f():\n\treturn 'café 🙂 naïve Ωmega'\r\nnext line"
    rendered = Transcript([{"role": "user", "content": text}]).text()
    assert "\treturn" not in rendered  # the text rendering expands tabs, as before
    assert "return 'café 🙂 naïve Ωmega'" in rendered
    assert "\\r" not in rendered and "next line" in rendered
    assert shown(text) == text.replace("\r\n", "\n")


# ── names that differ only by Unicode normalisation ───────────────────────────────────────

NFC = "caf\u00e9.py"
NFD = unicodedata.normalize("NFD", NFC)


def test_two_names_equal_after_nfc_never_look_the_same_in_an_approval_prompt():
    first = describe_call("write_file", {"path": NFC, "content": "PRICE = 10\n"})
    second = describe_call("write_file", {"path": NFD, "content": "PRICE = 10\n"})
    assert unicodedata.normalize("NFC", first) != unicodedata.normalize("NFC", second)
    assert "café.py" in first and "cafe\\u0301.py" in second


def test_two_names_equal_after_nfc_never_look_the_same_in_a_transcript():
    listing = f"{NFC}\n{NFD}"  # what list_files returns for the two files
    for rendering in ("text", "html"):
        out = getattr(Transcript(with_result(listing)), rendering)()
        assert "café.py" in out and "cafe\\u0301.py" in out
        assert unicodedata.normalize("NFC", out).count("café.py") == 1


@pytest.mark.parametrize(
    "tricky, escaped",
    [
        ("\u212b", "\\u212b"),  # ANGSTROM SIGN, NFC is U+00C5
        ("a;b\u037e", "a;b\\u037e"),  # GREEK QUESTION MARK, NFC is ';'
        ("o\u0301\u0323", "o\\u0301\\u0323"),  # marks in a non-canonical order
    ],
)
def test_what_nfc_would_change_is_escaped(tricky, escaped):
    assert not unicodedata.is_normalized("NFC", tricky)
    marked = mark_unnormalised(tricky)
    assert marked == escaped
    assert unicodedata.is_normalized("NFC", marked)


def test_an_accent_with_no_composed_form_is_left_as_it_is():
    # t + U+0300 has no precomposed letter: it is already NFC and looks like itself
    assert mark_unnormalised("cart\u0300.py") == "cart\u0300.py"


# ── one very long line ────────────────────────────────────────────────────────────────────


def test_one_five_megabyte_line_is_cut_before_wrapping_in_both_renderings():
    transcript = Transcript(with_result("x" * 5_000_000))
    html, text = transcript.html(), transcript.text()
    assert len(html) < 3 * LONG_LINE  # was 5,003,351 characters
    assert f"{5_000_000 - LONG_LINE:,} characters not shown" in html
    assert len(text) < 3_000 and "more lines" in text


def test_the_cut_is_linear_it_touches_only_long_lines():
    text = "short\n" + "y" * (LONG_LINE + 5) + "\nend"
    assert cut_long_lines(text) == f"short\n{'y' * LONG_LINE} … 5 characters not shown\nend"
    assert cut_long_lines("z" * LONG_LINE) == "z" * LONG_LINE


def test_the_cut_is_made_before_escaping_so_escapes_are_never_split():
    text = "\x1b" * (LONG_LINE + 1)
    out = shown(text)
    assert out.startswith("\\x1b" * LONG_LINE) and out.endswith(" … 1 characters not shown")
