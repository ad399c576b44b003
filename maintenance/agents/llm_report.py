"""What the LLM backend did in a run, in numbers, and when that fails the run.

The LLM agent's plan report (``plan.report``) accounts for every cluster: planned by the
LLM (its plan applied or dry-run), *rejected* (every reply invalid, so the rules' plan
stands), *call failed* (HTTP errors, timeouts), *endpoint unusable* (401/403/404 or a
refused format stopped the calls), past the run's *deadline*, put back by the run's *merge
cap*, or *too large* (over ``llm.max_cluster_size``, planned by the rules). :func:`summary`
turns that into the run report's ``llm`` entry and :func:`summary_line` into the one line
``memmaint run`` prints on stderr when anything went to the rules.

:func:`check_fallback` applies ``job.llm_fallback``: with ``rules`` (the default) clusters
the LLM could not plan keep the rules' plan, but a run whose endpoint answered no call at
all (unreachable, refused key, every call failed) raises :class:`LLMFallbackError`, so cron
sees a failed run (exit 1, one line, nothing applied) rather than a quiet rule-based run;
with ``fail`` any cluster sent to the rules by a failure raises it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memmaint.maintenance.core.errors import MemmaintError

#: Why a cluster the LLM was given ended with the rules' plan.
CAUSES = ("rejected", "call_failed", "endpoint_unusable", "deadline", "merge_cap")


class LLMFallbackError(MemmaintError):
    """The run's LLM planning fell back to the rules where ``job.llm_fallback`` forbids it."""


def summary(report: Mapping[str, Any]) -> dict[str, Any]:
    """The run report's ``llm`` entry from an LLM plan's report (``{}`` for other plans)."""
    if "llm_clusters" not in report:
        return {}
    usage = dict(report.get("usage") or {})
    causes = {c: 0 for c in CAUSES}
    for f in report.get("fallbacks") or ():
        cause = f.get("cause", "rejected") if isinstance(f, Mapping) else "rejected"
        causes[cause] = causes.get(cause, 0) + 1
    sent = int(report.get("llm_clusters", 0))
    return {
        "model": report.get("model"), "response_format": report.get("response_format"),
        "format_fallbacks": list(report.get("format_fallbacks") or ()),
        "clusters_sent": sent, "planned_by_llm": sent - sum(causes.values()),
        "fallbacks": causes, "too_large": int(report.get("too_large_for_llm", 0)),
        "max_cluster_size": report.get("max_cluster_size"),
        "replies": dict(report.get("replies") or {}), **usage,
    }


def summary_line(llm: Mapping[str, Any]) -> str | None:
    """One line saying how many clusters went to the rules and why, or ``None`` when the
    LLM planned every cluster it was meant to."""
    if not llm:
        return None
    causes = {k: v for k, v in (llm.get("fallbacks") or {}).items() if v}
    big = int(llm.get("too_large") or 0)
    if not causes and not big:
        return None
    sent = int(llm.get("clusters_sent") or 0)
    parts = []
    if causes:
        why = ", ".join(f"{n} {c.replace('_', ' ')}" for c, n in causes.items())
        parts.append(f"{sum(causes.values())} of {sent} clusters sent to the LLM fell back "
                     f"to the rules ({why})")
    if big:
        parts.append(f"{big} cluster{'s' if big != 1 else ''} over llm.max_cluster_size "
                     f"({llm.get('max_cluster_size')}) planned by the rules")
    replies = llm.get("replies") or {}
    return (f"LLM: {'; '.join(parts)}; {llm.get('llm_calls', 0)} calls, "
            f"{int(replies.get('invalid', 0))} invalid replies, "
            f"{llm.get('tokens_in', 0)}+{llm.get('tokens_out', 0)} tokens")


def cost_line(usage: Mapping[str, Any]) -> str | None:
    """What the LLM backend spent on a plan, in one line, per namespace (``None`` when it
    made no call): ``LLM cost: 14 calls, 9120+2210 tokens (a: 9 calls, 6000+1500; b: ...)``.
    A dry run makes the same calls as the real run would, so this is what applying costs."""
    calls = int(usage.get("llm_calls") or 0)
    if not calls:
        return None
    per = usage.get("by_namespace") or {}
    parts = [f"{ns}: {int(v.get('llm_calls', 0))} calls, {int(v.get('tokens_in', 0))}+"
             f"{int(v.get('tokens_out', 0))}" for ns, v in sorted(per.items())]
    estimated = " (estimated)" if usage.get("tokens_estimated") else ""
    return (f"LLM cost: {calls} calls, {int(usage.get('tokens_in') or 0)}+"
            f"{int(usage.get('tokens_out') or 0)} tokens{estimated}"
            + (f" ({'; '.join(parts)})" if parts else ""))


def check_fallback(report: Mapping[str, Any], policy: str, url: str) -> None:
    """Raise :class:`LLMFallbackError` when ``job.llm_fallback`` (``policy``) forbids what
    the LLM plan's ``report`` shows (see the module's docstring)."""
    llm = summary(report)
    if not llm or not llm["clusters_sent"]:
        return
    causes = llm["fallbacks"]
    failed = sum(causes.values())
    first = next((f.get("reason", "") for f in report.get("fallbacks") or ()
                  if isinstance(f, Mapping) and f.get("cause") != "rejected"), "")
    if causes["endpoint_unusable"] or (llm["llm_calls"] == 0 and failed):
        raise LLMFallbackError(
            f"the LLM endpoint {url} answered no usable call ({first or 'no reply'}); "
            f"{llm['clusters_sent']} clusters could not be planned by it, nothing applied "
            f"(job.llm_fallback = {policy})")
    if policy == "fail" and failed:
        why = ", ".join(f"{n} {c.replace('_', ' ')}" for c, n in causes.items() if n)
        raise LLMFallbackError(
            f"{failed} of {llm['clusters_sent']} clusters fell back to the rules ({why}); "
            f"job.llm_fallback = fail, so nothing is applied"
            + (f": {first}" if first else ""))


__all__ = ["CAUSES", "LLMFallbackError", "check_fallback", "summary", "summary_line"]
