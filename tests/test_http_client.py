"""The shared OpenAI-compatible HTTP client against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
from openai_stub_server import Reply, StubServer

from memmaint.maintenance.core.http import (
    DEFAULT_MAX_REPLY_BYTES,
    EndpointError,
    JSONClient,
    RetryPolicy,
    parse_retry_after,
)

KEY_ENV = "MEMMAINT_TEST_HTTP_KEY"
SECRET = "sk-http-secret-456"
OK = b'{"ok": true}'


def queue(*replies: Reply):
    """A responder answering ``replies`` in order, then 200 ``OK``."""
    items = list(replies)
    return lambda body: items.pop(0) if items else Reply(raw=OK)


def client(server: StubServer, sleeps: list[float] | None = None, retried: list[int] | None
           = None, **policy) -> JSONClient:
    settings = {"retries": 2, "backoff_s": 0.01, "timeout_s": 5.0, **policy}
    return JSONClient(server.url + "/chat/completions", api_key_env=KEY_ENV,
                      policy=RetryPolicy(**settings),
                      sleep=sleeps.append if sleeps is not None else time.sleep,
                      on_retry=(lambda: retried.append(1)) if retried is not None else None)


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)


def test_post_sends_json_with_the_bearer_key():
    with StubServer(queue()) as server:
        assert client(server).post({"model": "m", "input": ["a"]}) == OK
    assert server.requests == [{"model": "m", "input": ["a"]}]
    assert server.headers[0]["Authorization"] == f"Bearer {SECRET}"
    assert server.headers[0]["Content-Type"] == "application/json"


def test_no_key_no_authorization_header(monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    with StubServer(queue()) as server:
        client(server).post({})
    assert "Authorization" not in server.headers[0]


def test_retries_429_and_5xx_with_doubling_backoff_then_succeeds():
    sleeps: list[float] = []
    retried: list[int] = []
    with StubServer(queue(Reply(status=503), Reply(status=429), Reply(status=500))) as server:
        got = client(server, sleeps, retried, retries=3).post({})
    assert got == OK and len(server.requests) == 4
    assert sleeps == [0.01, 0.02, 0.04] and len(retried) == 3


def test_gives_up_after_the_retries_with_the_last_status():
    sleeps: list[float] = []
    with StubServer(queue(*[Reply(status=502)] * 5)) as server, \
            pytest.raises(EndpointError) as info:
        client(server, sleeps, retries=2).post({})
    err = info.value
    assert (err.kind, err.status, err.retries, err.retryable) == ("http", 502, 2, True)
    assert "scripted 502" in err.detail and len(server.requests) == 3


def test_client_errors_are_not_retried():
    with StubServer(queue(Reply(status=400), Reply(status=404))) as server, \
            pytest.raises(EndpointError) as info:
        client(server, []).post({})
    assert info.value.status == 400 and not info.value.retryable
    assert len(server.requests) == 1


def test_retry_after_is_honoured_in_seconds_and_as_a_date():
    with StubServer(queue(Reply(status=429, retry_after="0.3"))) as server:
        start = time.monotonic()
        assert client(server).post({}) == OK
        assert time.monotonic() - start >= 0.3  # a real wait, not the 0.01 s backoff
    sleeps: list[float] = []
    with StubServer(queue(Reply(status=503, retry_after="7"),
                          Reply(status=503, retry_after="999"))) as server:
        client(server, sleeps, max_wait_s=30.0, deadline_s=100.0).post({})
    assert sleeps == [7.0, 30.0]  # longer than the backoff; capped by max_wait_s
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=20), usegmt=True)
    assert 15 < (parse_retry_after(later) or 0) <= 20
    assert parse_retry_after("soon") is None and parse_retry_after("-3") == 0.0


def test_a_retry_after_past_the_deadline_fails_at_once():
    sleeps: list[float] = []
    with StubServer(queue(Reply(status=429, retry_after="30"))) as server, \
            pytest.raises(EndpointError) as info:
        client(server, sleeps, deadline_s=5.0).post({})
    assert sleeps == [] and len(server.requests) == 1
    assert info.value.status == 429 and "would pass the call's 5 s deadline" in info.value.note


def test_a_dripping_server_is_stopped_by_the_deadline():
    drip = Reply(raw=b'{"data": "' + b"x" * 200 + b'"}', drip_s=0.5)
    with StubServer(queue(drip, drip, drip)) as server:
        http = client(server, [], timeout_s=30.0, deadline_s=1.5)
        start = time.monotonic()
        with pytest.raises(EndpointError) as info:
            http.post({})
        took = time.monotonic() - start
    assert info.value.kind == "deadline" and "timed out" in str(info.value)
    assert 1.4 <= took < 2.3, took  # each read waits at most the time left
    assert len(server.requests) == 1


def test_the_per_attempt_timeout_covers_the_body_and_is_retried():
    drip = Reply(raw=b"y" * 100, drip_s=0.2)
    sleeps: list[float] = []
    with StubServer(queue(drip, drip)) as server:
        http = client(server, sleeps, timeout_s=0.6, retries=1, deadline_s=30.0)
        start = time.monotonic()
        with pytest.raises(EndpointError) as info:
            http.post({})
        took = time.monotonic() - start
    err = info.value
    assert (err.kind, err.retries) == ("timeout", 1) and "timed out after 0.6 s" in str(err)
    assert len(server.requests) == 2 and sleeps == [0.01]
    assert 1.1 <= took < 2.0, took


def test_a_silent_server_is_stopped_by_the_deadline():
    with StubServer(queue(Reply(raw=OK, delay=3.0))) as server:
        start = time.monotonic()
        with pytest.raises(EndpointError) as info:
            client(server, [], timeout_s=10.0, deadline_s=0.5).post({})
        assert time.monotonic() - start < 1.2
    assert info.value.kind == "deadline"


def test_an_oversized_reply_is_refused():
    big = b'{"data": "' + b"z" * 5000 + b'"}'
    with StubServer(queue(Reply(raw=big), Reply(raw=big, content_length=False))) as server:
        http = client(server, [], max_reply_bytes=1024)
        with pytest.raises(EndpointError, match="announces 5012 bytes, over the 1 KiB limit"):
            http.post({})
        with pytest.raises(EndpointError, match="sent more than 1024 bytes") as info:
            http.post({})
    assert info.value.kind == "too_large" and not info.value.retryable
    assert len(server.requests) == 2  # not retried
    assert RetryPolicy().max_reply_bytes == DEFAULT_MAX_REPLY_BYTES == 4 << 20


def test_a_reply_without_content_length_under_the_cap_is_read_whole():
    body = json.dumps({"data": "w" * 3000}).encode()
    with StubServer(queue(Reply(raw=body, content_length=False))) as server:
        assert client(server).post({}) == body


def test_the_key_never_appears_in_error_text():
    with StubServer(queue(*[Reply(status=500, echo_auth=True)] * 3,
                          Reply(status=401, echo_auth=True))) as server:
        http = client(server, [])
        with pytest.raises(EndpointError) as retried:
            http.post({})
        with pytest.raises(EndpointError) as refused:
            http.post({})
    for err in (retried.value, refused.value):
        text = " ".join([str(err), err.reason, err.detail, err.note, repr(err.args)])
        assert SECRET not in text and "Bearer ***" in err.detail
    assert refused.value.status == 401
    assert server.headers[0]["Authorization"] == f"Bearer {SECRET}"  # it was sent


def test_connection_errors_are_retried_then_reported():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sleeps: list[float] = []
    http = JSONClient(f"http://127.0.0.1:{port}/v1/embeddings", api_key_env=KEY_ENV,
                      policy=RetryPolicy(retries=2, backoff_s=0.01, timeout_s=2.0),
                      sleep=sleeps.append)
    with pytest.raises(EndpointError) as info:
        http.post({})
    err = info.value
    assert (err.kind, err.retries, err.retryable) == ("unreachable", 2, True)
    assert "cannot reach" in str(err) and SECRET not in str(err) and sleeps == [0.01, 0.02]


def test_policy_numbers():
    policy = RetryPolicy()
    assert (policy.retries, policy.backoff_s, policy.timeout_s) == (2, 0.25, 60.0)
    assert policy.deadline == pytest.approx(3 * 60.0 + 0.25 + 0.5)
    assert RetryPolicy(deadline_s=5.0).deadline == 5.0
    assert [RetryPolicy(backoff_s=1.0, max_wait_s=60).wait(n) for n in (1, 2, 7, 8)] == [
        1.0, 2.0, 60.0, 60.0]
    with pytest.raises(ValueError):
        RetryPolicy(timeout_s=0)
    with pytest.raises(ValueError):
        JSONClient("ftp://example.org/x")
