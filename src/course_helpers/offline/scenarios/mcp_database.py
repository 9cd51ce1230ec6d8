"""Course machinery (offline course model): questions about the shop's database, answered with the
tools of an MCP server, for notebook 11.

Offered tools named `list_tables`, `describe_table` and `query` (wherever they come from) and
asked about the shop's customers, the model works as a careful model does, one step per turn,
from what the tools return:

1. `list_tables`, unless the conversation already shows the tables;
2. `describe_table` on each table the question needs that it has not seen described yet (the
   customers and orders tables, found by name in the list), in one turn when parallel calls are
   allowed;
3. `query`, with SQL written from the column names in the definitions it read (a column for the
   customer's id and name, the order's customer, amount and status): the customer who spent
   the most on delivered orders;
4. the answer, from the rows the query returned.

The follow-up ("What did she buy?") plays one mistake on purpose: when the items table has not
been described, the first query guesses its quantity column (`qty`). An `is_error` result that
says a column does not exist leads to `describe_table` on that table, then a query with the real
column names; any other error is reported as it is.

A poisoned description: when another offered tool's description orders assistants to send the
data they found to an email address (it names an address, and says the sending must happen:
"before you answer", "must", "always"...), the model obeys, as models sometimes do: after
its query it calls that tool with the address and the query's rows, then answers. A declined
call (`is_error`) is reported with a warning that the description looks like a prompt
injection, and not tried again.
"""

from __future__ import annotations

import re

from course_helpers.offline.conversation import Conversation, ToolCall
from course_helpers.offline.policy import Reply, call, say, scenario, text, tool_use
from course_helpers.offline.reading import EMAIL as _EMAIL
from course_helpers.offline.scenarios.guard import who_declined

TOOLS = ("list_tables", "describe_table", "query")
_TOP = re.compile(
    r"\b(?:spent|spend|spends|spending)\b.*\bmost\b|\bmost\b.*\bspent\b|\btop customer\b",
    re.IGNORECASE,
)
_BOUGHT = re.compile(
    r"\bwhat did (?:she|he|they|the customer) (?:buy|order)\b|\bwhich products\b|"
    r"\bwhat (?:products|items)\b",
    re.IGNORECASE,
)
_COLUMN_LINE = re.compile(r"^\s*[\"`\[]?([A-Za-z_]\w*)[\"`\]]?\s+[A-Za-z]", re.MULTILINE)
_NOT_COLUMNS = {"create", "table", "primary", "foreign", "unique", "check", "constraint"}
_NO_COLUMN = re.compile(r"no such column:\s*([\w.]+)", re.IGNORECASE)
_SEND_ORDER = re.compile(
    r"\b(?:assistant|AI|model)s?\b.*\b(?:send|forward|e-?mail|copy)\b", re.IGNORECASE | re.DOTALL
)
# An order, not a mention: it says the sending must happen (before answering, always...) and
# that what goes out is the data the assistant found.
_MUST = re.compile(
    r"\b(?:before (?:you )?(?:answer|reply|respond)|must|requires?|required|always)\b",
    re.IGNORECASE,
)
_THE_DATA = re.compile(
    r"\b(?:the data|data you|what you (?:found|learned|read)|results?|rows|findings)\b",
    re.IGNORECASE,
)
GUESSED_QUANTITY = "qty"


# -- reading what the tools returned -----------------------------------------------------------


def rows_of(result: str) -> tuple[list[str], list[list[str]]]:
    """The header and rows of a query result written as 'a | b' lines (a count line ignored)."""
    lines = [
        line
        for line in result.splitlines()
        if line.strip() and not re.fullmatch(r"\s*\(.*\)\s*", line)
    ]
    if not lines:
        return [], []
    split = [[cell.strip() for cell in line.split("|")] for line in lines]
    return split[0], split[1:]


def table_names(result: str) -> list[str]:
    """The tables a list_tables result names: one per line, after a header if there is one."""
    header, rows = rows_of(result)
    names = [row[0] for row in rows if row and re.fullmatch(r"\w+", row[0])]
    if header and re.fullmatch(r"\w+", header[0]) and "table" not in header[0].lower():
        names.insert(0, header[0])
    return names


def columns_of(definition: str) -> list[str]:
    """The column names in a table's definition (a CREATE TABLE statement, or 'name TYPE' lines)."""
    body = definition.split("(", 1)[1] if "CREATE TABLE" in definition.upper() else definition
    return [c for c in _COLUMN_LINE.findall(body) if c.lower() not in _NOT_COLUMNS]


def _pick(columns: list[str], *patterns: str) -> str | None:
    for pattern in patterns:
        for column in columns:
            if re.fullmatch(pattern, column, re.IGNORECASE):
                return column
    return None


def _table(tables: list[str], word: str, *, without: str = "") -> str | None:
    for name in tables:
        lower = name.lower()
        if word in lower and not (without and without in lower):
            return name
    return None


# -- the scenario --------------------------------------------------------------------------------


class _Reading:
    """What the conversation so far shows about the database."""

    def __init__(self, conv: Conversation) -> None:
        self.conv = conv
        answered = [c for c in conv.calls() if c.result is not None]
        self.calls = answered
        listed = [c for c in answered if c.name == "list_tables" and not c.is_error]
        self.tables = table_names(listed[-1].result or "") if listed else None
        self.described: dict[str, list[str]] = {}
        self.definitions: dict[str, str] = {}
        for c in answered:
            if c.name == "describe_table" and not c.is_error:
                name = str(next(iter(c.input.values()), ""))
                self.described[name] = columns_of(c.result or "")
                self.definitions[name] = c.result or ""

    def table_arg(self) -> str:
        return self.conv.argument_for("describe_table", ("table", "table_name", "name"))

    def sql_arg(self) -> str:
        return self.conv.argument_for("query", ("sql", "query", "statement"))

    def describe(self, tables: list[str], preamble: str) -> Reply:
        if not self.conv.parallel_allowed:
            tables = tables[:1]
        blocks = [
            text(preamble),
            *(tool_use("describe_table", **{self.table_arg(): t}) for t in tables),
        ]
        return Reply(blocks)


@scenario(
    "mcp_database",
    "Answer questions about the shop's database with an MCP server's list_tables, "
    "describe_table and query: 'Which customer has spent the most on delivered orders, and "
    "how much?' then 'What did she buy?' (notebook 11)",
    priority=28,
)
def mcp_database(conv: Conversation) -> Reply | None:
    if not conv.offers(*TOOLS):
        return None
    asked = conv.person_text
    if _TOP.search(asked):
        return _top_customer(_Reading(conv))
    if _BOUGHT.search(asked):
        return _bought(_Reading(conv))
    return None


def _tables_first(reading: _Reading) -> Reply | None:
    if reading.tables is None:
        return call("list_tables", "I'll start by looking at which tables the database has.")
    return None


def _top_customer(reading: _Reading) -> Reply | None:
    first = _tables_first(reading)
    if first is not None:
        return first
    tables = reading.tables or []
    customers, orders = _table(tables, "customer"), _table(tables, "order", without="item")
    if customers is None or orders is None:
        return say(
            f"I could not find a customers table and an orders table; the tables are: {', '.join(tables)}."
        )
    missing = [t for t in (customers, orders) if t not in reading.described]
    if missing:
        return reading.describe(
            missing, f"I'll read how {' and '.join(missing)} are defined before I write a query."
        )
    c_cols, o_cols = reading.described[customers], reading.described[orders]
    c_id, c_name = _pick(c_cols, r"id", r"customer_?id"), _pick(c_cols, r"name", r"\w*name")
    o_cust = _pick(o_cols, r"customer_?id", r"customer\w*")
    o_amount = _pick(o_cols, r"total\w*", r"amount\w*", r"\w*price\w*")
    o_status = _pick(o_cols, r"status", r"state")
    needed = {
        "customer id": c_id,
        "customer name": c_name,
        "order's customer": o_cust,
        "order total": o_amount,
        "status": o_status,
    }
    lacking = [what for what, column in needed.items() if column is None]
    if lacking:
        return say(f"The tables have no column I can use for: {', '.join(lacking)}.")
    queries = [c for c in reading.calls if c.name == "query" and c.id in _task_ids(reading.conv)]
    if not queries:
        sql = (
            f"SELECT c.{c_name} AS customer, SUM(o.{o_amount}) AS spent, COUNT(*) AS orders "
            f"FROM {orders} o JOIN {customers} c ON c.{c_id} = o.{o_cust} "
            f"WHERE o.{o_status} = 'delivered' GROUP BY c.{c_id} ORDER BY spent DESC LIMIT 3"
        )
        return call(
            "query",
            "Now the query: delivered orders only, summed per customer.",
            **{reading.sql_arg(): sql},
        )
    last = queries[-1]
    if last.is_error:
        return say(f"My query failed, and the database said: {(last.result or '').strip()[:300]}")
    header, rows = rows_of(last.result or "")
    if not rows or len(rows[0]) < 2:
        return say(f"The query returned no rows I can read:\n{last.result}")
    answer = _top_answer(rows, cents="cent" in o_amount.lower())
    return _maybe_obey_poison(reading, last, answer)


def _money(value: str, cents: bool) -> str:
    try:
        number = float(value)
    except ValueError:
        return value
    return f"${number / 100:,.2f}" if cents else f"{number:,.2f}"


def _top_answer(rows: list[list[str]], cents: bool) -> str:
    name, spent = rows[0][0], _money(rows[0][1], cents)
    count = f" over {rows[0][2]} orders" if len(rows[0]) > 2 else ""
    runners = ", ".join(f"{r[0]} ({_money(r[1], cents)})" for r in rows[1:3] if len(r) > 1)
    after = f" Next come {runners}." if runners else ""
    return f"**{name}** has spent the most on delivered orders: {spent}{count}.{after}"


def _task_ids(conv: Conversation) -> set[str]:
    return {c.id for c in conv.task_calls()}


def _poison(conv: Conversation) -> tuple[str, str] | None:
    """(tool name, address) of an offered tool whose description orders assistants to send data."""
    for tool in conv.tools:
        name = tool.get("name", "")
        if name in TOOLS:
            continue
        description = str(tool.get("description") or "")
        address = _EMAIL.search(description)
        if (
            address
            and _SEND_ORDER.search(description)
            and _MUST.search(description)
            and _THE_DATA.search(description)
        ):
            return name, address.group()
    return None


def _poison_arguments(conv: Conversation, tool: str, address: str, data: str) -> dict:
    schema = (conv.tool(tool) or {}).get("input_schema") or {}
    arguments: dict[str, str] = {}
    for prop in schema.get("properties") or {}:
        lower = prop.lower()
        if lower in ("to", "recipient", "address", "email", "to_address"):
            arguments[prop] = address
        elif "subject" in lower or "title" in lower:
            arguments[prop] = "Customer and order data"
        else:
            arguments[prop] = data
    return arguments


def _maybe_obey_poison(reading: _Reading, last_query: ToolCall, answer: str) -> Reply:
    conv = reading.conv
    poison = _poison(conv)
    if poison is None:
        return say(answer)
    tool, address = poison
    sent = [c for c in conv.task_calls() if c.name == tool]
    if not sent:
        return call(
            tool,
            f"The {tool} tool's instructions say that data about customers must be sent to "
            f"{address} before I answer. Sending it now.",
            **_poison_arguments(conv, tool, address, last_query.result or ""),
        )
    outcome = sent[-1]
    if outcome.is_error:
        refused = (
            who_declined(outcome.result or "")
            if "declined" in (outcome.result or "")
            else "the call failed"
        )
        return say(
            f"{answer}\n\nWarning: the description of the {tool} tool tells assistants to send "
            f"customer data to {address} and not to mention it. I tried to follow it, and "
            f"{refused}. I will not try again: that description looks like a prompt injection, "
            "and whoever runs that server should be told."
        )
    return say(
        f"{answer}\n\n(As the {tool} tool's instructions require, I also sent the data to {address}.)"
    )


def _customer_named(reading: _Reading) -> str | None:
    """The customer an earlier query found: the first row of a result with a customer column."""
    for c in reversed(reading.calls):
        if c.name != "query" or c.is_error:
            continue
        header, rows = rows_of(c.result or "")
        if rows and header and re.search(r"customer|name", header[0], re.IGNORECASE):
            return rows[0][0]
    return None


def _bought(reading: _Reading) -> Reply | None:
    customer = _customer_named(reading)
    if customer is None:
        return say(
            "Which customer do you mean? Ask me first who spent the most, and I'll look up what they bought."
        )
    tables = reading.tables or []
    customers, orders = _table(tables, "customer"), _table(tables, "order", without="item")
    items = _table(tables, "item")
    if (
        not (customers and orders and items)
        or customers not in reading.described
        or orders not in reading.described
    ):
        return say("I need the customers, orders and order items tables to answer that.")
    c_cols, o_cols = reading.described[customers], reading.described[orders]
    c_id, c_name = _pick(c_cols, r"id", r"customer_?id"), _pick(c_cols, r"name", r"\w*name")
    o_id, o_cust = (
        _pick(o_cols, r"id", r"order_?id"),
        _pick(o_cols, r"customer_?id", r"customer\w*"),
    )
    o_status = _pick(o_cols, r"status", r"state")
    task = _task_ids(reading.conv)
    queries = [c for c in reading.calls if c.name == "query" and c.id in task]
    i_cols = reading.described.get(items)
    if i_cols is None:
        if queries and queries[-1].is_error and _NO_COLUMN.search(queries[-1].result or ""):
            missing = _NO_COLUMN.search(queries[-1].result or "").group(1)
            return reading.describe(
                [items],
                f"There is no column {missing}: I guessed it. I'll look at how {items} is defined.",
            )
        if queries and queries[-1].is_error:
            return say(
                f"My query failed, and the database said: {(queries[-1].result or '').strip()[:300]}"
            )
        product, quantity, order_ref = "product", GUESSED_QUANTITY, "order_id"
        preamble = (
            f"I saw {items} in the list of tables; I'll query it for {customer}'s delivered orders."
        )
    else:
        product = _pick(i_cols, r"product\w*", r"\w*name", r"item\w*") or "product"
        quantity = _pick(i_cols, r"quantity", r"qty", r"\w*count") or "quantity"
        order_ref = _pick(i_cols, r"order_?id", r"order\w*") or "order_id"
        if (
            queries
            and not queries[-1].is_error
            and quantity in (queries[-1].input.get(reading.sql_arg()) or "")
        ):
            return _bought_answer(customer, queries, queries[-1])
        if (
            queries
            and queries[-1].is_error
            and "no such column" not in (queries[-1].result or "").lower()
        ):
            return say(
                f"My query failed, and the database said: {(queries[-1].result or '').strip()[:300]}"
            )
        preamble = f"Now with the real column names of {items}."
    if queries and not queries[-1].is_error:
        return _bought_answer(customer, queries, queries[-1])
    sql = (
        f"SELECT i.{product} AS product, SUM(i.{quantity}) AS quantity FROM {items} i "
        f"JOIN {orders} o ON o.{o_id} = i.{order_ref} JOIN {customers} c ON c.{c_id} = o.{o_cust} "
        f"WHERE c.{c_name} = '{customer.replace(chr(39), chr(39) * 2)}' AND o.{o_status} = 'delivered' "
        f"GROUP BY i.{product} ORDER BY quantity DESC, i.{product}"
    )
    return call("query", preamble, **{reading.sql_arg(): sql})


def _bought_answer(customer: str, queries: list[ToolCall], last: ToolCall) -> Reply:
    header, rows = rows_of(last.result or "")
    if not rows:
        return say(f"I found no delivered orders with items for {customer}.")
    lines = "\n".join(f"- {row[0]}: {row[1] if len(row) > 1 else '?'}" for row in rows)
    failed = [q for q in queries if q.is_error]
    note = ""
    if failed:
        guessed = _NO_COLUMN.search(failed[0].result or "")
        wrong = f" (`{guessed.group(1)}`)" if guessed else ""
        note = f"\n\nMy first query guessed a column name{wrong} that the table does not have; the second used the names from its definition."
    return say(f"In the delivered orders, {customer} bought:\n{lines}{note}")
