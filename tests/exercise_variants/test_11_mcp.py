"""Exercise 11's checks, proven both ways: plausible wrong solutions fail with a message that
names their mistake, and correct solutions written differently pass."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from course_helpers.exercise_checks import (
    CheckFailed,
    check_mcp_run_tool,
    check_read_only_query,
    check_tool_conversion,
)


def failure_of(check, function) -> str:
    with pytest.raises(CheckFailed) as failure:
        check(function)
    message = str(failure.value)
    assert len(message.splitlines()) == 2 and message.splitlines()[1].startswith("Hint: "), message
    return message


# -- exercise 1: to_anthropic --------------------------------------------------------------------


def right_dict(mcp_tool):
    return {
        "name": mcp_tool.name,
        "description": mcp_tool.description or "",
        "input_schema": mcp_tool.input_schema,
    }


def right_without_empty_description(mcp_tool):
    definition = {"name": mcp_tool.name, "input_schema": dict(mcp_tool.input_schema)}
    if mcp_tool.description:
        definition["description"] = mcp_tool.description
    return definition


def right_from_dump(mcp_tool):
    dumped = mcp_tool.model_dump()
    return {
        key: dumped[key] or "" if key == "description" else dumped[key]
        for key in ("name", "description", "input_schema")
    }


def wrong_whole_dump(mcp_tool):
    return mcp_tool.model_dump(exclude_none=True)


def wrong_camel_case(mcp_tool):
    return {
        "name": mcp_tool.name,
        "description": mcp_tool.description or "",
        "inputSchema": mcp_tool.input_schema,
    }


def wrong_parameters_key(mcp_tool):
    return {
        "name": mcp_tool.name,
        "description": mcp_tool.description or "",
        "parameters": mcp_tool.input_schema,
    }


def wrong_rebuilt_schema(mcp_tool):
    properties = {
        k: {"type": v.get("type", "string")}
        for k, v in mcp_tool.input_schema.get("properties", {}).items()
    }
    schema = {"type": "object", "properties": properties}  # `required` and nesting lost
    return {
        "name": mcp_tool.name,
        "description": mcp_tool.description or "",
        "input_schema": schema,
    }


def wrong_none_description(mcp_tool):
    return {
        "name": mcp_tool.name,
        "description": mcp_tool.description,
        "input_schema": mcp_tool.input_schema,
    }


def wrong_title_as_description(mcp_tool):
    return {
        "name": mcp_tool.name,
        "description": mcp_tool.title or "",
        "input_schema": mcp_tool.input_schema,
    }


def wrong_keeps_annotations(mcp_tool):
    return {**right_dict(mcp_tool), "annotations": mcp_tool.annotations}


@pytest.mark.parametrize("function", [right_dict, right_without_empty_description, right_from_dump])
def test_correct_conversions_pass(function, capsys):
    check_tool_conversion(function)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (wrong_whole_dump, "fields the Messages API does not accept"),
        (wrong_camel_case, "['inputSchema']"),
        (wrong_parameters_key, "['parameters']"),
        (wrong_rebuilt_schema, "changed the server's schema"),
        (wrong_none_description, "has description None"),
        (wrong_title_as_description, "not the server's"),
        (wrong_keeps_annotations, "['annotations']"),
    ],
)
def test_wrong_conversions_fail_naming_the_mistake(function, named):
    message = failure_of(check_tool_conversion, function)
    assert named in message, message


# -- exercise 2: make_run_tool -------------------------------------------------------------------


def right_make_run_tool(call_tool):
    def run_tool(call):
        try:
            result = call_tool(call.name, call.input)
        except Exception as problem:
            return {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": str(problem),
                "is_error": True,
            }
        content = [{"type": "text", "text": b.text} for b in result.content if b.type == "text"]
        return {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": content,
            "is_error": result.is_error,
        }

    return run_tool


def right_joined_string(call_tool):
    def run_tool(call):
        result, failed = None, None
        try:
            result = call_tool(call.name, dict(call.input))
        except Exception as problem:  # noqa: BLE001 - a learner may catch every error
            failed = f"{type(problem).__name__}: {problem}"
        if failed is not None:
            return {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": failed,
                "is_error": True,
            }
        text = "\n".join(getattr(block, "text", "") for block in result.content)
        block = {"type": "tool_result", "tool_use_id": call.id, "content": text}
        if result.is_error:
            block["is_error"] = True
        return block

    return run_tool


def wrong_no_catch(call_tool):
    def run_tool(call):
        result = call_tool(call.name, call.input)
        text = "\n".join(b.text for b in result.content if b.type == "text")
        return {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": text,
            "is_error": result.is_error,
        }

    return run_tool


def wrong_first_block_only(call_tool):
    def run_tool(call):
        try:
            result = call_tool(call.name, call.input)
        except Exception as problem:
            return {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": str(problem),
                "is_error": True,
            }
        return {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": result.content[0].text,
            "is_error": result.is_error,
        }

    return run_tool


def wrong_ignores_is_error(call_tool):
    def run_tool(call):
        try:
            result = call_tool(call.name, call.input)
        except Exception as problem:
            return {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": str(problem),
                "is_error": True,
            }
        text = "\n".join(b.text for b in result.content if b.type == "text")
        return {"type": "tool_result", "tool_use_id": call.id, "content": text}

    return run_tool


def wrong_repr_content(call_tool):
    def run_tool(call):
        try:
            result = call_tool(call.name, call.input)
        except Exception as problem:
            return {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": str(problem),
                "is_error": True,
            }
        return {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": str(result.content),
            "is_error": result.is_error,
        }

    return run_tool


def wrong_error_not_marked(call_tool):
    def run_tool(call):
        try:
            result = call_tool(call.name, call.input)
        except Exception as problem:
            return {"type": "tool_result", "tool_use_id": call.id, "content": f"failed: {problem}"}
        text = "\n".join(b.text for b in result.content if b.type == "text")
        return {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": text,
            "is_error": result.is_error,
        }

    return run_tool


def wrong_generic_error_text(call_tool):
    def run_tool(call):
        try:
            result = call_tool(call.name, call.input)
        except Exception:
            return {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": "Error",
                "is_error": True,
            }
        text = "\n".join(b.text for b in result.content if b.type == "text")
        return {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": text,
            "is_error": result.is_error,
        }

    return run_tool


def wrong_fixed_id(call_tool):
    def run_tool(call):
        try:
            result = call_tool(call.name, call.input)
        except Exception as problem:
            return {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": str(problem),
                "is_error": True,
            }
        text = "\n".join(b.text for b in result.content if b.type == "text")
        return {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": text,
            "is_error": result.is_error,
        }

    return run_tool


@pytest.mark.parametrize("function", [right_make_run_tool, right_joined_string])
def test_correct_run_tools_pass(function, capsys):
    check_mcp_run_tool(function)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (wrong_no_catch, "raised MCPError"),
        (wrong_first_block_only, "lacks ['Grace | 27540', 'Zoë Ødegård | 9 900 €']"),
        (wrong_ignores_is_error, "is_error=None: a failure must say is_error: True"),
        (wrong_repr_content, "repr of the result"),
        (wrong_error_not_marked, "is_error=None: a failure must say is_error: True"),
        (wrong_generic_error_text, "lacks ['Connection closed']"),
        (wrong_fixed_id, "not 'toolu_query'"),
    ],
)
def test_wrong_run_tools_fail_naming_the_mistake(function, named):
    message = failure_of(check_mcp_run_tool, function)
    assert named in message, message


# -- exercise 3: safe_query ----------------------------------------------------------------------

READS = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_FUNCTION,
    sqlite3.SQLITE_RECURSIVE,
}


def rows_text(cursor) -> str:
    header = " | ".join(c[0] for c in cursor.description or ())
    return "\n".join([header, *(" | ".join(map(str, row)) for row in cursor.fetchmany(50))])


def right_safe_query(db_path, sql):
    uri = Path(db_path).resolve().as_uri() + "?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as connection:
        connection.set_authorizer(
            lambda action, *rest: sqlite3.SQLITE_OK if action in READS else sqlite3.SQLITE_DENY
        )
        try:
            return rows_text(connection.execute(sql))
        except sqlite3.Error as problem:
            raise ToolError(str(problem)) from problem


def right_authorizer_naming_the_denied(db_path, sql):
    """Denies writes by name instead of allowing reads: also refuses what the check sends."""
    denied = {
        sqlite3.SQLITE_INSERT,
        sqlite3.SQLITE_UPDATE,
        sqlite3.SQLITE_DELETE,
        sqlite3.SQLITE_ATTACH,
        sqlite3.SQLITE_PRAGMA,
        sqlite3.SQLITE_DROP_TABLE,
        sqlite3.SQLITE_TRANSACTION,
    }
    connection = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    connection.set_authorizer(
        lambda action, *rest: sqlite3.SQLITE_DENY if action in denied else sqlite3.SQLITE_OK
    )
    try:
        cursor = connection.execute(sql)
        return "\n".join(
            str(row) for row in [tuple(c[0] for c in cursor.description), *cursor.fetchall()]
        )
    except sqlite3.DatabaseError as problem:
        raise ToolError(f"refused: {problem}") from None
    finally:
        connection.close()


def wrong_mode_ro_only(db_path, sql):
    uri = Path(db_path).resolve().as_uri() + "?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as connection:
        try:
            return rows_text(connection.execute(sql))
        except sqlite3.Error as problem:
            raise ToolError(str(problem)) from problem


def wrong_first_word(db_path, sql):
    if not sql.strip().upper().startswith("SELECT"):
        raise ToolError("only SELECT is allowed")
    with closing(sqlite3.connect(db_path)) as connection:
        return rows_text(connection.execute(sql))


def wrong_raw_sqlite_error(db_path, sql):
    uri = Path(db_path).resolve().as_uri() + "?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as connection:
        connection.set_authorizer(
            lambda action, *rest: sqlite3.SQLITE_OK if action in READS else sqlite3.SQLITE_DENY
        )
        return rows_text(connection.execute(sql))


def wrong_writable_with_authorizer_missing_attach(db_path, sql):
    denied = {sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}
    with closing(sqlite3.connect(db_path)) as connection:
        connection.set_authorizer(
            lambda action, *rest: sqlite3.SQLITE_DENY if action in denied else sqlite3.SQLITE_OK
        )
        try:
            return rows_text(connection.execute(sql))
        except sqlite3.Error as problem:
            raise ToolError(str(problem)) from problem


def wrong_executescript(db_path, sql):
    """Runs every statement it is given: the second statement after a ';' goes through."""
    with closing(sqlite3.connect(db_path)) as connection:
        if re.match(r"\s*(select|with)\b", sql, re.IGNORECASE) is None:
            raise ToolError("only reads are allowed")
        connection.executescript(sql)
        connection.commit()
        return rows_text(connection.execute(sql.split(";")[0]))


@pytest.mark.parametrize("function", [right_safe_query, right_authorizer_naming_the_denied])
def test_correct_safe_queries_pass(function, capsys):
    check_read_only_query(function)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (wrong_mode_ro_only, "ATTACH ran"),
        (wrong_first_word, "refused a read"),
        (wrong_raw_sqlite_error, "refused with DatabaseError"),
        (wrong_writable_with_authorizer_missing_attach, "ATTACH ran"),
        (wrong_executescript, "a second statement ran"),
    ],
)
def test_wrong_safe_queries_fail_naming_the_mistake(function, named):
    message = failure_of(check_read_only_query, function)
    assert named in message, message


# -- more mistakes a learner makes, each named by the check -----------------------------------


def _ok(call, content, is_error=False):
    return {"type": "tool_result", "tool_use_id": call.id, "content": content, "is_error": is_error}


def wrong_dumped_blocks(call_tool):
    def run_tool(call):
        try:
            result = call_tool(call.name, call.input)
        except Exception as problem:
            return _ok(call, str(problem), True)
        return _ok(call, [block.model_dump() for block in result.content], result.is_error)

    return run_tool


def wrong_mcp_blocks_as_they_are(call_tool):
    def run_tool(call):
        try:
            result = call_tool(call.name, call.input)
        except Exception as problem:
            return _ok(call, str(problem), True)
        return _ok(call, result.content, result.is_error)

    return run_tool


def wrong_exception_as_content(call_tool):
    def run_tool(call):
        try:
            result = call_tool(call.name, call.input)
        except Exception as problem:
            return _ok(call, problem, True)
        return _ok(
            call, "\n".join(b.text for b in result.content if b.type == "text"), result.is_error
        )

    return run_tool


def wrong_subscripts_the_block(call_tool):
    def run_tool(call):
        try:
            result = call_tool(call["name"], call["input"])
        except Exception as problem:
            return _ok(call, str(problem), True)
        return _ok(
            call, "\n".join(b.text for b in result.content if b.type == "text"), result.is_error
        )

    return run_tool


def wrong_reads_the_block_as_a_dict(call_tool):
    def run_tool(call):
        name, arguments = call["name"], call["input"]
        try:
            result = call_tool(name, arguments)
        except Exception as problem:
            return _ok(call, str(problem), True)
        return _ok(
            call, "\n".join(b.text for b in result.content if b.type == "text"), result.is_error
        )

    return run_tool


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (wrong_reads_the_block_as_a_dict, "before it called call_tool"),
        (wrong_dumped_blocks, "fields the API refuses: ['annotations', 'meta']"),
        (wrong_mcp_blocks_as_they_are, "a content block is a TextContent"),
        (wrong_exception_as_content, "its content is a MCPError"),
        (wrong_subscripts_the_block, "called call_tool with []"),
    ],
)
def test_more_wrong_run_tools_fail_naming_the_mistake(function, named):
    message = failure_of(check_mcp_run_tool, function)
    assert named in message, message


def _authorized_query(db_path, sql, authorizer, on_error):
    uri = Path(db_path).resolve().as_uri() + "?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as connection:
        connection.set_authorizer(authorizer)
        try:
            return rows_text(connection.execute(sql))
        except sqlite3.Error as problem:
            return on_error(problem)


def wrong_returns_the_refusal(db_path, sql):
    def as_text(problem):
        return f"Error: {problem}"

    allow = lambda action, *rest: sqlite3.SQLITE_OK if action in READS else sqlite3.SQLITE_DENY  # noqa: E731
    return _authorized_query(db_path, sql, allow, as_text)


def wrong_authorizer_returns_a_bool(db_path, sql):
    def refuse(problem):
        raise ToolError(str(problem)) from problem

    return _authorized_query(db_path, sql, lambda action, *rest: action in READS, refuse)


def wrong_allows_pragma(db_path, sql):
    def refuse(problem):
        raise ToolError(str(problem)) from problem

    allowed = READS | {sqlite3.SQLITE_PRAGMA}
    allow = lambda action, *rest: sqlite3.SQLITE_OK if action in allowed else sqlite3.SQLITE_DENY  # noqa: E731
    return _authorized_query(db_path, sql, allow, refuse)


def blank_safe_query(db_path, sql):
    from course_helpers.exercise_checks import NotWrittenYet

    raise NotWrittenYet


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (wrong_returns_the_refusal, "returned the refusal as text"),
        (wrong_authorizer_returns_a_bool, "your authorizer denied it"),
        (wrong_allows_pragma, "PRAGMA writable_schema ran"),
        (blank_safe_query, "safe_query is not written yet"),
    ],
)
def test_more_wrong_safe_queries_fail_naming_the_mistake(function, named):
    message = failure_of(check_read_only_query, function)
    assert named in message, message


# -- mistakes that passed before (a learner's solutions, written from the exercise text) -------


def learner_mutates_the_server_schema(t):
    s = t.input_schema
    s.setdefault("required", [])
    s["additionalProperties"] = False
    return {"name": t.name, "description": t.description or "", "input_schema": s}


def test_a_conversion_that_edits_the_servers_schema_fails():
    message = failure_of(check_tool_conversion, learner_mutates_the_server_schema)
    assert "changed the MCP tool's own input_schema" in message, message


def _learner_run_tool(call_tool, *, catch, failed_flag, content=None):
    def run_tool(call):
        try:
            r = call_tool(call.name, call.input)
        except catch as e:
            return {"type": "tool_result", "tool_use_id": call.id, "content": str(e),
                    "is_error": failed_flag}  # fmt: skip
        text = content(r) if content else "".join(b.text for b in r.content if b.type == "text")
        return {"type": "tool_result", "tool_use_id": call.id, "content": text,
                "is_error": r.is_error}  # fmt: skip

    return run_tool


def learner_is_error_yes(call_tool):
    return _learner_run_tool(call_tool, catch=Exception, failed_flag="yes")


def learner_is_error_one(call_tool):
    return _learner_run_tool(call_tool, catch=Exception, failed_flag=1)


def learner_catches_base_exception(call_tool):
    return _learner_run_tool(call_tool, catch=BaseException, failed_flag=True)


def learner_structured_instead(call_tool):
    import json

    def content(r):
        if r.structured_content:
            return json.dumps(r.structured_content)
        return "".join(b.text for b in r.content if b.type == "text")

    return _learner_run_tool(call_tool, catch=Exception, failed_flag=True, content=content)


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (learner_is_error_yes, "is_error='yes': a failure must say is_error: True, the boolean"),
        (learner_is_error_one, "is_error=1: a failure must say is_error: True, the boolean"),
        (learner_catches_base_exception, "run_tool caught KeyboardInterrupt (Ctrl-C)"),
        (learner_structured_instead, "lacks ['name | spent', 'Grace | 27540'"),
    ],
)
def test_run_tools_that_passed_before_fail_naming_the_mistake(function, named):
    message = failure_of(check_mcp_run_tool, function)
    assert named in message, message


def _learner_query(db_path, sql, *, rows_of, header=True, on_error=None):
    allowed = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
               sqlite3.SQLITE_RECURSIVE}  # fmt: skip
    uri = Path(db_path).resolve().as_uri() + "?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as c:
        c.set_authorizer(lambda a, *r: sqlite3.SQLITE_OK if a in allowed else sqlite3.SQLITE_DENY)
        try:
            cur = c.execute(sql)
        except sqlite3.Error as e:
            if on_error is None:
                raise ToolError(str(e)) from e
            return on_error(e)
        rows = rows_of(cur)
        head = [" | ".join(d[0] for d in cur.description)] if header else []
        return "\n".join(head + [" | ".join(map(str, r)) for r in rows])


def learner_only_first_row(db_path, sql):
    return _learner_query(db_path, sql, rows_of=lambda cur: [cur.fetchone()])


def learner_at_most_two_rows(db_path, sql):
    return _learner_query(db_path, sql, rows_of=lambda cur: cur.fetchall()[:2])


def learner_no_header(db_path, sql):
    return _learner_query(db_path, sql, rows_of=lambda cur: cur.fetchall(), header=False)


def learner_generic_tool_error(db_path, sql):
    def refuse(error):
        raise ToolError("query refused")

    return _learner_query(db_path, sql, rows_of=lambda cur: cur.fetchall(), on_error=refuse)


def learner_swallows_the_refusal(db_path, sql):
    def swallow(error):
        print(error)
        return ""

    return _learner_query(db_path, sql, rows_of=lambda cur: cur.fetchall(), on_error=swallow)


@pytest.mark.parametrize(
    ("function", "named"),
    [
        (learner_only_first_row, "returned 1 of the 6 rows"),
        (learner_at_most_two_rows, "returned 2 of the 6 rows"),
        (learner_no_header, "no header line naming the columns ['id', 'name', 'city']"),
        (learner_generic_tool_error, "ToolError('query refused'), without the database's words"),
        (learner_swallows_the_refusal, "DELETE raised nothing"),
    ],
)
def test_safe_queries_that_passed_before_fail_naming_the_mistake(function, named, capsys):
    message = failure_of(check_read_only_query, function)
    assert named in message, message


# -- a learner's solutions that passed before ----------------------------------------------------


def wrong_ascii_description(mcp_tool):
    description = (mcp_tool.description or "").encode("ascii", "ignore").decode()
    return {**right_dict(mcp_tool), "description": description}


def wrong_cut_description(mcp_tool):
    return {**right_dict(mcp_tool), "description": (mcp_tool.description or "")[:100]}


@pytest.mark.parametrize("function", [wrong_ascii_description, wrong_cut_description])
def test_a_description_stripped_or_cut_fails(function):
    assert "not the server's" in failure_of(check_tool_conversion, function)


def wrong_ascii_results(call_tool):
    inner = right_make_run_tool(call_tool)

    def run_tool(call):
        result = inner(call)
        if isinstance(result["content"], list):
            result["content"] = [
                {**b, "text": b["text"].encode("ascii", "ignore").decode()}
                for b in result["content"]
            ]
        return result

    return run_tool


def wrong_wire_name(call_tool):
    """Reads result.isError, the wire name: an AttributeError of the learner's own code."""

    def run_tool(call):
        try:
            result = call_tool(call.name, call.input)
        except Exception as problem:
            return {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": str(problem),
                "is_error": True,
            }
        content = [{"type": "text", "text": b.text} for b in result.content if b.type == "text"]
        return {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": content,
            "is_error": result.isError,
        }

    return run_tool


def wrong_raises_on_is_error(call_tool):
    inner = right_make_run_tool(call_tool)

    def run_tool(call):
        result = inner(call)
        if result.get("is_error") and call.name == "refused":
            raise RuntimeError("the server refused the call")
        return result

    return run_tool


def test_non_ascii_results_lost_fail():
    text = failure_of(check_mcp_run_tool, wrong_ascii_results)
    assert "Zoë Ødegård" in text and "lacks" in text, text


def test_an_error_of_the_learners_own_code_is_named_as_such():
    text = failure_of(check_mcp_run_tool, wrong_wire_name)
    assert "in your own code, after call_tool had returned" in text, text
    assert "isError" in text and "catch what call_tool raises" not in text, text
    assert "result.isError" in text, text  # the traceback's last line, quoted


def test_a_run_tool_raising_for_an_is_error_result_is_told_to_pass_it_on():
    text = failure_of(check_mcp_run_tool, wrong_raises_on_is_error)
    assert "itself, after call_tool had returned" in text and "pass it on" in text, text


def wrong_without_mode_ro(db_path, sql):
    """The allow-list authorizer alone: a missing path becomes a new, empty database."""
    with closing(sqlite3.connect(db_path)) as connection:
        connection.set_authorizer(
            lambda action, *rest: sqlite3.SQLITE_OK if action in READS else sqlite3.SQLITE_DENY
        )
        try:
            return rows_text(connection.execute(sql))
        except sqlite3.Error as problem:
            raise ToolError(str(problem)) from problem


def wrong_catches_base_exception(db_path, sql):
    uri = Path(db_path).resolve().as_uri() + "?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as connection:
        connection.set_authorizer(
            lambda action, *rest: sqlite3.SQLITE_OK if action in READS else sqlite3.SQLITE_DENY
        )
        try:
            return rows_text(connection.execute(sql))
        except BaseException as problem:  # noqa: BLE001 (the mistake: Ctrl-C caught too)
            raise ToolError(str(problem)) from problem


def test_a_query_without_mode_ro_fails_on_a_missing_path():
    text = failure_of(check_read_only_query, wrong_without_mode_ro)
    assert "created an empty database file" in text and "mode=ro" in text, text


def test_a_query_catching_base_exception_fails():
    text = failure_of(check_read_only_query, wrong_catches_base_exception)
    assert "Ctrl-C" in text and "BaseException" in text, text
