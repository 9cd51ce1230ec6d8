"""Does a transcript's cost grow with the length of one long line, or stay flat?

A tool result that is one line of 250,000 up to 8,000,000 characters is rendered both ways
(`Transcript.text()` and `.html()`). A line longer than 10,000 characters is cut before it is
wrapped or escaped, so the time and the size of the HTML should stay flat: the ratio to the
smallest case is printed, with the HTML's length.

One run, printed, no assertions: the tests check behaviour, this shows the numbers.
Run with: .venv/bin/python benchmarks/transcript_long_line.py
"""

from __future__ import annotations

import time

from course_helpers.display import Transcript

SIZES = (250_000, 1_000_000, 4_000_000, 8_000_000)


def conversation(result: str) -> list[dict]:
    call = {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "x"}}
    answer = {"type": "tool_result", "tool_use_id": "toolu_1", "content": result}
    return [
        {"role": "user", "content": "read x"},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [answer]},
    ]


def main() -> None:
    Transcript(conversation("warm up")).text()  # the escaping tables are built once
    first = None
    for size in SIZES:
        messages = conversation("x" * size)
        started = time.perf_counter()
        transcript = Transcript(messages)
        html, text = transcript.html(), transcript.text()
        took = time.perf_counter() - started
        first = first or took
        print(
            f"{size:>10,} characters: {took:6.3f} s ({took / first:5.1f}x the smallest), "
            f"HTML {len(html):,} characters, text {len(text):,}"
        )


if __name__ == "__main__":
    main()
