"""Clock times, percentages and counts written one way, so that the readers compare values,
not spellings: "4am", "04:00" and "4:00 a.m." are 4:00; "11:30 pm" and "23:30" are 23:30; "7
in the evening" is 19:00; "half five in the morning" is 5:30; "15 percent" is 15%; "4x per
week" is 4 times per week.

A time is rewritten only when its form says the hour of the day (a colon, am/pm, or "in the
morning / afternoon / evening"): a bare "ten" or "before 8" could be a count, an age or a
price, and stays as it is. Pure functions; :func:`clock_forms` is called by
:func:`~memmaint.maintenance.agents.coverage.canonical_forms`.
"""

from __future__ import annotations

import re

_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve")
_HOUR_WORDS = {w: i + 1 for i, w in enumerate(_WORDS)}
_HOUR = r"(\d{1,2}|" + "|".join(_WORDS) + r")"
_MERIDIEM = re.compile(r"\b(\d{1,2})(?::([0-5]\d))?\s*([ap])(?:m\b|\.m\.)", re.IGNORECASE)
_COLON = re.compile(r"(?<![\d:.])0?(\d{1,2}):([0-5]\d)(?![\d:])")
_PART_OF_DAY = re.compile(
    rf"\b(?:(half|quarter)\s+(?:past\s+)?)?{_HOUR}(?::([0-5]\d))?(?:\s+o'clock)?\s+"
    r"(?:in\s+the\s+(morning|afternoon|evening)|at\s+night)\b", re.IGNORECASE)
_HALF_PAST = re.compile(rf"\b(half|quarter)\s+past\s+{_HOUR}\b", re.IGNORECASE)
_PERCENT = re.compile(r"\b(\d+(?:\.\d+)?)\s*(?:percent|per\s+cent)\b", re.IGNORECASE)
_TIMES = re.compile(r"\b(\d{1,2})x(?=\s+(?:a|per|every|each)\b)", re.IGNORECASE)


def _hour(word: str) -> int:
    return int(word) if word.isdigit() else _HOUR_WORDS[word.lower()]


def _clock(hour: int, minute: int) -> str:
    return f"{hour}:{minute:02d}"


def _meridiem(m: re.Match[str]) -> str:
    hour, minute = int(m.group(1)), int(m.group(2) or 0)
    if not 1 <= hour <= 12:
        return m.group(0)
    hour = hour % 12 + (12 if m.group(3).lower() == "p" else 0)
    # "p.m." before a capital or at the end also ends its sentence
    ends = m.group(0).endswith(".") and re.match(r"\s+[A-Z]|\s*$", m.string[m.end():])
    return _clock(hour, minute) + ("." if ends else "")


def _part_of_day(m: re.Match[str]) -> str:
    fraction, word, minutes, part = m.group(1), m.group(2), m.group(3), m.group(4)
    hour = _hour(word)
    if not 1 <= hour <= 12:
        return m.group(0)
    minute = int(minutes or 0)
    if fraction:
        minute = 30 if fraction.lower() == "half" else 15
    if (part is None or part.lower() != "morning") and hour < 12:
        hour += 12  # afternoon, evening, at night
    return _clock(hour % 24, minute)


def _half_past(m: re.Match[str]) -> str:
    hour = _hour(m.group(2))
    if not 0 <= hour < 24:
        return m.group(0)
    return _clock(hour, 30 if m.group(1).lower() == "half" else 15)


def _colon(m: re.Match[str]) -> str:
    """A colon time as H:MM ("04:00" -> 4:00); a count past 23 ("30:00" minutes) as written."""
    hour = int(m.group(1))
    return _clock(hour, int(m.group(2))) if hour < 24 else m.group(0)


def clock_forms(text: str) -> str:
    """``text`` with its clock times as H:MM on a 24-hour clock, percentages as N% and "Nx a
    week" as N times a week (see the module docstring)."""
    text = _PART_OF_DAY.sub(_part_of_day, text)
    text = _MERIDIEM.sub(_meridiem, text)
    text = _HALF_PAST.sub(_half_past, text)
    text = _COLON.sub(_colon, text)
    text = _PERCENT.sub(r"\1%", text)
    return _TIMES.sub(r"\1 times", text)
