"""RFC 3339 times as the plugin writes them, parsed without Spark."""
from __future__ import annotations

import datetime as dt
import re

_FRACTION = re.compile(r"(\.\d+)")


def parse(text: str | None) -> dt.datetime | None:
    """An aware UTC datetime, or None for anything unparseable.

    datetime.fromisoformat takes at most 6 fractional digits; RFC 3339 allows
    more, so the fraction is cut to microseconds first.
    """
    if not text:
        return None
    text = _FRACTION.sub(lambda m: m.group(1)[:7], text.strip(), count=1)
    try:
        value = dt.datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return None
    if value.tzinfo is None:  # no offset given: the schema says UTC
        value = value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)
