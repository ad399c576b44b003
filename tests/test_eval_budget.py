"""The end-to-end measures packing cannot meet (issue #32): recall at a token budget of
retrieved text, the text shrink, and temporal evidence moved to another date.

Hand-made tiny cases whose answers are known; no embedder.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.evaluation.budget import (
    budget_ids,
    budget_recall,
    budget_window,
    count_tokens,
    is_temporal,
    moved_dates,
    states_date,
    text_shrink,
    text_tokens,
)
from memmaint.maintenance.evaluation.locomo import Question, covered_ids, evidence_recall

MAY = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)
JUNE = datetime(2023, 6, 27, 10, 0, tzinfo=timezone.utc)
CITIES = ["Lisbon", "Oslo", "Quito", "Hanoi", "Tunis", "Lima", "Riga", "Perth", "Accra",
          "Bergen"]


def _obs(i: int, when: datetime = MAY, ns: str = "c1") -> Memory:
    # 8 whitespace tokens each, every one a distinct fact (its own city and number)
    return Memory(f"Alice flew to {CITIES[i]} for {i + 2} days alone.", id=f"o{i}",
                  namespace=ns, created_at=when, metadata={"dia_ids": [f"D1:{i}"]})


OBS = [_obs(i) for i in range(10)]
SOURCES = {m.id: m for m in OBS}
PACKED = Memory(" ".join(m.text for m in OBS), id="packed", namespace="c1", created_at=MAY,
                metadata={"dia_ids": [f"D1:{i}" for i in range(10)],
                          "merged_from": [m.id for m in OBS]})
HONEST = covered_ids(SOURCES)


def test_tokens_are_whitespace_tokens():
    assert count_tokens("Alice  flew\tto Oslo.\n") == 4
    assert count_tokens("") == 0
    assert text_tokens(OBS) == 80
    assert text_tokens([PACKED]) == 80


def test_window_reads_whole_memories_then_cuts_the_one_that_does_not_fit():
    a = Memory("one two three four", id="a")
    b = Memory("five six seven eight nine", id="b")
    c = Memory("ten eleven", id="c")
    got = budget_window([a, b, c], 6)
    assert [(r.memory.id, r.text, r.whole) for r in got] == [
        ("a", "one two three four", True), ("b", "five six", False)]
    # nothing is read after the cut memory, even if it would fit
    assert "c" not in [r.memory.id for r in got]
    # a budget spent exactly stops before the next memory
    assert [r.memory.id for r in budget_window([a, b, c], 9)] == ["a", "b"]
    assert all(r.whole for r in budget_window([a, b, c], 9))
    assert budget_window([a], 0) == []
    with pytest.raises(ValueError):
        budget_window([a], -1)


def test_a_packed_memory_gets_no_credit_beyond_what_fits_in_the_budget():
    # per memory, the packed text is credited with all ten facts in one slot
    last = ["D1:9"]
    assert evidence_recall([PACKED], last, HONEST) == 1.0
    # within 20 tokens only the first two observations (16 tokens) and half of the third
    # are read: the ninth fact is not in the text read
    assert budget_recall([PACKED], last, 20, HONEST, SOURCES) == 0.0
    assert budget_ids([PACKED], 20, HONEST, SOURCES) == {"D1:0", "D1:1"}
    assert budget_recall([PACKED], ["D1:0", "D1:1", "D1:2"], 20, HONEST, SOURCES) == \
        pytest.approx(2 / 3)
    # the same budget over the unpacked observations in the same order reads the same facts
    assert budget_ids(OBS, 20, HONEST, SOURCES) == {"D1:0", "D1:1"}
    # with the whole text in budget, every fact counts
    assert budget_recall([PACKED], last, 80, HONEST, SOURCES) == 1.0


def test_the_packed_memory_does_not_beat_ranked_observations_at_equal_budget():
    # a retriever that ranks the needed observation first finds it within 10 tokens; the
    # packed memory, whatever its rank, only shows its first observation
    ranked = [OBS[9]] + OBS[:9]
    assert budget_recall(ranked, ["D1:9"], 10, HONEST, SOURCES) == 1.0
    assert budget_recall([PACKED], ["D1:9"], 10, HONEST, SOURCES) == 0.0


def test_a_cut_memory_counts_only_the_sources_its_cut_text_covers():
    # a cut observation that loses a content word is not credited
    assert budget_ids([OBS[0]], 7, HONEST, SOURCES) == set()
    assert budget_ids([OBS[0]], 8, HONEST, SOURCES) == {"D1:0"}
    # a union credit (every source's ids) does not leak into the cut part
    def union(m: Memory) -> set[str]:
        return set(m.metadata["dia_ids"])
    assert budget_ids([PACKED], 17, union, SOURCES) == {"D1:0", "D1:1"}
    # a merged text whose sources are unknown earns nothing when cut
    assert budget_ids([PACKED], 17, HONEST, {}) == set()
    with pytest.raises(ValueError):
        budget_recall([PACKED], [], 10, HONEST, SOURCES)


def test_text_shrink_is_zero_for_concatenation_and_positive_for_consolidation():
    para = [Memory("Alice has a dog named Biscuit.", id="p1"),
            Memory("Alice has a dog named Biscuit.", id="p2")]
    glued = Memory(" ".join(m.text for m in para), id="g")
    assert text_shrink(text_tokens(para), text_tokens([glued])) == 0.0
    assert text_shrink(text_tokens(para), text_tokens([para[0]])) == 0.5
    assert text_shrink(0, 0) == 0.0


def _q(text: str, evidence: tuple[str, ...], category: int = 2, conv: str = "c1",
       index: int = 0) -> Question:
    return Question(conv, index, text, category, evidence)


def test_moved_dates_counts_temporal_evidence_under_another_day():
    may = Memory("Alice adopted a cat.", id="a", namespace="c1", created_at=MAY,
                 metadata={"dia_ids": ["D1:3"]})
    june = Memory("Alice named the cat Miso.", id="b", namespace="c1", created_at=JUNE,
                  metadata={"dia_ids": ["D4:2"]})
    merged = Memory("Alice adopted a cat. Alice named the cat Miso.", id="m", namespace="c1",
                    created_at=JUNE, metadata={"dia_ids": ["D1:3", "D4:2"],
                                               "merged_from": ["a", "b"]})
    when = _q("When did Alice adopt a cat?", ("D1:3",))
    june_q = _q("When did Alice name the cat?", ("D4:2",), index=1)
    other = _q("What pet does Alice have?", ("D1:3",), category=4, index=2)
    # the control: nothing moves
    ctrl = moved_dates([when, june_q, other], [may, june], [may, june])
    assert (ctrl.questions, ctrl.moved, ctrl.gone, ctrl.share) == (2, 0, 0, 0.0)
    # the merge dated like its newest source moves May's evidence by 50 days; June's stays
    got = moved_dates([when, june_q, other], [may, june], [merged])
    assert (got.questions, got.moved, got.gone, got.dated_in_text) == (2, 1, 0, 0)
    assert got.share == 0.5 and got.shifts == [50]
    (ex,) = got.examples
    assert ex["question"] == when.text and ex["moved"][0]["own_dates"] == ["2023-05-08"]
    # a non-temporal question is not counted, even with the same evidence
    assert moved_dates([other], [may, june], [merged]).questions == 0
    # evidence retired (superseded, evicted) is gone, not moved
    gone = moved_dates([when], [may, june], [june])
    assert (gone.moved, gone.gone) == (0, 1)
    # a merged text that names the old day is still moved, and reported apart
    dated = Memory("On 8 May Alice adopted a cat. Alice named the cat Miso.", id="d",
                   namespace="c1", created_at=JUNE, metadata=merged.metadata)
    got = moved_dates([when], [may, june], [dated])
    assert (got.moved, got.dated_in_text) == (1, 1)


def test_moved_dates_keys_evidence_by_conversation():
    # "D1:3" exists in every conversation: another conversation's date is not this one's
    here = Memory("Bo ran a race.", id="x", namespace="c1", created_at=JUNE,
                  metadata={"dia_ids": ["D1:3"]})
    there = Memory("Cy baked bread.", id="y", namespace="c2", created_at=MAY,
                   metadata={"dia_ids": ["D1:3"]})
    q = _q("When did Bo run a race?", ("D1:3",))
    assert moved_dates([q], [here, there], [here, there]).moved == 0
    moved_there = Memory("Cy baked bread.", id="y2", namespace="c2", created_at=JUNE,
                         metadata={"dia_ids": ["D1:3"]})
    assert moved_dates([q], [here, there], [here, moved_there]).moved == 0
    q2 = _q("When did Cy bake bread?", ("D1:3",), conv="c2")
    assert moved_dates([q2], [here, there], [here, moved_there]).moved == 1


def test_temporal_questions_and_dates_in_text():
    assert is_temporal(_q("What did Alice do?", ("D1:1",), category=2))
    assert is_temporal(_q("When did Alice fly to Oslo?", ("D1:1",), category=4))
    assert not is_temporal(_q("Where did Alice fly?", ("D1:1",), category=4))
    day = MAY.date()
    assert states_date("On 8 May 2023 Alice flew.", day)
    assert states_date("on May 8, Alice flew", day)
    assert states_date("the 8th of May", day)
    assert not states_date("On 18 May Alice flew.", day)
    assert not states_date("On 8 June Alice flew.", day)
