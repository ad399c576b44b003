"""How the LLM agent asks for JSON, and how it finds a way the server accepts.

OpenAI-compatible servers differ in the ``response_format`` they take:

- ``json_schema`` (OpenAI, vLLM, Ollama >= 0.5, llama.cpp's ``llama-server``):
  ``{"type": "json_schema", "json_schema": {"name": ..., "strict": true, "schema": ...}}``;
- ``json_object`` with the schema beside it (llama-cpp-python's server, which answers HTTP
  500 to ``json_schema``; llama.cpp's extension): ``{"type": "json_object", "schema": ...}``;
- ``none``: no ``response_format`` at all; the schema is written into the system prompt and
  the reply is parsed and validated like any other.

With ``llm.response_format = "auto"`` (the default) a :class:`FormatNegotiator` starts at
``json_schema``; a reply whose status and body say the format is not supported
(:func:`format_unsupported`) moves it to the next mode, and the call is made again at once
(never retried as a transient error). The mode that works is kept for the rest of the run
(every cluster after it starts there) and named in the plan report (``response_format``),
with each step down (``format_fallbacks``). A fixed ``response_format`` is never changed: a
server refusing it makes the endpoint unusable for the run, with the reason.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from typing import Any

from memmaint.maintenance.core.http import EndpointError

log = logging.getLogger(__name__)

#: The modes tried by ``auto``, in order.
MODES = ("json_schema", "json_object", "none")

#: Words in an error body that mean the server did not take the requested format.
_FORMAT_WORDS = ("response_format", "response format", "json_schema", "json_object",
                 "json schema", "grammar", "structured output", "guided_json", "schema")


def format_unsupported(exc: EndpointError) -> str | None:
    """Why an HTTP error is a refusal of the requested ``response_format``, or ``None``.

    A 4xx or 5xx (429 excepted: rate limits are transient) whose body names the format
    (``response_format``, ``json_schema``, ``schema``, ``grammar``...) is one: llama-cpp-python
    answers ``json_schema`` with a 500 naming the field, vLLM and OpenAI with a 400.
    """
    if exc.kind != "http" or exc.status is None or exc.status < 400 or exc.status == 429:
        return None
    body = (exc.detail or "").lower()
    if not any(w in body for w in _FORMAT_WORDS):
        return None
    return f"HTTP {exc.status}: the server does not take this response_format"


def response_format(mode: str, schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """The request's ``response_format`` for ``mode`` (``None`` for ``none``)."""
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {
            "name": "cluster_plan", "strict": True, "schema": dict(schema)}}
    if mode == "json_object":
        return {"type": "json_object", "schema": dict(schema)}
    return None


def schema_instructions(schema: Mapping[str, Any]) -> str:
    """What the system prompt adds when no ``response_format`` carries the schema."""
    return ("\n\nThe reply must be one JSON object valid against this JSON Schema, with no "
            "text before or after it:\n" + json.dumps(schema, separators=(",", ":")))


class FormatNegotiator:
    """The ``response_format`` mode of one run, shared by its concurrent calls.

    Args:
        setting: ``llm.response_format``: ``auto`` negotiates, anything else is fixed.
    """

    def __init__(self, setting: str = "auto") -> None:
        self.negotiates = setting == "auto"
        self._mode = MODES[0] if self.negotiates else setting
        self._lock = threading.Lock()
        self.fallbacks: list[dict[str, str]] = []

    @property
    def mode(self) -> str:
        """The mode the next call uses."""
        with self._lock:
            return self._mode

    def refused(self, mode: str, why: str) -> str | None:
        """``mode`` was refused for ``why``: the mode to try next, or ``None`` when there is
        none (a fixed setting, or ``none`` refused). Concurrent calls refused in the same
        mode step down once."""
        with self._lock:
            if not self.negotiates or mode not in MODES:
                return None
            if self._mode != mode:  # another call already stepped down
                return self._mode
            at = MODES.index(mode)
            if at + 1 >= len(MODES):
                return None
            self._mode = MODES[at + 1]
            self.fallbacks.append({"from": mode, "to": self._mode, "reason": why})
            log.warning("the LLM server refused response_format %s (%s); using %s for the "
                        "rest of the run", mode, why, self._mode)
            return self._mode

    def to_dict(self) -> dict[str, Any]:
        """The mode in use and the steps down, for the plan report."""
        with self._lock:
            return {"response_format": self._mode, "format_fallbacks": list(self.fallbacks)}


__all__ = [
    "MODES",
    "FormatNegotiator",
    "format_unsupported",
    "response_format",
    "schema_instructions",
]
