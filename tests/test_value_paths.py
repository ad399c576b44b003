"""A path is a value when it is what is said of the subject (#32): "posts to /hooks/v1" then
"the endpoint is /hooks/v2" is an update; a path that names the subject ("/v1/customers
allows ...") still keeps two endpoints apart."""

from __future__ import annotations

from memmaint.maintenance.agents.slots import identifiers, path_values, relation, statement


def test_a_path_after_is_or_to_is_a_value_and_a_new_one_is_a_change():
    old, new = ("The billing webhook posts to /hooks/v1/billing.",
                "The billing webhook endpoint is now /hooks/v3/billing.")
    assert path_values(old) == {"/hooks/v1/billing"} and not identifiers(old)
    found = relation(statement(old), statement(new), 0.8)
    assert found is not None and found.kind == "change" and "/hooks/v3/billing" in found.detail
    # the same path said twice is no change
    assert relation(statement(old), statement("The billing webhook posts to /hooks/v1/billing"
                                              " and retries twice."), 0.8) is None or \
        relation(statement(old), statement("The billing webhook posts to /hooks/v1/billing"
                                           " and retries twice."), 0.8).kind != "change"


def test_a_path_that_names_the_subject_keeps_two_endpoints_apart():
    a, b = "GET /v1/orders allows 50 calls a minute.", "GET /v2/orders allows 50 calls a minute."
    assert path_values(a) == frozenset()
    found = relation(statement(a), statement(b), 0.95)
    assert found is not None and found.kind == "distinct"


def test_far_apart_memories_with_two_paths_are_no_change():
    assert relation(statement("Logs are written to /var/log/app."),
                    statement("Uploads go to /srv/uploads/tmp."), 0.3) is None


def test_a_zero_padded_number_names_its_subject():
    """"Migration 0042 adds ..." and "Migration 0044 adds ...": no count is written with
    leading zeros, so the two are two migrations, never one migration's changed number; a
    time, a decimal or a day is no label."""
    a = statement("Migration 0042 adds an index on orders.created_at.")
    b = statement("Migration 0044 adds an index on orders.status.")
    assert ("migration", "0042") in identifiers(a.text)
    got = relation(a, b, 0.9)
    assert got is not None and got.kind == "distinct", got
    for text in ("The standup is at 0930.", "Take 0.5 mg twice a day.", "Due on 05 March."):
        assert not identifiers(text), text


def test_a_version_with_a_trailing_zero_is_not_the_shorter_number():
    """"Python 3.10" and "Python 3.1" are two versions (read as one number, 3.10 became 3.1)."""
    from memmaint.maintenance.agents.conflicts import extract

    assert extract("The service runs on Python 3.10.").values["number"] == {"3.10"}
    assert extract("The service runs on Python 3.1.").values["number"] == {"3.1"}
    got = relation(statement("The service runs on Python 3.1."),
                   statement("The service runs on Python 3.10 now."), 0.95)
    assert got is not None and got.kind == "change", got
