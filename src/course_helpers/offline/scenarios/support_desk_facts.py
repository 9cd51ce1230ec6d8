"""Course machinery (offline course model): facts of notebook 09's support desk recognised by
their content, whatever heading stands over them (or none): JSON of order facts (an object with
`orders`, `refunds`, `customer`, ..., an order record, a list of them), or an order record
written as `key: value` lines ("order_id: A1001", "Status: shipped", "- Items: glass teapot").
An order record is one by what it holds: an order id, and its status or its items, among at
least three fields an order has. This module registers no scenario; `support_desk_request`
finds the facts in a request's texts with it."""

from __future__ import annotations

import json
import re

_FACT_KEYS = {
    *("orders", "order", "refunds", "refused", "customer", "customer_not_found"),
    *("articles", "not_found", "searched_orders"),
}
# A line "key: value", maybe as a list item or with the key in bold.
_KEY_VALUE = re.compile(
    r"^[ \t]*(?:[-*•][ \t]+)?(?:\*\*|__)?([A-Za-z][A-Za-z _-]{0,30}?)(?:\*\*|__)?[ \t]*:"
    r"(?:\*\*|__)?[ \t]*(\S[^\n]*?)[ \t]*$"
)
# The fields of an order record, by the names a program may give them.
_ORDER_FIELDS = {
    "order_id": ("order_id", "order", "order_number", "order_no", "id", "number"),
    "items": ("items", "item", "products", "product", "contents"),
    "status": ("status", "state", "order_status"),
    "placed": ("placed", "placed_on", "date", "order_date", "ordered", "ordered_on"),
    "total": ("total", "amount", "price", "total_eur"),
    "carrier": ("carrier", "shipped_with", "courier"),
    "tracking": ("tracking", "tracking_number", "tracking_no", "tracking_id"),
    "eta": ("eta", "expected", "expected_on", "expected_delivery", "arrives"),
    "delivered_days_ago": ("delivered_days_ago", "days_since_delivery"),
    "replaced_by": ("replaced_by", "replacement", "replacement_order"),
    "refunded": ("refunded",),
}
_FIELD_OF = {name: field for field, names in _ORDER_FIELDS.items() for name in names}
_ORDER_ID = re.compile(r"^#?\s*([Aa]\d{4})\b")


def is_order(value: object) -> bool:
    return (
        isinstance(value, dict) and "order_id" in value and ("status" in value or "items" in value)
    )


def as_facts(value: object) -> dict | None:
    """JSON that holds order facts, as `Known.add_facts` reads them, or None."""
    if isinstance(value, list) and value and all(is_order(v) for v in value):
        return {"orders": value}
    if is_order(value):
        return {"orders": [value]}
    if isinstance(value, dict) and _FACT_KEYS & set(value):
        facts = dict(value)
        if is_order(facts.get("order")):
            facts["orders"] = [*(facts.get("orders") or []), facts.pop("order")]
        return facts
    return None


def leading_json(text: str) -> tuple[object, str] | None:
    """The JSON value a text starts with and the text after it, or None."""
    stripped = text.lstrip()
    if stripped[:1] not in ("{", "["):
        return None
    try:
        value, end = json.JSONDecoder().raw_decode(stripped)
    except ValueError:
        return None
    return value, stripped[end:]


def _value(field: str, said: str) -> object:
    """A record's value as the JSON of the same fact would give it."""
    if field == "order_id" or field == "replaced_by":
        found = _ORDER_ID.match(said)
        return found.group(1).upper() if found else said
    if field == "items":
        return [i.strip() for i in re.split(r"[;,](?![^()]*\))", said) if i.strip()]
    if field in ("total", "delivered_days_ago"):
        number = re.search(r"\d+(?:\.\d+)?", said)
        if number is None:
            return said
        return float(number.group(0)) if field == "total" else int(float(number.group(0)))
    if field == "refunded":
        return said.lower() in ("yes", "true")
    return said


def _record(lines: list[tuple[str, str]]) -> dict | None:
    """The order a run of `key: value` lines records, or None."""
    order: dict = {}
    for key, said in lines:
        field = _FIELD_OF.get(re.sub(r"[ -]+", "_", key.strip().lower()))
        if field and field not in order:
            order[field] = _value(field, said)
    known_id = isinstance(order.get("order_id"), str) and re.fullmatch(r"A\d{4}", order["order_id"])
    return order if known_id and is_order(order) and len(order) >= 3 else None


def record_spans(text: str) -> list[tuple[int, int, dict]]:
    """Where each order record written as `key: value` lines starts and ends in a text, with its
    facts. A record ends at a line that is not `key: value`, at a blank line, or where its
    order id is given again (the next order's)."""
    spans: list[tuple[int, int, dict]] = []
    run: list[tuple[str, str]] = []
    begin = end = 0

    def close() -> None:
        order = _record(run)
        if order is not None:
            spans.append((begin, end, {"orders": [order]}))
        run.clear()

    offset = 0
    for line in text.splitlines(keepends=True):
        found = _KEY_VALUE.match(line.rstrip("\r\n"))
        field = (
            _FIELD_OF.get(re.sub(r"[ -]+", "_", found.group(1).strip().lower())) if found else None
        )
        repeated = field == "order_id" and any(
            _FIELD_OF.get(re.sub(r"[ -]+", "_", k.strip().lower())) == "order_id" for k, _ in run
        )
        if field is None or repeated:  # a line of something else ends the record
            close()
        if field is not None:
            if not run:
                begin = offset
            run.append((found.group(1), found.group(2)))
            end = offset + len(line.rstrip("\r\n"))
        offset += len(line)
    close()
    return spans


def facts_spans(text: str) -> list[tuple[int, int, dict]]:
    """Where each set of facts in a text starts and ends, with its facts: JSON of facts (JSON
    inside another JSON value is part of it) and order records as `key: value` lines."""
    spans, start = [], 0
    while (found := re.search(r"[{\[]", text[start:])) is not None:
        begin = start + found.start()
        try:
            value, end = json.JSONDecoder().raw_decode(text, begin)
        except ValueError:
            start = begin + 1
            continue
        facts = as_facts(value)
        spans += [(begin, end, facts)] if facts is not None else []
        start = end
    inside = [(b, e) for b, e, _ in spans]
    records = [s for s in record_spans(text) if not any(b <= s[0] < e for b, e in inside)]
    return sorted(spans + records, key=lambda span: span[0])


def leading_facts(text: str) -> tuple[dict, str] | None:
    """The facts a text starts with (JSON of facts, or order records as `key: value` lines one
    after another) and the text after them, or None."""
    found = leading_json(text)
    if found is not None:
        facts = as_facts(found[0])
        return (facts, found[1]) if facts is not None else None
    stripped, orders, position = text.lstrip(), [], 0
    for begin, end, facts in record_spans(stripped):
        if stripped[position:begin].strip():
            break
        orders += facts["orders"]
        position = end
    return ({"orders": orders}, stripped[position:]) if orders else None
