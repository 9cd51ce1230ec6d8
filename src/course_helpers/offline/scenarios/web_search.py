"""Course machinery (offline course model): the `web_search` server tool, answering from a small
local corpus, for notebook 06.

Server tools run on the API's side: the response already holds the `server_tool_use` block and
its `web_search_tool_result`, and the program sends no tool_result. A question that needs two
searches pauses after the first (`stop_reason: pause_turn`); the program sends the response back
as it is, with no new user message, and the model carries on.

It searches only when the server tool is offered (a client's own tool named `web_search` is
not it) and the person asks for a search or asks about something the corpus covers.
"""

from __future__ import annotations

import base64
import json
import re
from functools import cache
from importlib import resources

from course_helpers.offline.conversation import Conversation, blocks_of
from course_helpers.offline.policy import Reply, scenario, text


@cache
def corpus() -> list[dict]:
    data = resources.files("course_helpers.offline").joinpath("data/search_corpus.json")
    return json.loads(data.read_text(encoding="utf-8"))


def search(query: str, limit: int = 3) -> list[dict]:
    words = set(re.findall(r"[a-z_]+", query.lower()))
    ranked = sorted(corpus(), key=lambda page: -len(words & set(page["keywords"])))
    return [p for p in ranked[:limit] if words & set(p["keywords"])]


def _result_block(query: str) -> dict:
    pages = search(query)
    return {
        "type": "web_search_tool_result",
        "content": [
            {
                "type": "web_search_result",
                "url": p["url"],
                "title": p["title"],
                # Real results carry opaque encrypted content; ours is just encoded.
                "encrypted_content": base64.b64encode(p["summary"].encode()).decode(),
                "page_age": p["page_age"],
            }
            for p in pages
        ],
    }


def _queries(question: str) -> list[str]:
    """One search per part of a question joined with 'and', at most three."""
    question = re.sub(
        r"^\s*(?:please\s+)?search the web(?: for)?\s*:?\s*", "", question, flags=re.I
    )
    parts = [p.strip(" ?.") for p in re.split(r"\band\b|;", question) if p.strip(" ?.")]
    return parts[:3] or [question]


_ASKS_TO_SEARCH = re.compile(
    r"\b(?:search|look (?:it |that |this )?up|google|on the (?:web|internet)|online|latest|news)\b",
    re.IGNORECASE,
)


def _offered(conv: Conversation) -> bool:
    """The server tool itself (`"type": "web_search_<date>"`). A client's own tool that happens
    to be named `web_search` has an `input_schema` and is the client's to run."""
    return any(
        tool.get("name") == "web_search" and str(tool.get("type") or "").startswith("web_search_")
        for tool in conv.tools
    )


def _needs_a_search(question: str, queries: list[str]) -> bool:
    """Whether a model would search: the person asks it to, or asks about something the
    corpus covers. "Hi" and "What is 2+2?" are answered without a search."""
    return bool(_ASKS_TO_SEARCH.search(question)) or any(search(q) for q in queries)


def _searched(conv: Conversation) -> list[str]:
    return [
        b["input"].get("query", "")
        for m in conv.messages
        if m.get("role") == "assistant"
        for b in blocks_of(m)
        if b.get("type") == "server_tool_use"
    ]


@scenario(
    "web_search",
    "Search the web with the web_search server tool: 'Search the web: what is the agent loop "
    "and what stop reasons exist?' (pauses with pause_turn between searches)",
    priority=40,
)
def web_search(conv: Conversation) -> Reply | None:
    if not _offered(conv) or conv.ends_with_results:
        return None
    question = conv.person_text
    if not question:
        return None
    queries, done = _queries(question), _searched(conv)
    if not done and not _needs_a_search(question, queries):
        return None
    todo = [q for q in queries if q not in done]
    blocks: list[dict] = []
    if todo:
        query = todo[0]
        blocks = [
            text(f"Searching for: {query}."),
            {"type": "server_tool_use", "name": "web_search", "input": {"query": query}},
            _result_block(query),
        ]
        if len(todo) > 1:
            # More searches to go: this long turn pauses here and resumes when sent back.
            return Reply(blocks, stop_reason="pause_turn")
    return Reply([*blocks, text(_answer(queries))])


def _answer(queries: list[str]) -> str:
    found = [p for q in queries for p in search(q)[:1]]
    if not found:
        return "I searched, but the course's small search corpus has nothing on that."
    lines = [f"- {p['summary']} ({p['title']}, {p['url']})" for p in found]
    return "Here is what I found:\n" + "\n".join(lines)
