"""The terminal review (over SSH): one prompt per action, ``y``/``n``/``a``/``q``.

``y`` approves the action, ``n`` rejects it, ``a`` approves it and every action after it,
``q`` stops (the actions not reached stay undecided, which ``apply`` does not apply).
Memory texts are shown through :func:`~memmaint.maintenance.core.text.for_terminal`
(control characters made visible: a memory cannot move the cursor or recolour the screen).
"""

from __future__ import annotations

from collections.abc import Callable

from memmaint.maintenance.core.text import for_terminal
from memmaint.maintenance.review.planfile import Decisions, PlanFile, review_items

ANSWERS = ("y", "n", "a", "q")


def _show(item: dict[str, object], n: int, total: int, echo: Callable[[str], None]) -> None:
    echo("")
    echo(f"[{n}/{total}] {item['key']}: {item['type']} by {item['agent']}")
    echo(f"  {for_terminal(str(item['summary']))}")
    echo(f"  reason: {for_terminal(str(item['reason']))}")
    for side in ("before", "after"):
        rows = item[side]
        assert isinstance(rows, list)
        for row in rows:
            echo(f"  {side:6} {for_terminal(row['id'])} ({row['role']}): "
                 f"{for_terminal(row['text'])}")


def terminal_review(pf: PlanFile, ask: Callable[[str], str],
                    echo: Callable[[str], None]) -> Decisions:
    """Ask about every action of ``pf``; ``ask(prompt)`` returns the answer typed."""
    items = review_items(pf)
    approved: list[str] = []
    rejected: list[str] = []
    approve_rest = False
    for n, item in enumerate(items, 1):
        key = str(item["key"])
        if approve_rest:
            approved.append(key)
            continue
        _show(item, n, len(items), echo)
        while True:
            answer = ask("approve? [y]es, [n]o, [a]ll remaining, [q]uit").strip().lower()[:1]
            if answer in ANSWERS:
                break
            echo("  answer y, n, a or q")
        if answer == "q":
            break
        if answer == "n":
            rejected.append(key)
        else:
            approved.append(key)
            approve_rest = answer == "a"
    undecided = len(items) - len(approved) - len(rejected)
    echo(f"{len(approved)} approved, {len(rejected)} rejected, {undecided} undecided")
    return Decisions.of(pf, approved, rejected)
