"""truncate() and HeadTail: bounded output, honest markers, one answer in one go or in pieces."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from course_helpers.plumbing.truncate import HeadTail, cut_marker, truncate

MARKER = re.compile(r"\n\[\.\.\. ([\d,]+) characters cut from the middle \.\.\.\]\n")


def cut_count(text: str) -> int:
    found = MARKER.findall(text)
    assert len(found) == 1, text
    return int(found[0].replace(",", ""))


def test_short_text_is_returned_unchanged():
    assert truncate("hello", 10) == "hello"
    assert truncate("x" * 10, 10) == "x" * 10
    assert truncate("", 0) == ""


def test_long_text_keeps_head_and_tail_and_says_how_much_was_cut():
    text = "".join(f"line {n}\n" for n in range(5000))
    out = truncate(text, 100)
    assert out.startswith(text[:50])
    assert out.endswith(text[-50:])
    assert "[... 48,790 characters cut from the middle ...]" in out
    assert cut_count(out) == len(text) - 100


def test_marker_uses_thousands_separators():
    assert cut_marker(12345) == "\n[... 12,345 characters cut from the middle ...]\n"


@pytest.mark.parametrize(
    ("head", "kept_head", "kept_tail"), [(0.0, 0, 10), (1.0, 10, 0), (0.3, 3, 7)]
)
def test_head_share_decides_the_split(head, kept_head, kept_tail):
    text = "a" * 50 + "b" * 50
    out = truncate(text, 10, head=head)
    start, end = MARKER.split(out)[0], MARKER.split(out)[-1]
    assert (start, end) == ("a" * kept_head, "b" * kept_tail)


def test_limit_zero_keeps_only_the_marker():
    assert truncate("abc", 0) == cut_marker(3)


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        ((None,), {}, TypeError),
        ((b"bytes",), {}, TypeError),
        (("text", -1), {}, ValueError),
        (("text", 2.5), {}, TypeError),
        (("text", True), {}, TypeError),
        (("text", 10), {"head": 1.5}, ValueError),
        (("text", 10), {"head": -0.1}, ValueError),
        (("text", 10), {"head": "half"}, TypeError),
    ],
)
def test_bad_arguments_fail_clearly(args, kwargs, error):
    with pytest.raises(error):
        truncate(*args, **kwargs)


@given(st.text(), st.integers(0, 300), st.floats(0, 1))
def test_output_never_exceeds_limit_plus_marker(text, limit, head):
    out = truncate(text, limit, head=head)
    if len(text) <= limit:
        assert out == text
    else:
        assert len(out) == limit + len(cut_marker(len(text) - limit))
        assert cut_count(out) == len(text) - limit


@given(st.text(min_size=1), st.integers(0, 50), st.lists(st.integers(0, 200), max_size=8))
def test_streaming_in_pieces_gives_the_same_result(text, limit, cuts):
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    kept = HeadTail(limit)
    for start, end in zip(bounds, bounds[1:], strict=False):
        kept.add(text[start:end])
    assert kept.text() == truncate(text, limit)


def test_streaming_memory_stays_bounded():
    kept = HeadTail(100)
    for _ in range(10_000):
        kept.add("z" * 1000)
    assert kept.cut == 10_000_000 - 100
    assert len(kept.text()) == 100 + len(cut_marker(kept.cut))
    assert kept.head_room + kept.tail_room == 100


def test_streaming_refuses_bytes():
    with pytest.raises(TypeError, match="str"):
        HeadTail(10).add(b"raw")
