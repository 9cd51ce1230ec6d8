"""Checks for notebook 11, Take tools from an MCP server.

Requirements, one per line (each proven both ways in tests/exercise_variants/test_11_mcp.py;
the third check lives in `exercise_checks.mcp_query`):

`check_tool_conversion(to_anthropic)`, `to_anthropic(mcp_tool) -> dict`:
- the definition has the tool's `name` and its `input_schema`, the server's schema unchanged
  (`required` and nested properties kept; compared with a deep copy taken before the call, and
  the MCP tool's own schema is not edited), under the key the API reads (`input_schema`);
- the description is the server's text, whole (it is long and holds 'é', '’' and '€'); a tool
  without one gets "" or no description;
- nothing else goes in: the API refuses fields it does not know (`annotations`, `title`,
  `output_schema`, `_meta`...).

`check_mcp_run_tool(make_run_tool)`, `make_run_tool(call_tool)` returns `run_tool(call)`, where
`call_tool(name, arguments)` is a tools/call that returns an MCP `CallToolResult` or raises:
- it calls the tool the block names with the block's input, and answers with a `tool_result`
  for the block's id;
- the result's content carries the text of every text block, non-ASCII characters kept (not
  the repr of the result, not its `structured_content`);
- `is_error` follows the result's `is_error`: exactly `True` for a failure (the API refuses a
  non-boolean), `False` or left out for a success;
- a tools/call that raises (a crashed server, a timeout) is an `is_error` result whose text
  keeps the exception's words; `run_tool` never raises, but lets Ctrl-C (KeyboardInterrupt)
  through; an exception of run_tool's own code after call_tool returned (AttributeError,
  KeyError...) is named as the learner's bug, with the line that raised it.

`check_read_only_query(safe_query)`, `safe_query(db_path, sql) -> str`:
- a SELECT returns a header naming every column and then every row, a line each, and so does
  a read that starts with WITH (compared with what sqlite itself returns);
- DELETE, UPDATE, ATTACH (no new file), PRAGMA writable_schema and a second statement are
  refused with the SDK's `ToolError` holding the words of the `sqlite3.Error` it was raised
  from (its text reaches the model), and the file is unchanged; a refusal swallowed into a
  returned text is named as such;
- a path with no database is refused and no file is created there (mode=ro; a plain
  `sqlite3.connect(path)` creates an empty database);
- Ctrl-C (KeyboardInterrupt) during the query gets through (no `except BaseException`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

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
from course_helpers.exercise_checks.mcp_query import check_read_only_query

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
            # Long and not ASCII: a description cut short or stripped of 'é' and '€' is not the
            # server's.
            description=(
                "Run one read-only SELECT on the shop’s database (customers, orders, order "
                "items) and return the rows as text: names such as Zoë or Chloé, prices in €."
            ),
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
        servers = copy.deepcopy(mcp_tool.input_schema)  # the server's schema, before the call
        definition = run_learner(to_anthropic, mcp_tool, name="to_anthropic")
        if mcp_tool.input_schema != servers:
            fail(
                f"{label} changed the MCP tool's own input_schema, the server's object: it is now "
                f"{short_repr(mcp_tool.input_schema)}.",
                "do not edit mcp_tool.input_schema (no setdefault, no item assignment on it): "
                "pass it on as it is, or edit a copy.deepcopy() of it if you must.",
            )
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
        if definition["input_schema"] != servers:
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
                TextContent(type="text", text="Zoë Ødegård | 9 900 €"),
            ],
            structured_content={"rows": [{"name": "Grace", "spent": 27540}]},
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
        if name == "interrupted":
            raise KeyboardInterrupt  # the person pressed Ctrl-C while the server worked
        return results[name]

    run_tool = run_learner(make_run_tool, call_tool, name="make_run_tool")
    cases = [
        (
            "query",
            {"sql": "SELECT 1"},
            False,
            ["name | spent", "Grace | 27540", "Zoë Ødegård | 9 900 €"],
        ),
        ("refused", {"sql": "DELETE FROM orders"}, True, ["not authorized"]),
        ("chart", {}, False, ["a chart of the orders"]),
        ("crash", {"sql": "SELECT 1"}, True, ["Connection closed"]),
        ("slow", {}, True, ["no answer in 10 seconds"]),
    ]
    _check_ctrl_c(run_tool, asked)
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
            lookup = (AttributeError, KeyError, TypeError, NameError, IndexError)
            if name in results and not isinstance(error, lookup):
                fail(
                    f"{label} raised {type(error).__name__}: {error}, itself, after call_tool "
                    f"had returned a result ({_where(error)}).",
                    "a result with is_error true is an answer: pass it on as a tool_result with "
                    "is_error: True, do not raise it (an exception would end the agent's loop).",
                )
            if name in results:  # call_tool returned: the error is the learner's own code's
                fail(
                    f"{label} raised {type(error).__name__}: {error}, in your own code, after "
                    f"call_tool had returned a result ({_where(error)}). That is a bug in "
                    "run_tool, not a failure of the server.",
                    "fix that line (the SDK's names are result.content, result.is_error, "
                    "block.text; isError is the name on the wire); do not wrap it in "
                    "try/except.",
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
        flag = result.get("is_error")
        if is_error and flag is not True:
            fail(
                f"{label} has is_error={flag!r}: a failure must say is_error: True, the boolean "
                "(the API answers 400 'is_error: Input should be a valid boolean' to anything "
                "else, and a false or missing one tells the model the call worked).",
                "set is_error=True for a call_tool that raised, and result.is_error (a bool) for "
                "a CallToolResult.",
            )
        if not is_error and flag not in (False, None):
            fail(
                f"{label} has is_error={flag!r} for a call that worked (the result's is_error is "
                "False).",
                "is_error is the CallToolResult's is_error (isError on the wire): False here, or "
                "leave it out.",
            )
    passed("check_mcp_run_tool")


def _where(error: BaseException) -> str:
    """The last line of the traceback: where the error was raised, and its source line."""
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "no traceback"
    own = [
        f for f in frames if "site-packages" not in f.filename and "/lib/python" not in f.filename
    ]
    last = (own or frames)[-1]  # the learner's line, not the library's that raised for it
    return f"line {last.lineno} of {last.name}" + (f": {last.line}" if last.line else "")


def _check_ctrl_c(run_tool: Callable, asked: list) -> None:
    """Ctrl-C while call_tool waits must reach the person: run_tool lets it through."""
    __tracebackhide__ = True
    block = tool_call_block("interrupted", "toolu_interrupted")
    asked.clear()
    try:
        result = run_tool(block)
    except KeyboardInterrupt:
        return
    except NotWrittenYet:
        return  # the loop below says it is not written yet
    except Exception:
        return  # the loop below names what went wrong
    if not asked:
        return  # it never called call_tool: the loop below says so
    fail(
        "run_tool caught KeyboardInterrupt (Ctrl-C) from call_tool and returned "
        f"{short_repr(result)}: the person who pressed Ctrl-C to stop the agent cannot.",
        "catch Exception, not BaseException (nor a bare except:): KeyboardInterrupt must get "
        "through, as in notebook 05.",
    )


__all__ = ["check_mcp_run_tool", "check_read_only_query", "check_tool_conversion"]
