"""Vocabulary and grammar of the ``support`` pool: a customer-support and API-documentation
agent for a SaaS payments product, plus the organisational chatter such an agent picks up
(meetings, VPN certificates, catering).

Latent instructions are plan prices, rate limits, token lifetimes, payment retries and
settlement, refund rules, shipping times, webhook behaviour, escalation rules, account
operations and recurring office logistics. The words live in ``data/vocab_support.json``
(tables, families, style, noise); this module composes the subject spaces from its tables
(for example every region x carrier pairing), so there are well over a hundred distinct
subjects. A subject's varying details (a rate limit, a settlement time...) are picked from the
file's ``options`` by a stable hash of the subject.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

from memmaint.datasets import datafiles
from memmaint.datasets.grammar import Vocabulary

_DATA = datafiles.load("vocab_support")
_OPT = _DATA["options"]


def _crc(*parts: str) -> int:
    return zlib.crc32("|".join(parts).encode())


def _nth(options: Sequence[Any], h: int) -> Any:
    return options[h % len(options)]


def _rows(table: str, *fields: str) -> tuple[tuple[Any, ...], ...]:
    """A table of objects as tuples of ``fields``; the first field is an entity."""
    return tuple((datafiles.entity(row[fields[0]]), *(row[f] for f in fields[1:]))
                 for row in _DATA[table])


PLANS = _rows("plans", "plan", "price", "quota")
ENDPOINTS = datafiles.entities(_DATA["endpoints"])
UNITS: tuple[tuple[str, str], ...] = _DATA["units"]
TOKENS = _rows("tokens", "token", "ttl", "renew")
METHODS = datafiles.entities(_DATA["methods"])
PRODUCTS = datafiles.entities(_DATA["products"])
REGIONS = datafiles.entities(_DATA["regions"])
CARRIERS = datafiles.entities(_DATA["carriers"])
EVENTS = datafiles.entities(_DATA["events"])
ISSUES = datafiles.entities(_DATA["issues"])
TEAMS = datafiles.entities(_DATA["teams"])
MEETINGS = datafiles.entities(_DATA["meetings"])
ROOMS: tuple[str, ...] = _DATA["rooms"]
IT_THINGS = _rows("it_things", "thing", "every", "how")
CATERING = _rows("catering", "meal", "vendor", "by")
ACCOUNT_OPS = _rows("account_ops", "op", "when", "note")


# -- subject spaces -----------------------------------------------------------------------
def _price_subjects() -> list[dict[str, Any]]:
    return [{"plan": plan, "price": price, "quota": quota, "disc": 10 + (_crc(plan.name) % 3) * 5}
            for plan, price, quota in PLANS]


def _rate_subjects() -> list[dict[str, Any]]:
    out = []
    for ep in ENDPOINTS:
        for unit, short in UNITS:
            h = _crc(ep.name, unit)
            n = _nth(_OPT["rate_limit"]["n"][unit], h)
            out.append({"endpoint": ep, "n": n, "unit": (unit, short), "wait": 1 + h % 30})
    return out


def _token_subjects() -> list[dict[str, Any]]:
    return [{"token": t, "ttl": ttl, "renew": renew} for t, ttl, renew in TOKENS]


def _retry_subjects() -> list[dict[str, Any]]:
    opt = _OPT["payment_retry"]
    out = []
    for m in METHODS:
        h = _crc("retry", m.name)
        out.append({"method": m, "tries": 2 + h % 3, "days": _nth(opt["days"], h),
                    "after": _nth(opt["after"], h)})
    return out


def _settle_subjects() -> list[dict[str, Any]]:
    opt = _OPT["settlement"]
    out = []
    for m in METHODS:
        h = _crc("settle", m.name)
        out.append({"method": m, "settle": _nth(opt["settle"], h),
                    "currencies": _nth(opt["currencies"], h)})
    return out


def _refund_subjects() -> list[dict[str, Any]]:
    opt = _OPT["refund"]
    out = []
    for p in PRODUCTS:
        h = _crc("refund", p.name)
        out.append({"product": p, "days": _nth(opt["days"], h), "where": _nth(opt["where"], h),
                    "partial": _nth(opt["partial"], h)})
    return out


def _shipping_subjects() -> list[dict[str, Any]]:
    out = []
    for r in REGIONS:
        for c in CARRIERS:
            h = _crc(r.name, c.name)
            lo = 1 + h % 4
            out.append({"region": r, "carrier": c, "lo": lo, "hi": lo + 2 + h % 3,
                        "cutoff": _nth(_OPT["shipping"]["cutoff"], h)})
    return out


def _webhook_subjects() -> list[dict[str, Any]]:
    opt = _OPT["webhook"]
    out = []
    for e in EVENTS:
        h = _crc("hook", e.name)
        out.append({"event": e, "hours": _nth(opt["hours"], h),
                    "tolerance": _nth(opt["tolerance"], h)})
    return out


def _escalation_subjects() -> list[dict[str, Any]]:
    opt = _OPT["escalation"]
    out = []
    for issue in ISSUES:
        for team in TEAMS:
            h = _crc(issue.name, team.name)
            if h % 3:  # not every pairing makes sense; keep a third of them
                continue
            out.append({"issue": issue, "team": team, "sla": _nth(opt["sla"], h),
                        "cond": _nth(opt["cond"], h >> 3)})
    return out


def _account_subjects() -> list[dict[str, Any]]:
    return [{"op": op, "when": when, "note": note} for op, when, note in ACCOUNT_OPS]


def _meeting_subjects() -> list[dict[str, Any]]:
    opt = _OPT["meeting"]
    out = []
    for m in MEETINGS:
        h = _crc("meet", m.name)
        out.append({"meeting": m, "day": _nth(opt["day"], h), "time": _nth(opt["time"], h),
                    "room": _nth(ROOMS, h >> 4)})
    return out


def _it_subjects() -> list[dict[str, Any]]:
    return [{"thing": t, "every": every, "how": how} for t, every, how in IT_THINGS]


def _catering_subjects() -> list[dict[str, Any]]:
    return [{"meal": m, "vendor": v, "by": by} for m, v, by in CATERING]


# -- families, voice, noise ---------------------------------------------------------------
SUBJECTS = {
    "plan_price": _price_subjects, "rate_limit": _rate_subjects, "token_ttl": _token_subjects,
    "payment_retry": _retry_subjects, "settlement": _settle_subjects,
    "refund": _refund_subjects, "shipping": _shipping_subjects, "webhook": _webhook_subjects,
    "escalation": _escalation_subjects, "account_op": _account_subjects,
    "meeting": _meeting_subjects, "it": _it_subjects, "catering": _catering_subjects,
}
FAMILIES = datafiles.families(_DATA["families"], SUBJECTS)
STYLE = datafiles.style(_DATA["style"])
NOISE: tuple[str, ...] = _DATA["noise"]
NOISE_FILLERS: dict[str, tuple[str, ...]] = {**STYLE.fillers, **_DATA["noise_fillers"]}

VOCABULARY = Vocabulary("support", FAMILIES, STYLE, NOISE, NOISE_FILLERS)
