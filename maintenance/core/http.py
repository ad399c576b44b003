"""One small HTTP client for OpenAI-compatible endpoints (chat completions, embeddings).

Stdlib only (``urllib``). Both the LLM agent's :class:`~memmaint.maintenance.agents.llm.
ChatClient` and the ``openai`` embedder use :class:`JSONClient`, so they share one retry and
deadline policy (:class:`RetryPolicy`):

- a JSON ``POST`` with ``Authorization: Bearer <key>`` when the environment variable
  ``api_key_env`` is set (no header otherwise, for local servers). The key is replaced by
  ``***`` in every message this module produces, including echoed server bodies;
- HTTP 429 and 5xx, timeouts and connection errors are retried ``retries`` times; the n-th
  retry waits ``backoff_s * 2**(n-1)``, or the server's ``Retry-After`` (seconds or an HTTP
  date) when that is longer, never more than ``max_wait_s`` per wait;
- ``timeout_s`` bounds each attempt as a whole (connect, headers and the body), not each
  socket read, so a server dripping a byte at a time cannot stretch an attempt;
- ``deadline_s`` bounds the whole call: every attempt, every backoff wait and every read.
  The body is read in chunks, the deadline is checked between chunks, and the socket timeout
  is set to the time left before each read. A wait that would end past the deadline is not
  started: the call fails at once with the last error. By default the deadline is what the
  retries would take if every attempt used its whole timeout and every wait its nominal
  backoff, so it only cuts in on servers that misbehave;
- a reply body over ``max_reply_bytes`` (4 MiB by default) is refused with a clear error,
  from its ``Content-Length`` when it sends one, else as soon as the bytes read pass it.

Failures raise :class:`EndpointError`, which carries the status, the reason and the number
of retries made, so callers can word their own messages.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from memmaint.maintenance.core.errors import MemmaintError

#: Default cap on the bytes of one reply.
DEFAULT_MAX_REPLY_BYTES = 4 << 20
_CHUNK = 64 << 10
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class RetryPolicy:
    """How a call retries and how long it may take.

    Attributes:
        retries: retries after the first attempt (on 429, 5xx, timeouts, connection errors).
        backoff_s: the first wait; doubled for each further retry.
        max_wait_s: cap on one wait, ``Retry-After`` included.
        timeout_s: cap on one attempt (connect, headers and body together).
        deadline_s: cap on the whole call; ``None`` means :meth:`default_deadline`.
        max_reply_bytes: the largest reply body accepted.
    """

    retries: int = 2
    backoff_s: float = 0.25
    max_wait_s: float = 60.0
    timeout_s: float = 60.0
    deadline_s: float | None = None
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES

    def __post_init__(self) -> None:
        if self.retries < 0 or self.backoff_s < 0 or self.max_wait_s < 0:
            raise ValueError("retries, backoff_s and max_wait_s must be >= 0")
        if self.timeout_s <= 0 or (self.deadline_s is not None and self.deadline_s <= 0):
            raise ValueError("timeout_s and deadline_s must be > 0")
        if self.max_reply_bytes < 1:
            raise ValueError("max_reply_bytes must be >= 1")

    def backoff(self, retry: int) -> float:
        """The nominal wait before retry number ``retry`` (1-based)."""
        return min(self.backoff_s * 2 ** (retry - 1), self.max_wait_s)

    def wait(self, retry: int, retry_after: str | None = None) -> float:
        """The wait before retry ``retry``: the backoff, or ``Retry-After`` when longer."""
        delay = self.backoff(retry)
        after = parse_retry_after(retry_after)
        if after is not None:
            delay = max(delay, after)
        return min(delay, self.max_wait_s)

    def default_deadline(self) -> float:
        """Every attempt at its full timeout plus every nominal backoff wait."""
        return (self.retries + 1) * self.timeout_s + sum(
            self.backoff(n) for n in range(1, self.retries + 1))

    @property
    def deadline(self) -> float:
        return self.deadline_s if self.deadline_s is not None else self.default_deadline()


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date), or ``None``."""
    if value is None or not str(value).strip():
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(str(value))
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


class EndpointError(MemmaintError):
    """A call to an endpoint failed (after any retries).

    Attributes:
        url: the endpoint.
        kind: ``"http"`` (an error status), ``"timeout"`` (an attempt ran past
            ``timeout_s``), ``"unreachable"`` (connection or protocol error), ``"deadline"``
            (the call ran past ``deadline_s``) or ``"too_large"`` (the reply passed
            ``max_reply_bytes``).
        status: the HTTP status for ``kind == "http"``.
        reason: what went wrong, in words (key redacted).
        detail: the start of the error body for ``kind == "http"`` (key redacted).
        retries: retries made before giving up.
        retryable: whether the last failure was of a retryable kind.
        retry_after: the ``Retry-After`` header of an HTTP error, if any.
        exc_type: the name of the underlying exception type (``TimeoutError``...).
        note: why retrying stopped early, if it did (``""`` otherwise).
    """

    def __init__(self, message: str, *, url: str, kind: str, status: int | None = None,
                 reason: str = "", detail: str = "", retries: int = 0,
                 retryable: bool = False, exc_type: str = "",
                 retry_after: str | None = None, note: str = "") -> None:
        super().__init__(message)
        self.url = url
        self.kind = kind
        self.status = status
        self.reason = reason
        self.detail = detail
        self.retries = retries
        self.retryable = retryable
        self.retry_after = retry_after
        self.note = note
        self.exc_type = exc_type or ("HTTPError" if kind == "http" else "TimeoutError"
                                     if kind in ("timeout", "deadline") else "OSError")


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` replaced by ``***``."""
    return text.replace(secret, "***") if secret else text


class _Timeout(Exception):
    """An attempt passed its own end (internal)."""


class JSONClient:
    """``POST`` JSON to one URL with :class:`RetryPolicy`; returns the reply body's bytes.

    Args:
        url: the full endpoint URL (``http://`` or ``https://``).
        api_key_env: the environment variable holding the bearer key (read at each call;
            ``None`` or unset: no ``Authorization`` header).
        policy: retries, timeouts, deadline, reply cap.
        sleep: the wait function (tests pass a recorder).
        on_retry: called before each retry wait (usage counters).
        clock: monotonic seconds (tests may pass a fake).
        permanent: called with an HTTP :class:`EndpointError` of a retryable status (429,
            5xx); when it returns a reason, the error is raised at once with that reason as
            its ``note`` and ``retryable`` false (a server that answers 500 to a request it
            will never accept, such as an unsupported ``response_format``).
    """

    def __init__(self, url: str, *, api_key_env: str | None = None,
                 policy: RetryPolicy | None = None,
                 sleep: Callable[[float], Any] = time.sleep,
                 on_retry: Callable[[], Any] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 permanent: Callable[[EndpointError], str | None] | None = None) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"{url!r} is not an http(s) URL")
        self.url = url
        self.api_key_env = api_key_env
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._on_retry = on_retry
        self._clock = clock
        self._permanent = permanent
        host = urllib.parse.urlsplit(url).hostname or ""
        # a loopback server is never reached through a proxy from the environment
        handlers: list[Any] = [urllib.request.ProxyHandler({})] if host in _LOOPBACK else []
        self._opener = urllib.request.build_opener(*handlers)

    def __repr__(self) -> str:
        return f"JSONClient({self.url!r})"

    def _key(self) -> str | None:
        return (os.environ.get(self.api_key_env) or None) if self.api_key_env else None

    def post(self, payload: Mapping[str, Any], deadline_s: float | None = None) -> bytes:
        """The reply body for ``payload``; raises :class:`EndpointError`. ``deadline_s``
        shortens this call's deadline (the policy's still applies when it is shorter)."""
        data = json.dumps(payload).encode("utf-8")
        key = self._key()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        policy = self.policy
        call_end = self._clock() + (policy.deadline if deadline_s is None
                                    else min(policy.deadline, deadline_s))
        retry = 0
        while True:
            try:
                return self._attempt(data, headers, key, call_end, retry)
            except EndpointError as exc:
                why = (self._permanent(exc) if self._permanent is not None
                       and exc.kind == "http" and exc.retryable else None)
                if why:
                    exc.retryable = False
                    exc.note = why
                    raise
                if not exc.retryable or retry >= policy.retries:
                    raise
                delay = policy.wait(retry + 1, exc.retry_after)
                if self._clock() + delay >= call_end:
                    note = (f"no retry: waiting {delay:g} s more would pass the call's "
                            f"{policy.deadline:g} s deadline")
                    raise self._error(
                        f"{exc} ({note})", key, kind=exc.kind, status=exc.status,
                        reason=exc.reason, detail=exc.detail, retries=retry,
                        exc_type=exc.exc_type, note=note) from None
                retry += 1
                if self._on_retry is not None:
                    self._on_retry()
                self._sleep(delay)

    # -- one attempt ---------------------------------------------------------------------

    def _attempt(self, data: bytes, headers: dict[str, str], key: str | None,
                 call_end: float, retry: int) -> bytes:
        now = self._clock()
        if now >= call_end:
            raise self._deadline(key, retry)
        attempt_end = min(call_end, now + self.policy.timeout_s)
        request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            with self._opener.open(request, timeout=max(attempt_end - now, 1e-3)) as resp:
                cap = self.policy.max_reply_bytes
                length = str(resp.headers.get("Content-Length") or "").strip()
                if length.isdigit() and int(length) > cap:
                    raise self._too_large(f"announces {int(length)} bytes", key, retry)
                body = self._body(resp, attempt_end, cap)
                if body is None:
                    raise self._too_large(f"sent more than {cap} bytes", key, retry)
                return body
        except urllib.error.HTTPError as exc:
            try:
                raw = self._body(exc.fp, attempt_end, 300, truncate=True) or b""
            except (_Timeout, OSError, http.client.HTTPException, ValueError, AttributeError):
                raw = b""
            finally:
                exc.close()
            raise self._error(
                f"HTTP {exc.code} from {self.url}", key, kind="http", status=exc.code,
                reason=f"HTTP {exc.code}", detail=raw.decode("utf-8", "replace").strip(),
                retries=retry, retryable=exc.code == 429 or 500 <= exc.code <= 599,
                retry_after=exc.headers.get("Retry-After") if exc.headers else None,
            ) from None
        except EndpointError:
            raise
        except (_Timeout, TimeoutError) as exc:
            raise self._timed_out(attempt_end, call_end, key, retry, exc) from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise self._timed_out(attempt_end, call_end, key, retry, exc.reason) from None
            raise self._unreachable(exc.reason, key, retry) from None
        except (OSError, http.client.HTTPException) as exc:
            raise self._unreachable(exc, key, retry) from None

    def _body(self, resp: Any, attempt_end: float, cap: int,
              truncate: bool = False) -> bytes | None:
        """The body read in chunks, checking the attempt's end between chunks (each read
        waits at most the time left); past ``cap`` bytes: ``None``, or the first ``cap``
        bytes when ``truncate``."""
        chunks: list[bytes] = []
        total = 0
        while True:
            left = attempt_end - self._clock()
            if left <= 0:
                raise _Timeout()
            _set_timeout(resp, left)
            chunk = resp.read1(min(_CHUNK, cap + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:
                return b"".join(chunks)[:cap] if truncate else None

    # -- errors --------------------------------------------------------------------------

    def _error(self, message: str, key: str | None, **fields: Any) -> EndpointError:
        for name in ("reason", "detail"):
            if name in fields:
                fields[name] = redact(str(fields[name]), key)
        return EndpointError(redact(message, key), url=self.url, **fields)

    def _deadline(self, key: str | None, retry: int) -> EndpointError:
        reason = f"timed out: the call's {self.policy.deadline:g} s deadline passed"
        return self._error(f"{self.url} {reason} (after {retry} retries)", key,
                           kind="deadline", reason=reason, retries=retry)

    def _timed_out(self, attempt_end: float, call_end: float, key: str | None, retry: int,
                   exc: BaseException) -> EndpointError:
        if attempt_end >= call_end:  # the call's deadline, not the attempt's timeout
            return self._deadline(key, retry)
        reason = f"timed out after {self.policy.timeout_s:g} s"
        return self._error(f"{self.url} {reason}", key, kind="timeout", reason=reason,
                           retries=retry, retryable=True, exc_type=type(exc).__name__
                           if isinstance(exc, TimeoutError) else "TimeoutError")

    def _unreachable(self, reason: Any, key: str | None, retry: int) -> EndpointError:
        return self._error(f"cannot reach {self.url}: {reason}", key, kind="unreachable",
                           reason=str(reason), retries=retry, retryable=True,
                           exc_type=type(reason).__name__ if isinstance(reason, BaseException)
                           else "URLError")

    def _too_large(self, what: str, key: str | None, retry: int) -> EndpointError:
        cap = self.policy.max_reply_bytes
        reason = (f"the reply {what}, over the {_size(cap)} limit on a reply "
                  "(max_reply_bytes)")
        return self._error(f"{self.url}: {reason}", key, kind="too_large", reason=reason,
                           retries=retry)


def _size(n: int) -> str:
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10} KiB"
    return f"{n} bytes"


def _set_timeout(resp: Any, seconds: float) -> None:
    """Set the socket timeout under an ``http.client`` response (best effort: the
    chunk-wise deadline check bounds the call even where the socket cannot be reached)."""
    fp = getattr(resp, "fp", None)
    sock = getattr(getattr(fp, "raw", None), "_sock", None)
    if sock is not None:
        try:
            sock.settimeout(max(seconds, 1e-3))
        except OSError:
            pass


__all__ = [
    "DEFAULT_MAX_REPLY_BYTES",
    "EndpointError",
    "JSONClient",
    "RetryPolicy",
    "parse_retry_after",
    "redact",
]
