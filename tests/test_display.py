"""Tests for course_helpers.display: the transcript shown from notebook 01 on."""

import re

import pytest
from anthropic.types import (
    Message,
    ServerToolUseBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
    WebSearchToolResultBlock,
)

from course_helpers.display import (
    Transcript,
    normalize,
    render_html,
    render_text,
    show,
    show_message,
    to_plain,
)

MODEL = "claude-sonnet-5-5"


def message(content, stop_reason="end_turn", usage=None, id_="msg_01"):
    """An SDK Message built the way the SDK builds one from the API's JSON."""
    return Message.model_validate(
        {
            "id": id_,
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": content,
            "stop_reason": stop_reason,
            "usage": usage or {"input_tokens": 10, "output_tokens": 5},
        }
    )


CALL = {
    "type": "tool_use",
    "id": "toolu_01Paris",
    "name": "get_weather",
    "input": {"city": "Paris"},
}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_01Paris", "content": "18°C, light rain"}
WEATHER = [
    {"role": "user", "content": "What's the weather in Paris?"},
    {"role": "assistant", "content": [CALL]},
    {"role": "user", "content": [RESULT]},
]
FIRST = message([CALL], "tool_use", {"input_tokens": 412, "output_tokens": 38})
FINAL = message(
    [{"type": "text", "text": "It is 18 °C with light rain in Paris."}],
    "end_turn",
    {"input_tokens": 470, "output_tokens": 22},
    id_="msg_02",
)


def test_text_plain_of_a_small_conversation_is_exact():
    text = Transcript(WEATHER, response=FINAL, usages=[FIRST]).text()
    assert text == "\n".join(
        [
            "── user " + "─" * 64,
            "What's the weather in Paris?",
            "── assistant " + "─" * 32 + " tool_use · in 412 · out 38",
            '[tool_use #1 get_weather] {"city": "Paris"}',
            "── user " + "─" * 64,
            "[tool_result #1] 18°C, light rain",
            "── assistant " + "─" * 32 + " end_turn · in 470 · out 22",
            "It is 18 °C with light rain in Paris.",
        ]
    )


def test_repr_and_pretty_are_the_text():
    transcript = Transcript(WEATHER, response=FINAL)
    assert repr(transcript) == str(transcript) == transcript.text()

    class Printer:
        def text(self, value):
            self.value = value

    printer = Printer()
    transcript._repr_pretty_(printer, False)
    assert printer.value == transcript.text()


def test_ids_only_in_html():
    transcript = Transcript(WEATHER)
    assert "toolu_01Paris" not in transcript.text()
    assert 'title="toolu_01Paris"' in transcript._repr_html_()


def test_usage_with_cache_counts_and_usage_objects():
    usage = Usage(
        input_tokens=5, output_tokens=6, cache_read_input_tokens=7, cache_creation_input_tokens=0
    )
    reply = message([{"type": "text", "text": "x"}])
    text = render_text([{"role": "user", "content": "hi"}], response=reply, usages=[usage])
    # the response's own usage wins over usages[0]
    assert "end_turn · in 10 · out 5" in text
    text = render_text([{"role": "assistant", "content": "x"}], usages=[usage])
    assert "in 5 · out 6 · cache read 7 · cache write 0" in text


def test_sdk_objects_render_like_the_equivalent_dicts():
    sdk = [
        {"role": "user", "content": "Search, then check the weather."},
        {
            "role": "assistant",
            "content": [
                ThinkingBlock(type="thinking", thinking="Search first.", signature="SIG"),
                ServerToolUseBlock(
                    type="server_tool_use", id="srvtoolu_1", name="web_search", input={"query": "q"}
                ),
                WebSearchToolResultBlock.model_validate(
                    {
                        "type": "web_search_tool_result",
                        "tool_use_id": "srvtoolu_1",
                        "content": [
                            {
                                "type": "web_search_result",
                                "url": "https://example.org/a",
                                "title": "A",
                                "encrypted_content": "enc",
                            }
                        ],
                    }
                ),
                TextBlock(type="text", text="Now the weather."),
                ToolUseBlock(**CALL),
            ],
        },
        {"role": "user", "content": [RESULT]},
    ]
    dicts = to_plain(sdk)
    assert dicts[1]["content"][0] == {
        "type": "thinking",
        "thinking": "Search first.",
        "signature": "SIG",
    }
    for render in (render_text, render_html):
        assert render(sdk, response=FINAL) == render(dicts, response=to_plain(FINAL))
    # a whole Message in the list shows its stop reason and usage
    assert "tool_use · in 412 · out 38" in render_text([FIRST])


def test_response_already_appended_is_not_shown_twice():
    history = [*WEATHER, {"role": "assistant", "content": FINAL.content}]
    text = render_text(history, response=FINAL)
    assert text.count("It is 18 °C") == 1
    assert text.count("── assistant") == 2
    assert "end_turn · in 470 · out 22" in text


def test_show_message_renders_one_response(capsys):
    show_message(FIRST)
    out = capsys.readouterr().out
    assert "tool_use · in 412 · out 38" in out
    assert '[tool_use #1 get_weather] {"city": "Paris"}' in out


def test_show_displays_immediately_and_returns_none(capsys):
    assert show(WEATHER, title="Weather") is None
    out = capsys.readouterr().out
    assert out.startswith("══ Weather ═")
    assert "[tool_result #1] 18°C, light rain" in out


def test_html_escapes_message_text():
    evil = "<script>alert('x')</script> & <img src=x onerror=alert(1)>"
    messages = [
        {"role": "user", "content": evil},
        {"role": "assistant", "content": [{**CALL, "name": evil, "input": {"q": evil}}]},
        {"role": "user", "content": [{**RESULT, "content": evil}]},
    ]
    page = render_html(messages, title=evil)
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp;" in page


def test_html_is_self_contained_and_wraps():
    page = Transcript(WEATHER, response=FINAL)._repr_html_()
    assert "<style" not in page and "<script" not in page and "<link" not in page
    box = re.match(r'<div class="course-transcript" style="([^"]*)"', page).group(1)
    assert "max-width:100%" in box and "color:#" in box and "background:#" in box
    assert "white-space:pre-wrap" in page and "overflow-wrap:anywhere" in page
    assert "max-height:" in page and "overflow:auto" in page  # the JSON block scrolls


def test_is_error_is_highlighted():
    failed = [*WEATHER[:2], {"role": "user", "content": [{**RESULT, "is_error": True}]}]
    assert "[tool_result #1 ERROR] 18°C, light rain" in render_text(failed)
    page = render_html(failed)
    assert "ERROR</span>" in page and "#cf222e" in page and "#ffebe9" in page
    assert "ERROR" not in render_html(WEATHER)


def test_labels_link_parallel_calls_and_their_results():
    calls = [
        {"type": "text", "text": "Two cities."},
        CALL,
        {
            "type": "tool_use",
            "id": "toolu_02Rome",
            "name": "get_weather",
            "input": {"city": "Rome"},
        },
    ]
    results = [
        {"type": "tool_result", "tool_use_id": "toolu_02Rome", "content": "25°C"},
        RESULT,
    ]
    messages = [{"role": "assistant", "content": calls}, {"role": "user", "content": results}]
    text = render_text(messages)
    assert '[tool_use #2 get_weather] {"city": "Rome"}' in text
    assert "[tool_result #2] 25°C" in text
    assert "[tool_result #1] 18°C, light rain" in text
    page = render_html(messages)
    anchors = re.findall(r'id="(tr-[0-9a-f]{8}-call-\d)"', page)
    assert [a[-1] for a in anchors] == ["1", "2"]
    for anchor in anchors:
        assert f'href="#{anchor}"' in page


def test_result_without_matching_call_is_flagged():
    orphan = [
        {"role": "assistant", "content": [CALL]},
        {"role": "user", "content": [{**RESULT, "tool_use_id": "toolu_typo"}]},
    ]
    text = render_text(orphan)
    assert "[tool_result (no matching tool_use)] 18°C, light rain" in text
    page = render_html(orphan)
    assert "(no matching tool_use)" in page and 'href="#' not in page
    # a result before its call is an orphan too: the call must come earlier
    backwards = [orphan[1] | {"content": [RESULT]}, orphan[0]]
    assert "(no matching tool_use)" in render_text(backwards)


def test_output_is_deterministic():
    def build():
        return Transcript(
            [*WEATHER, {"role": "user", "content": [object(), b"raw", {"type": "x", "v": {1, 2}}]}],
            response=FINAL,
        )

    first, second = build(), build()
    assert first.text() == second.text()
    assert first._repr_html_() == second._repr_html_()
    for output in (first.text(), first._repr_html_()):
        assert not re.search(r"0x[0-9a-f]{6,}", output)


def test_transcript_is_a_snapshot():
    messages = list(WEATHER)
    transcript = Transcript(messages)
    messages.append({"role": "assistant", "content": "later"})
    assert "later" not in transcript.text()


def test_long_text_is_folded():
    long = "\n".join(f"line {n}" for n in range(1, 51))
    text = render_text([{"role": "user", "content": long}], max_lines=20)
    lines = text.splitlines()
    assert lines[1:21] == [f"line {n}" for n in range(1, 21)]
    assert lines[21] == "… 30 more lines" and len(lines) == 22
    page = render_html([{"role": "user", "content": long}], max_lines=20)
    assert "<details>" in page and "… 30 more lines" in page and "line 50" in page


def test_text_lines_stay_within_100_chars():
    word_soup = " ".join(["word"] * 400)
    messages = [
        {"role": "user", "content": word_soup + "\n" + "x" * 450},
        {
            "role": "assistant",
            "content": [{**CALL, "input": {"path": "a/" * 80, "content": word_soup}}],
        },
        {"role": "user", "content": [{**RESULT, "content": word_soup}]},
    ]
    text = render_text(messages, title="t" * 300)
    assert all(len(line) <= 100 for line in text.splitlines())
    assert '[tool_use #1 get_weather]\n  {\n    "path": "a/a/' in text


def test_thinking_is_collapsed_and_its_signature_hidden():
    content = [{"type": "thinking", "thinking": "step\n" * 10, "signature": "SECRET-SIG"}]
    messages = [{"role": "assistant", "content": content}]
    text = render_text(messages)
    assert "[thinking]\n  step\n  step\n  step\n  … 7 more lines" in text
    page = render_html(messages)
    assert "SECRET-SIG" not in text and "SECRET-SIG" not in page
    assert "<details" in page and "thinking · " in page


def test_web_search_results_list_titles_and_safe_links():
    content = [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": "x"}},
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": [
                {"type": "web_search_result", "title": "Good", "url": "https://ok.example/"},
                {"type": "web_search_result", "title": "Bad", "url": "javascript:alert(1)"},
            ],
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
        },
    ]
    text = render_text([{"role": "assistant", "content": content}])
    assert (
        "[web_search_tool_result #1 web_search] 2 results\n  - Good <https://ok.example/>" in text
    )
    assert "[web_search_tool_result #1 web_search ERROR] max_uses_exceeded" in text
    page = render_html([{"role": "assistant", "content": content}])
    assert 'href="https://ok.example/"' in page and 'href="javascript' not in page


def test_images_and_documents_are_placeholders():
    data = "QUJD" * 2000
    content = [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
        {"type": "document", "title": "Spec", "source": {"type": "url", "url": "https://x/y.pdf"}},
    ]
    text = render_text([{"role": "user", "content": content}])
    assert "[image image/png, base64, 5.9 kB]" in text
    assert "[document Spec, https://x/y.pdf]" in text
    assert data not in text and data not in render_html([{"role": "user", "content": content}])


def test_tool_result_with_block_content():
    result = {**RESULT, "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    text = render_text(
        [{"role": "assistant", "content": [CALL]}, {"role": "user", "content": [result]}]
    )
    assert text.endswith("[tool_result #1]\n  a\n  b")


def test_odd_roles_and_empty_content_get_notes():
    text = render_text(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": []},
            {"role": "user"},
        ]
    )
    assert "[!] the system prompt goes in the `system` parameter" in text
    assert "[!] empty content (allowed only in a final assistant message)" in text
    assert "[!] no 'content' key" in text


def test_refusal_shows_its_category():
    refused = Message.model_validate(
        {
            **to_plain(FINAL),
            "stop_reason": "refusal",
            "stop_details": {"type": "refusal", "category": "cyber", "explanation": None},
        }
    )
    assert "refusal (cyber) · in 470 · out 22" in render_text([], response=refused)


def test_normalize_returns_plain_dicts():
    plain = normalize([{"role": "assistant", "content": FIRST.content}, 7, None])
    assert plain[0] == {"role": "assistant", "content": [CALL]}
    assert plain[1:] == [{"role": None, "content": 7}, {"role": None, "content": None}]
    assert normalize(None) == [] and normalize(FIRST)[0]["stop_reason"] == "tool_use"


class Weird:
    """Something a learner might put in a list by mistake; has a misleading model_dump."""

    def model_dump(self, **kwargs):
        raise RuntimeError("no")


cyclic: list = [{"role": "user", "content": "x"}]
cyclic.append(cyclic)

JUNK = [
    None,
    5,
    "just a string",
    b"bytes",
    Weird(),
    cyclic,
    [None, 3, "s", 4.5, [], {}],
    [{"role": "user", "content": None}],
    [{"role": 3, "content": 4}],
    [{"role": "user", "content": [None, 1, "s", {"type": None}, {"type": "text", "text": 5}]}],
    [{"role": "user", "content": [{"type": "tool_result"}, {"type": "tool_result", "content": 9}]}],
    [{"role": "assistant", "content": [{"type": "tool_use"}, {"type": "tool_use", "id": 5}]}],
    [{"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "n", "input": 3}]}],
    [{"role": "assistant", "content": [{"type": "web_search_tool_result", "content": "?"}]}],
    [{"role": "user", "content": [{"type": "image", "source": "nope"}, {"type": "document"}]}],
    [{"role": "user", "content": [{"type": "unknown_future_block", "tool_use_id": "zz"}]}],
    [{"role": "assistant", "content": [{"type": "thinking"}, {"type": "redacted_thinking"}]}],
    iter([{"role": "user", "content": "from a generator"}]),
]


@pytest.mark.parametrize("junk", JUNK, ids=range(len(JUNK)))
def test_never_raises_on_junk(junk):
    transcript = Transcript(junk, response=junk, usages=junk, title=junk, max_lines=junk)
    for output in (transcript.text(), transcript._repr_html_()):
        assert isinstance(output, str) and output
        assert "could not be rendered" not in output


def test_junk_is_shown_with_a_note():
    text = render_text([5, {"role": "user", "content": [{"type": "mystery", "x": 1}]}])
    assert "[int (not a message; expected {'role': ..., 'content': ...})] 5" in text
    assert '[mystery (block type not shown specially)] {"type": "mystery", "x": 1}' in text
    assert render_text([]) == "(no messages)"


def test_tool_input_with_bidi_override_is_shown_escaped():
    from course_helpers.display import render_html, render_text

    call = {
        "role": "assistant",
        "content": [
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "write_file",
                "input": {"path": "notes\u202etxt.exe", "content": "x"},
            },
        ],
    }
    for shown in (render_text([call]), render_html([call])):
        assert "\u202e" not in shown
        assert "\\u202e" in shown


def test_a_long_role_and_title_are_clipped_with_an_ellipsis():
    text = render_text([{"role": "r" * 40, "content": "hi"}], title="t" * 90)
    lines = text.splitlines()
    assert lines[0].startswith("══ " + "t" * 79 + "… ")
    assert lines[1].startswith("── " + "r" * 29 + "… ")
    assert "[!] role should be 'user' or 'assistant'" in text
    short = render_text([{"role": "r" * 30, "content": "hi"}], title="t" * 80)
    assert "t" * 80 + " " in short and "r" * 30 + " " in short and "…" not in short


def test_every_display_module_says_it_is_course_machinery_and_stays_short():
    import importlib
    import pkgutil
    from pathlib import Path

    import course_helpers.display as package

    names = [package.__name__] + [
        f"{package.__name__}.{info.name}" for info in pkgutil.iter_modules(package.__path__)
    ]
    assert len(names) == 6
    for name in names:
        module = importlib.import_module(name)
        first_line = (module.__doc__ or "").splitlines()[0]
        assert first_line.startswith("Course machinery (display of histories): "), name
        assert len(Path(module.__file__).read_text().splitlines()) <= 400, name
