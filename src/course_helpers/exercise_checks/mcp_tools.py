"""Checks for notebook 11, Take tools from an MCP server.

Requirements, one per line (each proven both ways in tests/exercise_variants/test_11_mcp.py):

`check_tool_conversion(to_anthropic)`, `to_anthropic(mcp_tool) -> dict`:
- the definition has the tool's `name` and its `input_schema`, the server's schema unchanged
  (`required` and nested properties kept), under the key the API reads (`input_schema`);
- the description is the server's text; a tool without one gets "" or no description;
- nothing else goes in: the API refuses fields it does not know (`annotations`, `title`,
  `output_schema`, `_meta`...).

`check_mcp_run_tool(make_run_tool)`, `make_run_tool(call_tool)` returns `run_tool(call)`, where
`call_tool(name, arguments)` is a tools/call that returns an MCP `CallToolResult` or raises:
- it calls the tool the block names with the block's input, and answers with a `tool_result`
  for the block's id;
- the result's content carries the text of every text block, not the repr of the result;
- `is_error` follows the result's `is_error`;
- a tools/call that raises (a crashed server, a timeout) is an `is_error` result whose text
  keeps the exception's words; `run_tool` never raises.

`check_read_only_query(safe_query)`, `safe_query(db_path, sql) -> str`:
- a SELECT returns its rows as text, and so does a read that starts with WITH;
- DELETE, UPDATE, ATTACH (no new file), PRAGMA writable_schema and a second statement are
  refused with the SDK's `ToolError` (its text reaches the model), and the file is unchanged.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, ImageContent, TextContent, Tool, ToolAnnotations

from course_helpers.exercise_checks.common import (
    NotWrittenYet,
    fail,
    passed,
    run_learner,
    short_repr,
    tool_call_block,
)
from course_helpers.fixtures.shop_db import build_shop_db

ALLOWED_FIELDS = {"name", "description", "input_schema"}


def _sample_tools() -> list[Tool]:
    schema = {
        "type": "object",
        "properties": {
            "sql": {"type": "string", "description": "one SELECT"},
            "options": {"type": "object", "properties": {"limit": {"type": "integer"}}},
        },
        "required": ["sql"],
    }
    return [
        Tool(
            name="query",
            description="Run one read-only SELECT.",
            input_schema=schema,
            title="Query the shop",
            annotations=ToolAnnotations(read_only_hint=True),
            output_schema={"type": "object", "properties": {"rows": {"type": "array"}}},
        ),
        Tool(name="list_tables", input_schema={"type": "object", "properties": {}}),
    ]


def check_tool_conversion(to_anthropic: Callable) -> None:
    """11 · `to_anthropic(mcp_tool)`: an MCP tool as a Messages API tool definition."""
    __tracebackhide__ = True
    for mcp_tool in _sample_tools():
        label = f"to_anthropic({mcp_tool.name!r} tool)"
        definition = run_learner(to_anthropic, mcp_tool, name="to_anthropic")
        if not isinstance(definition, dict):
            fail(
                f"{label} returned a {type(definition).__name__}, not a dict.",
                'return {"name": ..., "description": ..., "input_schema": ...}.',
            )
        extra = sorted(set(definition) - ALLOWED_FIELDS)
        if extra:
            fail(
                f"{label} has fields the Messages API does not accept in a tool: {extra}.",
                "copy only name, description and input_schema; model_dump() copies everything.",
            )
        if definition.get("name") != mcp_tool.name:
            fail(f"{label} has name {short_repr(definition.get('name'))}.", "copy mcp_tool.name.")
        if "input_schema" not in definition:
            fail(
                f"{label} has no input_schema.",
                "the API reads the schema from the key input_schema (MCP's inputSchema, the "
                "SDK's mcp_tool.input_schema).",
            )
        if definition["input_schema"] != mcp_tool.input_schema:
            fail(
                f"{label} changed the server's schema: {short_repr(definition['input_schema'])}.",
                "pass mcp_tool.input_schema on as it is: the server checks calls against it.",
            )
        description = definition.get("description", "")
        if description != (mcp_tool.description or ""):
            fail(
                f"{label} has description {short_repr(description)}, not the server's.",
                'use mcp_tool.description, or "" when the server gave none (it may be None).',
            )
    passed("check_tool_conversion")


def _results() -> dict[str, Any]:
    return {
        "query": CallToolResult(
            content=[
                TextContent(type="text", text="name | spent"),
                TextContent(type="text", text="Grace | 27540"),
            ]
        ),
        "refused": CallToolResult(
            content=[
                TextContent(type="text", text="The database refused this SQL: not authorized")
            ],
            is_error=True,
        ),
        "chart": CallToolResult(
            content=[
                TextContent(type="text", text="a chart of the orders"),
                ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
            ]
        ),
    }


# What the Messages API accepts in a tool_result's content blocks (anything else is a 400).
BLOCK_FIELDS = {
    "text": {"type", "text", "cache_control", "citations"},
    "image": {"type", "source", "cache_control"},
}


def _bad_block(content: Any) -> str | None:
    """Why a tool_result's content would be refused by the API, or None."""
    if isinstance(content, str):
        return None
    if not isinstance(content, list):
        return f"its content is a {type(content).__name__}, not a string or a list of blocks"
    for block in content:
        if not isinstance(block, dict):
            return f"a content block is a {type(block).__name__} ({short_repr(block)}), not a dict"
        allowed = BLOCK_FIELDS.get(block.get("type"))
        if allowed is None:
            return f"a content block has type {short_repr(block.get('type'))}"
        extra = sorted(set(block) - allowed)
        if extra:
            return f"a {block['type']} block has fields the API refuses: {extra}"
    return None


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def check_mcp_run_tool(make_run_tool: Callable) -> None:
    """11 · `make_run_tool(call_tool)`: tools/call as notebook 04's run_tool."""
    __tracebackhide__ = True
    results = _results()
    asked: list[tuple[str, Any]] = []

    def call_tool(name: str, arguments: dict) -> CallToolResult:
        asked.append((name, arguments))
        if name == "crash":
            raise MCPError(-32000, "Connection closed")
        if name == "slow":
            raise TimeoutError("no answer in 10 seconds")
        return results[name]

    run_tool = run_learner(make_run_tool, call_tool, name="make_run_tool")
    cases = [
        ("query", {"sql": "SELECT 1"}, False, ["name | spent", "Grace | 27540"]),
        ("refused", {"sql": "DELETE FROM orders"}, True, ["not authorized"]),
        ("chart", {}, False, ["a chart of the orders"]),
        ("crash", {"sql": "SELECT 1"}, True, ["Connection closed"]),
        ("slow", {}, True, ["no answer in 10 seconds"]),
    ]
    for name, arguments, is_error, texts in cases:
        block = tool_call_block(name, f"toolu_{name}", **arguments)
        asked.clear()
        label = f"run_tool on a call to {name}"
        try:
            result = run_tool(block)
        except NotWrittenYet:
            fail(
                "run_tool is not written yet (it still raises NotWrittenYet).",
                "replace the placeholder under '# YOUR CODE HERE', run that cell, then this check.",
            )
        except Exception as error:
            if not asked:  # it failed before it called call_tool: its own code raised
                fail(
                    f"{label} raised {type(error).__name__}: {error}, before it called call_tool.",
                    "the call is a tool_use block as the SDK gives it, an object: read call.id, "
                    "call.name and call.input (not call['name']).",
                )
            fail(
                f"{label} raised {type(error).__name__}: {error}.",
                "catch what call_tool raises (a crashed or hung server) and return an is_error "
                "result: an exception would end the agent's loop.",
            )
        if asked != [(name, arguments)]:
            fail(
                f"{label} called call_tool with {short_repr(asked)}.",
                "call call_tool(call.name, call.input) once per call.",
            )
        if not isinstance(result, dict) or result.get("type") != "tool_result":
            fail(
                f"{label} returned {short_repr(result)}.",
                'return a dict with "type": "tool_result".',
            )
        if result.get("tool_use_id") != block.id:
            fail(
                f"{label} answered tool_use_id {short_repr(result.get('tool_use_id'))}, not {block.id!r}.",
                "use the id of the tool_use block you answer.",
            )
        refused = _bad_block(result.get("content"))
        if refused and "its content is" in refused:
            fail(
                f"{label}: the Messages API would refuse this tool_result, {refused}.",
                "the content is a string (str(problem) for an exception) or a list of blocks.",
            )
        if refused:
            fail(
                f"{label}: the Messages API would refuse this tool_result, {refused}.",
                'build each block yourself, {"type": "text", "text": block.text}: MCP\'s blocks '
                "and model_dump() keep MCP's own fields (annotations, meta), which the API refuses.",
            )
        text = _content_text(result.get("content"))
        if "TextContent(" in text or "CallToolResult(" in text or "meta=" in text:
            fail(
                f"{label} put the repr of the result in the content: {short_repr(text)}.",
                "take the text of each text block: block.text for block in result.content.",
            )
        missing = [t for t in texts if t not in text]
        if missing:
            fail(
                f"{label}: the content {short_repr(text)} lacks {short_repr(missing)}.",
                "the content is the text of every text block (an exception's own words for a failure).",
            )
        if bool(result.get("is_error")) is not is_error:
            fail(
                f"{label} has is_error={result.get('is_error')!r}, expected {is_error}.",
                "is_error is the CallToolResult's is_error (isError on the wire), and True for a "
                "call_tool that raised.",
            )
    passed("check_mcp_run_tool")


HOSTILE = {
    "DELETE": "DELETE FROM orders",
    "UPDATE": "UPDATE orders SET status = 'delivered'",
    "ATTACH": "ATTACH DATABASE '{folder}/attached.db' AS other",
    "PRAGMA writable_schema": "PRAGMA writable_schema = ON",
    "a second statement": "SELECT 1; DELETE FROM orders",
}


def check_read_only_query(safe_query: Callable) -> None:
    """11 · `safe_query(db_path, sql)`: reads run, every write is refused by the database."""
    __tracebackhide__ = True
    with tempfile.TemporaryDirectory(prefix="mcp-check-") as name:
        folder = Path(name)
        db = build_shop_db(folder)
        digest = hashlib.sha256(db.read_bytes()).hexdigest()
        for sql, expected in [
            ("SELECT name FROM customers WHERE id = 2", "Grace Hopper"),
            (
                "WITH big AS (SELECT * FROM orders WHERE total_cents > 10000) SELECT count(*) AS n FROM big",
                "3",
            ),
        ]:
            try:
                text = safe_query(db, sql)
            except NotWrittenYet:
                fail(
                    "safe_query is not written yet (it still raises NotWrittenYet).",
                    "replace the placeholder under '# YOUR CODE HERE', run that cell, then this check.",
                )
            except Exception as error:
                if "not authorized" in str(error):
                    fail(
                        f"safe_query refused a read, {sql!r}: your authorizer denied it ({error}).",
                        "the authorizer must return sqlite3.SQLITE_OK (0) for SQLITE_SELECT, "
                        "SQLITE_READ, SQLITE_FUNCTION, SQLITE_RECURSIVE; True is 1, SQLITE_DENY.",
                    )
                fail(
                    f"safe_query refused a read, {sql!r}: {type(error).__name__}: {error}.",
                    "let sqlite decide what is a write (mode=ro and an authorizer), not the SQL's first word.",
                )
            if not isinstance(text, str) or expected not in text:
                fail(
                    f"safe_query({sql!r}) returned {short_repr(text)}, without {expected!r}.",
                    "return the rows as text (a header line, then one line per row).",
                )
        for label, template in HOSTILE.items():
            sql = template.format(folder=folder)
            try:
                returned = safe_query(db, sql)
            except ToolError:
                returned = None
            except Exception as error:
                fail(
                    f"{label} was refused with {type(error).__name__}: {error}.",
                    "raise ToolError(...) with the database's words: the SDK reports any other "
                    "exception to the model as 'Error executing tool' and nothing more.",
                )
            if isinstance(returned, str) and any(
                word in returned.lower() for word in ("not authorized", "denied", "one statement")
            ):
                fail(
                    f"{label} was refused, but safe_query returned the refusal as text: "
                    f"{short_repr(returned)}.",
                    "raise ToolError(...) with the database's words: a returned text is a "
                    "success to the client (is_error false), not an error result.",
                )
            if returned is not None:
                fail(
                    f"{label} ran: safe_query({sql[:40]!r}) returned {short_repr(returned)}.",
                    "open the file with mode=ro and set an authorizer that allows only reads.",
                )
            if (folder / "attached.db").exists():
                fail(
                    "ATTACH created a new file next to the database.",
                    "mode=ro alone does not stop ATTACH: add an authorizer that denies it.",
                )
        if hashlib.sha256(db.read_bytes()).hexdigest() != digest:
            fail("the database file changed.", "open it read-only: file:...?mode=ro with uri=True.")
    passed("check_read_only_query")
