"""What the offline course model costs on top of the SDK itself.

    python benchmarks/offline_overhead.py [--samples 300]

Times `client.messages.create(...)` for a weather tool request (the answer holds two tool
calls) through the real SDK to the course model (in-process transport), against the same SDK
call to a bare `httpx2.MockTransport` that returns the very bytes the model returned,
precomputed. Both clients are warmed up, and samples alternate so that machine noise hits both
sides alike. The last line is the ratio of the medians.
"""

from __future__ import annotations

import argparse
import statistics
import time

import anthropic
import httpx2

from course_helpers.offline import CourseModelApp

MODEL = "claude-sonnet-5-5"
TARGET = 1.5
REQUEST = {
    "model": MODEL,
    "max_tokens": 1024,
    "tools": [
        {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "input_schema": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        }
    ],
    "messages": [{"role": "user", "content": "What's the weather in Paris and Tokyo?"}],
}


def client_for(handler) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        api_key="offline-benchmark-key",
        base_url="http://course-model.local",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        max_retries=0,
    )


def canned_handler(app: CourseModelApp):
    """A transport that answers every request with the bytes the course model gave once."""
    seen: list[httpx2.Request] = []

    def record(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return app.handle(request)

    message = client_for(record).messages.create(**REQUEST)
    calls = [b for b in message.content if b.type == "tool_use"]
    assert message.stop_reason == "tool_use" and len(calls) == 2, message
    reply = app.dispatch("POST", "/v1/messages", dict(seen[0].headers), seen[0].content)
    body, headers = reply.body, dict(reply.headers)

    def canned(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=headers, content=body)

    return canned, body


def timed(client: anthropic.Anthropic) -> float:
    started = time.perf_counter()
    client.messages.create(**REQUEST)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=300, help="samples per side")
    parser.add_argument("--warmup", type=int, default=30, help="warm-up calls per side")
    args = parser.parse_args(argv)

    app = CourseModelApp()
    canned, body = canned_handler(app)
    offline, bare = client_for(app.handle), client_for(canned)
    assert (
        offline.messages.create(**REQUEST).model_dump()
        == bare.messages.create(**REQUEST).model_dump()
    ), "the canned reply must be the model's own"

    for _ in range(args.warmup):
        timed(offline)
        timed(bare)
    offline_times, canned_times = [], []
    for _ in range(args.samples):
        offline_times.append(timed(offline))
        canned_times.append(timed(bare))

    offline_ms = statistics.median(offline_times) * 1000
    canned_ms = statistics.median(canned_times) * 1000
    ratio = offline_ms / canned_ms
    print(f"response: {len(body)} bytes, {args.samples} samples each, interleaved")
    print(f"offline course model median: {offline_ms:.3f} ms")
    print(f"canned MockTransport median: {canned_ms:.3f} ms")
    print(f"offline/canned median ratio: {ratio:.2f} (target <= {TARGET})")
    return ratio


if __name__ == "__main__":
    main()
