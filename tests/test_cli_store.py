"""The store commands through the real CLI (click's CliRunner): init, import, export, stats,
embed, demo. Every bad-input case of an import is one stderr line naming file, line and
problem, exit code 2, and a store that is byte-for-byte unchanged."""

from __future__ import annotations

import json

import pytest

from memmaint.maintenance.cli.store import _EmbedProgress
from memmaint.maintenance.core.records import Memory, Status
from memmaint.maintenance.store.sqlite import SQLiteStore

SEED = (b'{"id": "existing", "text": "The pro plan costs $10.", "kind": "price"}\n'
        b'{"id": "other", "text": "Standup is at 9.", "namespace": "team"}\n')


@pytest.fixture
def db(tmp_path, monkeypatch, cli):
    """``s.db`` in a fresh working folder, holding the two SEED memories."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "seed.jsonl").write_bytes(SEED)
    assert cli("init", "--db", "s.db").exit_code == 0
    assert cli("import", "seed.jsonl", "--db", "s.db").exit_code == 0
    return tmp_path / "s.db"


def _error_line(res) -> str:
    assert "Traceback" not in res.output
    lines = res.stderr.splitlines()
    assert len(lines) == 1, res.stderr
    return lines[0]


BAD_INPUTS = [
    ("pool.jsonl", b'{"text": "fine"}\n{"text": "cut off",\n',
     ("pool.jsonl:2: malformed JSON (Expecting property name enclosed in double quotes "
     "at column 20)")),
    ("pool.jsonl", b'{"id": "a", "text": "one"}\n{"id": "a", "text": "two"}\n',
     "pool.jsonl:2: duplicate id 'a' (also on line 1)"),
    ("pool.jsonl", b'{"id": "new", "text": "one"}\n{"id": "existing", "text": "two"}\n',
     "pool.jsonl:2: id 'existing' already exists in namespace 'default'"),
    ("pool.jsonl", b'{"text": "fine"}\n{"text": ""}\n', "pool.jsonl:2: empty text"),
    ("pool.jsonl", b'{"text": "a"}\n{"text": "b"}\n{"text": "c", "importance": -1.0}\n',
     "pool.jsonl:3: negative importance -1.0"),
    ("pool.jsonl", b'{"text": "a", "importance": NaN}\n',
     "pool.jsonl:1: importance is nan (must be a finite number >= 0)"),
    ("pool.jsonl", b'{"text": "a"}\n{"text": "b", "created_at": "31/02/2024"}\n',
     "pool.jsonl:2: unparseable date '31/02/2024' (expected ISO-8601)"),
    ("pool.jsonl", b'{"text": "a"}\n{"text": "na\xefve"}\n',
     "pool.jsonl:2: invalid UTF-8 byte 0xef at byte 13 of the line"),
    ("pool.jsonl", b'{"text": "a", "tags": ["x"]}\n', "pool.jsonl:1: unknown field(s): tags"),
    ("pool.csv", b"text,importance\nfine,1\nbad,-1\n",
     "pool.csv:3: negative importance -1.0"),
    ("pool.csv", b"text,importance\nbad,NaN\n",
     "pool.csv:2: importance is nan (must be a finite number >= 0)"),
    ("pool.csv", b"text,created\nx,2024-02-30\n",
     "pool.csv:2: unparseable date '2024-02-30' (expected ISO-8601)"),
    ("pool.csv", b"text,id\nx,1\ny,1\n", "pool.csv:3: duplicate id '1' (also on line 2)"),
    ("pool.csv", b"text,id\nx,existing\n",
     "pool.csv:2: id 'existing' already exists in namespace 'default'"),
    ("pool.csv", b"text,id\n,1\n", "pool.csv:2: empty text"),
    ("pool.csv", b"text\nok\n\x80bad\n", ("pool.csv:3: invalid UTF-8 byte 0x80 at byte 1 of "
                                         "the line")),
]


@pytest.mark.parametrize("name, content, message", BAD_INPUTS,
                         ids=[f"{n[-3:]}-{m.split(': ', 1)[1][:24]}" for n, _, m in BAD_INPUTS])
def test_bad_import_is_one_line_exit_2_store_unchanged(db, cli, file_state, name, content,
                                                       message):
    (db.parent / name).write_bytes(content)
    before = file_state(db)
    args = ["import", name, "--db", "s.db"]
    if name.endswith(".csv"):
        args += ["--id-col", "id"] if b"id" in content.split(b"\n")[0] else []
        args += ["--importance-col", "importance"] if b"importance" in content else []
        args += ["--created-col", "created"] if b"created" in content else []
    res = cli(*args)
    assert res.exit_code == 2
    assert _error_line(res) == f"memmaint: error: {message}"
    assert res.stdout == ""
    assert file_state(db) == before
    with SQLiteStore(db, create=False) as store:
        assert store.count_memories() == 2


def test_a_good_import_does_change_the_file(db, cli, file_state):
    # the unchanged-bytes checks above can fail: a successful import changes the state
    before = file_state(db)
    (db.parent / "more.jsonl").write_text('{"text": "new"}\n')
    res = cli("import", "more.jsonl", "--db", "s.db")
    assert res.exit_code == 0 and "imported 1 memories" in res.stdout
    assert file_state(db) != before


def test_import_namespace_csv_and_stdin(db, cli):
    (db.parent / "notes.csv").write_text(
        "body,ref,weight,type,when,extra\n"
        "Prices rose,r1,2,price,2024-01-01T00:00:00Z,x\n"
        "\"Two\nlines\",r2,,,,y\n", encoding="utf-8")
    res = cli("import", "notes.csv", "--db", "s.db", "--namespace", "agent-7", "--text-col",
              "body", "--id-col", "ref", "--importance-col", "weight", "--kind-col", "type",
              "--created-col", "when")
    assert res.exit_code == 0, res.output
    assert "imported 2 memories from notes.csv into namespace(s): agent-7 (2)" in res.stdout
    res = cli("import", "-", "--db", "s.db", input='{"text": "from stdin", "id": "s1"}\n')
    assert res.exit_code == 0, res.output
    with SQLiteStore(db) as store:
        r1, r2 = store.get_memories("agent-7", ["r1", "r2"])
        assert (r1.importance, r1.kind, r1.metadata) == (2.0, "price", {"extra": "x"})
        assert r2.text == "Two\nlines"
        assert store.get_memories("default", ["s1"])[0].text == "from stdin"


def test_import_usage_errors(db, cli, tmp_path):
    (tmp_path / "pool.txt").write_text('{"text": "a"}\n')
    res = cli("import", "pool.txt", "--db", "s.db")
    assert res.exit_code == 2 and "--format" in _error_line(res)
    assert cli("import", "pool.txt", "--db", "s.db", "--format", "jsonl").exit_code == 0
    res = cli("import", "seed.jsonl", "--db", "missing.db")
    assert res.exit_code == 2
    assert "no memmaint store at missing.db" in _error_line(res)
    assert not (tmp_path / "missing.db").exists()
    res = cli("import", "nope.jsonl", "--db", "s.db")
    assert res.exit_code == 2 and "cannot read nope.jsonl" in _error_line(res)
    res = cli("import", "seed.jsonl", "--db", "s.db", "--id-col", "x")
    assert res.exit_code == 2 and "only apply to CSV" in _error_line(res)


def test_init(tmp_path, cli, file_state, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = cli("init", "--db", "new.db")
    assert res.exit_code == 0 and "created" in res.stdout
    res = cli("init", "--db", "new.db")
    assert res.exit_code == 0 and "already a memmaint store (0 memories)" in res.stdout
    (tmp_path / "notes.txt").write_text("just some notes\n" * 100)
    before = file_state(tmp_path / "notes.txt")
    res = cli("init", "--db", "notes.txt")
    assert res.exit_code == 2 and "is not a SQLite database" in _error_line(res)
    assert file_state(tmp_path / "notes.txt") == before


def test_export_round_trips_through_the_cli(db, cli, tmp_path):
    rich = Memory(id="r", namespace="team", text="Ünïcødé\u2028✓", importance=0.25,
                  metadata={"a": {"b": [1, None]}}, retrievals=3, successes=2, failures=1,
                  status=Status.SUPERSEDED, replaced_by="other", version=5)
    with SQLiteStore(db) as store:
        store.add_memories([rich])
        original = list(store.iter_memories())
    res = cli("export", "--db", "s.db")
    assert res.exit_code == 0
    lines = res.stdout_bytes.decode("utf-8").split("\n")
    assert lines[-1] == "" and len(lines) == 4
    assert [Memory.from_dict(json.loads(x)) for x in lines[:-1]] == original
    assert cli("export", "--db", "s.db", "-o", "all.jsonl").exit_code == 0
    assert (tmp_path / "all.jsonl").read_bytes() == res.stdout_bytes
    assert cli("init", "--db", "copy.db").exit_code == 0
    assert cli("import", "all.jsonl", "--db", "copy.db").exit_code == 0
    assert cli("export", "--db", "copy.db").stdout_bytes == res.stdout_bytes
    team = cli("export", "--db", "s.db", "--namespace", "team")
    assert [json.loads(x)["id"] for x in team.stdout.split("\n")[:-1]] == ["other", "r"]
    res = cli("export", "--db", "s.db", "--namespace", "nope")
    assert res.exit_code == 2
    assert "no namespace 'nope'" in _error_line(res) and "default, team" in res.stderr


def test_export_into_a_missing_folder_is_a_one_line_error(db, cli, tmp_path):
    before = sorted(p.name for p in tmp_path.iterdir())
    res = cli("export", "--db", "s.db", "-o", "no/such/folder/out.jsonl")
    assert res.exit_code == 2
    assert "does not exist" in _error_line(res) and "Traceback" not in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_export_over_an_existing_file_replaces_it_whole(db, cli, tmp_path):
    (tmp_path / "out.jsonl").write_text("old contents\n", encoding="utf-8")
    assert cli("export", "--db", "s.db", "-o", "out.jsonl").exit_code == 0
    assert "old contents" not in (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.jsonl.")]


def test_stats(db, cli):
    with SQLiteStore(db) as store:
        store.add_memories([Memory(text="gone", id="g", status=Status.EVICTED)])
    res = cli("stats", "--db", "s.db")
    assert res.exit_code == 0
    out = res.stdout
    assert "memories by status" in out and "memories by kind" in out
    assert "embeddings: none yet" in out
    row = next(line for line in out.splitlines() if line.startswith("default "))
    assert row.split() == ["default", "2", "1", "0", "0", "1", "0"]
    res = cli("stats", "--db", "s.db", "--json")
    data = json.loads(res.stdout)
    assert data["namespaces"]["default"]["status"] == {"active": 1, "evicted": 1}
    assert data["namespaces"]["team"]["kind"] == {"default": 1}
    assert data["store"] == str(db.resolve())
    assert cli("stats", "--db", "missing.db").exit_code == 2


def test_embed_twice_uses_the_cache(db, cli):
    with SQLiteStore(db) as store:
        store.add_memories([Memory(text=f"note {i}", id=f"n{i}") for i in range(150)]
                           + [Memory(text="note 1", id="dup"),
                              Memory(text="evicted", id="e", status=Status.EVICTED)])
    res = cli("embed", "--db", "s.db", "--model", "hashing")
    assert res.exit_code == 0, res.output
    assert "153 active memories" in res.stdout
    assert "embedded 152 texts, 0 from the cache, 0 truncated" in res.stdout
    assert "embedding: 152/152" in res.stderr  # plain log lines when not on a terminal
    res = cli("embed", "--db", "s.db", "--model", "hashing")
    assert "embedded 0 texts, 152 from the cache" in res.stdout
    res = cli("embed", "--db", "s.db", "--model", "hashing", "--namespace", "team")
    assert "1 active memories" in res.stdout and "embedded 0 texts, 1 from the cache" in res.stdout
    stats = json.loads(cli("stats", "--db", "s.db", "--json").stdout)["embeddings"]
    (model,) = stats
    assert model.startswith("hashing") and stats[model]["covered_active"] == 153


def test_embed_errors(db, cli, tmp_path):
    res = cli("embed", "--db", "s.db", "--model", "bert")
    assert res.exit_code == 2
    line = _error_line(res)
    assert "embedding.model: 'bert' is not one of hashing, minilm" in line
    (tmp_path / "bad.toml").write_text("[embedding]\nbatch_size = 0\ncolour = 1\n")
    res = cli("embed", "--db", "s.db", "--config", "bad.toml")
    assert res.exit_code == 2
    line = _error_line(res)
    assert "batch_size: 0 is below the minimum 1" in line and "unknown key 'embedding.colour'" \
        in line


def test_progress_bar_on_a_terminal(capsys):
    progress = _EmbedProgress(tty=True)
    for done in (0, 64, 128, 150):
        progress(done, 150)
    progress.close()
    assert "embedding" in capsys.readouterr().err


def test_help_lists_the_store_commands(cli):
    res = cli("--help")
    for name in ("init", "import", "export", "stats", "embed", "config", "demo"):
        assert f"  {name} " in res.stdout
