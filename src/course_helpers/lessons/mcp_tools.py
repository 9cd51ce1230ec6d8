"""Tools from an MCP server, for the course's loop (built in notebook 11).

`McpServer` starts a server as a subprocess over stdio and is the one place where the `mcp`
SDK's async code meets the synchronous loop: the connection lives on an event loop in a
background thread, each request is handed to it, and it is closed on that same loop, so the
server process is stopped when the `with` block ends. The server's stderr goes to a real file
(`log_path`), never to Jupyter's `sys.stderr`.

`anthropic_tool` turns an MCP tool into a Messages API tool definition; `mcp_run_tool(server)`
is a `run_tool` for notebook 04's `agent_loop` that answers each call with `tools/call`
(content blocks become the tool_result's content, `isError` becomes `is_error`, and a server
that crashed, hung or closed becomes an error result, never an exception). `server_tools`
gives the server's tools the shape notebook 05's dispatcher runs, so its checks and notebook
07's gate apply to them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import PaginatedRequestParams

from course_helpers.lessons.dispatch import tool_result
from course_helpers.support.result_wording import call_parts, failure_text

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.mcp_tools`. Edit those cells, then run `make promote`.


# From notebooks/11_take_tools_from_an_mcp_server.ipynb
CALL_SECONDS = 10.0  # a tools/call still unanswered after this is an error result
START_SECONDS = 60.0  # starting Python and importing the SDK can take a few seconds
STOP_SECONDS = 15.0  # the SDK's own shutdown is bounded: about 7 s in the worst case


class McpServer:
    """An MCP server run as a subprocess over stdio, used from synchronous code.

    `with McpServer(command, args, log_path=...) as server:` starts it and opens the session;
    leaving the block stops it. Requests run on the event loop of a background thread.
    """

    def __init__(
        self,
        command,
        args=(),
        *,
        log_path,
        cwd=None,
        env=None,
        call_seconds=CALL_SECONDS,
        start_seconds=START_SECONDS,
    ):
        self.params = StdioServerParameters(
            command=command, args=[str(a) for a in args], cwd=cwd, env=env
        )
        self.log_path = Path(log_path)
        self.call_seconds, self.start_seconds = call_seconds, start_seconds
        self.session = None
        self._loop = None

    def __enter__(self):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="mcp-client", daemon=True
        )
        self._thread.start()
        opened, self._done = concurrent.futures.Future(), threading.Event()
        self._kept = asyncio.run_coroutine_threadsafe(self._keep_open(opened), self._loop)
        try:
            opened.result(self.start_seconds)  # the session is open, or the start failed
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info):
        self.close()

    async def _keep_open(self, opened):
        """Open the connection, hold it until close(), and close it in this same task."""
        try:
            with self.log_path.open("a", encoding="utf-8") as errlog:  # a real file: see above
                async with (
                    stdio_client(self.params, errlog=errlog) as streams,
                    ClientSession(*streams) as session,
                ):
                    await session.initialize()
                    self.session, self._closing = session, asyncio.Event()
                    opened.set_result(None)
                    await self._closing.wait()
        except BaseException as problem:
            if not opened.done():
                opened.set_exception(problem)
            raise
        finally:
            self.session = None
            self._done.set()

    def request(self, coroutine, seconds):
        """The bridge: run one SDK coroutine on the connection's loop, wait for its answer."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(seconds)

    def list_tools(self) -> list:
        """tools/list: the server's tools (MCP Tool objects), every page of them."""
        tools, cursor = [], None
        while True:
            params = None if cursor is None else PaginatedRequestParams(cursor=cursor)
            page = self.request(self.session.list_tools(params=params), self.call_seconds)
            tools += page.tools
            cursor = page.next_cursor
            if not cursor:
                return tools

    def call_tool(self, name: str, arguments: dict):
        """tools/call: the server's CallToolResult. Raises when there is no answer."""
        if self.session is None:
            raise ConnectionError("the server's session is closed")
        call = self.session.call_tool(name, arguments, read_timeout_seconds=self.call_seconds)
        return self.request(call, self.call_seconds + 5)  # the SDK's own timeout comes first

    def close(self) -> None:
        """Stop the server (on the loop that started it), then the loop and its thread."""
        if self._loop is None:
            return
        if self.session is not None:
            self._loop.call_soon_threadsafe(self._closing.set)
        else:  # still starting (a server that never answers): cancelling runs the shutdown
            self._kept.cancel()
        self._done.wait(STOP_SECONDS)  # the SDK has stopped the server, or it never started
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(STOP_SECONDS)
        self._loop.close()
        self._loop = None


def shop_server(db_path: str | Path, log_path: str | Path, **options) -> McpServer:
    """The server of this notebook, started with this Python, in the database's own folder.

    `options` go to McpServer: `shop_server(db_path, log_path, call_seconds=0.001)`.
    """
    args = ["-m", "course_helpers.lessons.mcp_server", Path(db_path).name]
    return McpServer(sys.executable, args, log_path=log_path, cwd=Path(db_path).parent, **options)


# From notebooks/11_take_tools_from_an_mcp_server.ipynb
def anthropic_tool(mcp_tool) -> dict:
    """An MCP Tool as a tool definition for the Messages API."""
    return {
        "name": mcp_tool.name,
        "description": mcp_tool.description or "",
        "input_schema": mcp_tool.input_schema,
    }


def result_content(result) -> list[dict]:
    """A CallToolResult's content blocks as the content of a tool_result."""
    content = []
    for block in result.content:
        if block.type == "text":
            content.append({"type": "text", "text": block.text})
        elif block.type == "image":
            source = {"type": "base64", "media_type": block.mime_type, "data": block.data}
            content.append({"type": "image", "source": source})
        else:  # audio, a resource or a link to one: say what came, in words
            content.append({"type": "text", "text": f"(the tool returned a {block.type} block)"})
    return content or [{"type": "text", "text": "(the tool returned nothing)"}]


def mcp_run_tool(server: McpServer):
    """A run_tool for agent_loop: each call becomes a tools/call. It never raises."""

    def run_tool(call) -> dict:
        call_id, name, arguments = call_parts(call)
        try:
            result = server.call_tool(name, arguments)
        except Exception as problem:  # crashed, hung, closed: the model must still get an answer
            return tool_result(
                call_id, failure_text(f"The MCP server's {name}", problem), is_error=True
            )
        return {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": result_content(result),
            "is_error": bool(result.is_error),
        }

    return run_tool


# From notebooks/11_take_tools_from_an_mcp_server.ipynb
class ServerToolError(RuntimeError):
    """The server answered the call with is_error; the message is the server's text."""


@dataclass
class SchemaArguments:
    """Validates a call's arguments against the server's JSON Schema, as the dispatcher asks."""

    schema: dict

    def model_validate_json(self, data: str) -> dict:
        # The dispatcher hands over the call's input as JSON text, as the API sent it.
        arguments = json.loads(data)
        problems = sorted(
            jsonschema.Draft202012Validator(self.schema).iter_errors(arguments), key=str
        )
        if problems:
            lines = [
                f"- {'.'.join(map(str, p.path)) or 'the input'}: {p.message}" for p in problems
            ]
            raise ValueError("\n".join(lines))
        return arguments


@dataclass
class ServerTool:
    """A server's tool in the shape of notebook 02's Tool, for notebook 05's dispatcher."""

    name: str
    description: str
    input_schema: dict
    server: McpServer

    @property
    def arguments(self) -> SchemaArguments:
        return SchemaArguments(self.input_schema)

    def definition(self) -> dict:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        }

    def run(self, tool_input: dict) -> str:
        result = self.server.call_tool(self.name, tool_input)
        text = "\n".join(
            block["text"] for block in result_content(result) if block["type"] == "text"
        )
        if result.is_error:
            raise ServerToolError(text)
        return text


def server_tools(server: McpServer) -> list[ServerTool]:
    """The server's tools (tools/list), ready for dispatch, run_agent and a Gate."""
    return [ServerTool(**anthropic_tool(t), server=server) for t in server.list_tools()]
