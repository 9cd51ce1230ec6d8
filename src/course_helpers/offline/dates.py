"""Course machinery (offline course model): a date the person states, as written or in ISO form.

    date_in("Book a trip to Rome on 12 May.")              # "12 May"
    iso_date("Book a trip to Rome on 12 May.")             # the next 12 May from today
    iso_date("on May 12th, 2027")                          # "2027-05-12"

A date without a year is the next such day: what a person booking a trip means. Both the
forced fill (`filling.py`) and a generated tool's call (`request_values.py`) read dates here.
"""

from __future__ import annotations

import datetime
import re

_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
_MONTH = r"(?:" + "|".join(m[:3] + f"(?:{m[3:]})?" for m in _MONTHS) + r"|Sept)\.?"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(\d{4}))?"
# "12 May", "12th of May 2027", "May 12", "May 12th, 2027", or an ISO date "2027-05-12".
DATE = re.compile(
    rf"\b(?:({_DAY})\s+(?:of\s+)?({_MONTH}){_YEAR}|({_MONTH})\s+({_DAY}){_YEAR})(?!\w)"
    r"|\b(\d{4})-(\d{2})-(\d{2})\b",
    re.IGNORECASE,
)


def date_in(text: str) -> str | None:
    """The first date the text states, as it writes it ("12 May", "May 12, 2027")."""
    match = DATE.search(text)
    return match.group(0).strip().rstrip(",.") if match else None


def iso_date(text: str, today: datetime.date | None = None) -> str | None:
    """The first date the text states in ISO form; without a year, the next one from today."""
    match = DATE.search(text)
    if match is None:
        return None
    day1, month1, year1, month2, day2, year2, *ymd = match.groups()
    if ymd[0]:
        return match.group(0)  # already ISO
    day = int(re.match(r"\d+", day1 or day2).group(0))
    name = (month1 or month2).lower()
    month = next(i for i, m in enumerate(_MONTHS, 1) if m.lower().startswith(name[:3]))
    today = today or datetime.date.today()
    year = year1 or year2
    try:
        date = datetime.date(int(year) if year else today.year, month, day)
        if not year and date < today:
            date = datetime.date(today.year + 1, month, day)
    except ValueError:
        return None  # "31 February"
    return date.isoformat()
