"""Relative times that name a whole period ("this spring", "this year") and still mean the
same period on a later day.

A merged memory is dated like its newest source, so a source's "last week" may only join
sources of its own day (:func:`~memmaint.maintenance.agents.coverage.same_anchor`). "This
spring" written on 27 January and on 6 March names one spring, the one that holds (or, before
it starts, follows) the day it was written: re-dating it to 6 March moves nothing.
:func:`same_period` tells when every relative time of a text is of that kind. Pure functions.
"""

from __future__ import annotations

import re
from datetime import date

#: Months of each season (northern hemisphere; winter runs into the next year).
_SEASONS = {"spring": (3, 4, 5), "summer": (6, 7, 8), "autumn": (9, 10, 11),
            "fall": (9, 10, 11), "winter": (12, 1, 2)}
_THIS = re.compile(r"\bthis\s+(year|month|week|spring|summer|autumn|fall|winter)\b",
                   re.IGNORECASE)


def _season(day: date, season: str) -> tuple[int, int]:
    """The (year, first month) of the ``season`` that holds ``day``, or else comes next;
    a winter is named by the year its December falls in."""
    months = _SEASONS[season]
    year = day.year - (1 if season == "winter" and day.month <= 2 else 0)
    if day.month in months:
        return year, months[0]
    first = months[0]
    return (year if day.month < first else year + 1), first


def _period(day: date, unit: str) -> tuple[int, ...]:
    if unit == "year":
        return (day.year,)
    if unit == "month":
        return day.year, day.month
    if unit == "week":
        return day.isocalendar()[:2]
    return _season(day, unit)


def same_period(relative: list[str], written: date, newest: date) -> bool:
    """Whether every one of ``relative`` (a text's relative times) is "this <year, month,
    week or season>" and names the same period read on ``newest`` as on ``written``."""
    if not relative:
        return True
    units = [_THIS.fullmatch(r.strip()) for r in relative]
    return all(m is not None for m in units) and all(
        _period(written, m.group(1).lower()) == _period(newest, m.group(1).lower())
        for m in units if m is not None)
