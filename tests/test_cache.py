"""The on-disk cache: reuse, invalidation by content, corruption, processes sharing it, verify_many on a pool."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from tests._source_support import verifier, write
from tests.conftest import git, init_repo, needs_git

from anchorcheck import Memory, Verdict, Verifier
from anchorcheck.evidence.cache import FactsCache, git_blob_id
from anchorcheck.evidence.index import SourceIndex


def _parsed_after(root, cache_dir, anchor="import:redis"):
    v = verifier(root, cache_dir)
    result = v.check(anchor)
    return result, SourceIndex.of(v.context).parsed


def test_git_blob_id_matches_git(tmp_path):
    write(tmp_path, {"a.py": "import redis\n"})
    out = subprocess.run(["git", "hash-object", str(tmp_path / "a.py")], capture_output=True, text=True, check=True)
    assert git_blob_id((tmp_path / "a.py").read_bytes()) == out.stdout.strip()


def test_reuse_and_invalidation_after_an_edit(tmp_path):
    root, cache = write(tmp_path / "repo", {"a.py": "import redis\n", "b.py": "import redis.client\n"}), tmp_path / "cache"
    init_repo(root)
    assert _parsed_after(root, cache)[1] == 2
    result, parsed = _parsed_after(root, cache)
    assert parsed == 0 and result.verdict is Verdict.VERIFIED
    (root / "a.py").write_text("import json\nimport redis.sentinel\n")  # modified: hashed, reparsed
    result, parsed = _parsed_after(root, cache)
    assert parsed == 1 and [(e.path, e.line) for e in result.evidence] == [("a.py", 2), ("b.py", 1)]
    (root / "a.py").write_text("import redis\n")  # back to the committed bytes: the old entry serves
    assert _parsed_after(root, cache)[1] == 0


def test_an_upgraded_grammar_extracts_again(tmp_path, monkeypatch):
    """Facts are keyed by the installed tree-sitter distributions: a new grammar may name its nodes otherwise."""
    from anchorcheck.evidence import extraction

    root, cache = write(tmp_path / "repo", {"a.py": "import redis\n"}), tmp_path / "cache"
    assert _parsed_after(root, cache)[1] == 1
    assert _parsed_after(root, cache)[1] == 0
    site = tmp_path / "site"
    (site / "tree_sitter_language_pack-99.0.dist-info").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(extraction, "_FINGERPRINTS", {})
    result, parsed = _parsed_after(root, cache)
    assert parsed == 1 and result.verdict is Verdict.VERIFIED


def test_the_installed_grammars_are_listed_once_per_process(tmp_path, monkeypatch):
    """Every language's fingerprint names the tree-sitter distributions; sys.path is listed for them once."""
    from anchorcheck.evidence import extraction

    root = write(tmp_path / "repo", {"a.py": "import redis\n", "b.js": "import x from 'redis';\n", "c.go": 'package c\nimport "redis"\n', "d.rs": "use redis;\n"})
    listings = []
    monkeypatch.setattr(extraction, "installed", lambda prefix: listings.append(prefix) or [])
    monkeypatch.setattr(extraction, "_FINGERPRINTS", {})
    assert verifier(root, tmp_path / "cache").check("import:redis").verdict is Verdict.VERIFIED
    assert len({language for language, _ in extraction._FINGERPRINTS if language}) >= 3 and listings == ["tree_sitter"]


def test_untracked_tree_without_git(tmp_path):
    root, cache = write(tmp_path / "repo", {"a.py": "import redis\n"}), tmp_path / "cache"
    assert _parsed_after(root, cache)[1] == 1
    assert _parsed_after(root, cache)[1] == 0


def test_no_cache_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORCHECK_CACHE_DIR", str(tmp_path / "cache"))
    root = write(tmp_path / "repo", {"a.py": "import redis\n"})
    from anchorcheck.cli import main

    assert main(["anchor", "--root", str(root), "--no-cache", "import:redis"]) == 0
    assert not (tmp_path / "cache").exists()
    assert main(["anchor", "--root", str(root), "import:redis"]) == 0
    assert (tmp_path / "cache" / "facts-v2.sqlite").exists()


def test_corrupted_database_is_rebuilt(tmp_path):
    root, cache = write(tmp_path / "repo", {"a.py": "import redis\n"}), tmp_path / "cache"
    cache.mkdir()
    (cache / "facts-v2.sqlite").write_bytes(b"this is not a database" * 100)
    result, parsed = _parsed_after(root, cache)
    assert result.verdict is Verdict.VERIFIED and parsed == 1
    assert (cache / "facts-v2.sqlite.corrupt").exists()
    assert _parsed_after(root, cache)[1] == 0


def _warm_then_locked(root, cache):
    """A cache holding the facts of a.py and b.py, then a lock on it such as another process's
    long write would hold: it is released when the returned connection commits."""
    warm = verifier(root, cache)
    warm.check("import:redis"), warm.check("import:celery")
    assert SourceIndex.of(warm.context).parsed == 2
    SourceIndex.of(warm.context).cache.close()  # an exclusive lock on a WAL database needs it alone
    holder = sqlite3.connect(cache / "facts-v2.sqlite", isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("UPDATE facts SET stamp = stamp")  # a WAL database grants the exclusive lock on a write
    return holder


def test_a_lock_held_past_the_timeout_is_not_taken_for_damage(tmp_path, monkeypatch):
    """Another process holding the shared file's lock must not get it set aside as corrupt:
    this run goes on without the cache, and everyone's facts are still there afterwards."""
    monkeypatch.setattr("anchorcheck.evidence.cache.BUSY_TIMEOUT", 0.2)
    root, cache = write(tmp_path / "repo", {"a.py": "import redis\n", "b.py": "import celery\n"}), tmp_path / "cache"
    holder = _warm_then_locked(root, cache)
    (root / "c.py").write_text("import redis\n")
    try:
        v = verifier(root, cache)
        assert v.check("import:redis").verdict is Verdict.VERIFIED
        assert v.check("import:celery").verdict is Verdict.VERIFIED
    finally:
        holder.execute("COMMIT")
        holder.close()
    assert not list(cache.glob("*.corrupt"))
    result, parsed = _parsed_after(root, cache, "import:celery")
    assert result.verdict is Verdict.VERIFIED and parsed == 0  # b.py's facts were kept


def test_a_locked_cache_does_not_hold_a_recall_past_its_deadline(tmp_path, monkeypatch):
    """The wait for another process's lock ends at the call's deadline, not after BUSY_TIMEOUT
    (30 s); once the lock is gone, the same Verifier uses the cache again."""
    monkeypatch.setattr("anchorcheck.evidence.cache._BUSY_PAUSE", 0.0)
    root, cache = write(tmp_path / "repo", {"a.py": "import redis\n", "b.py": "import celery\n"}), tmp_path / "cache"
    holder = _warm_then_locked(root, cache)
    v = verifier(root, cache)
    try:
        start = time.monotonic()
        result = v.check("import:redis", deadline=0.5)
        assert time.monotonic() - start < 10
        assert result.verdict in (Verdict.VERIFIED, Verdict.INCONCLUSIVE)
    finally:
        holder.execute("COMMIT")
        holder.close()
    index = SourceIndex.of(v.context)
    before = index.parsed
    assert v.check("import:celery").verdict is Verdict.VERIFIED
    assert index.parsed == before  # b.py's facts came from the cache


def test_damaged_row_is_dropped_not_trusted(tmp_path):
    root, cache = write(tmp_path / "repo", {"a.py": "import redis\n"}), tmp_path / "cache"
    _parsed_after(root, cache)
    db = sqlite3.connect(cache / "facts-v2.sqlite")
    db.execute("UPDATE facts SET payload = substr(payload, 1, 16) || x'00112233445566778899'")
    db.commit()
    db.close()
    result, parsed = _parsed_after(root, cache)
    assert result.verdict is Verdict.VERIFIED and parsed == 1


def test_cache_roundtrip_and_pickling(tmp_path):
    import pickle

    store = FactsCache(tmp_path)
    store.put("k", {"a": [1, 2]})
    store.flush()
    clone = pickle.loads(pickle.dumps(store))
    assert clone.get_many(["k", "missing"]) == {"k": {"a": [1, 2]}}


WORKER = """
import sys
from anchorcheck import Verifier
from anchorcheck.evidence.index import SourceIndex
v = Verifier(sys.argv[1], options={"cache_dir": sys.argv[2]})
verdicts = [v.check(f"import:mod{i}").verdict.value for i in range(40)]
assert set(verdicts) == {"VERIFIED"}, verdicts
print(SourceIndex.of(v.context).parsed)
"""


def test_two_processes_share_the_cache(tmp_path):
    root = write(tmp_path / "repo", {f"m{i}.py": f"import mod{i}\n" for i in range(40)})
    cache = tmp_path / "cache"
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(root), str(cache)], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert all(int(o) <= 40 for o in outputs)
    third = subprocess.run([sys.executable, "-c", WORKER, str(root), str(cache)], capture_output=True, text=True, check=True)
    assert int(third.stdout) == 0


def test_verify_many_on_a_process_pool(tmp_path):
    root = write(tmp_path / "repo", {"a.py": "import redis\nimport os\nos.environ['K']\n"})
    memories = [Memory(id=str(i), anchors=["import:redis", "env:K", f"import:absent{i}"]) for i in range(10)]
    v = verifier(root, tmp_path / "cache")
    with ProcessPoolExecutor(max_workers=2) as pool:
        reports = v.verify_many(memories, executor=pool)
    assert [r.memory.id for r in reports] == [str(i) for i in range(10)]
    assert all(r.verdict is Verdict.REFUTED for r in reports)
    assert [x.verdict for x in reports[0].results] == [Verdict.VERIFIED, Verdict.VERIFIED, Verdict.REFUTED]
    assert reports[3].memory is memories[3]
    here = v.verify_many(memories)
    assert [r.to_dict() for r in here] == [r.to_dict() for r in reports]


def test_large_batches_get_a_process_pool_by_default(tmp_path):
    from anchorcheck.verify.verifier import PARALLEL_THRESHOLD

    root = write(tmp_path / "repo", {"a.py": "import redis\n"})
    memories = [Memory(id=str(i), anchors=["import:redis", "import:celery"]) for i in range(PARALLEL_THRESHOLD)]
    reports = verifier(root, tmp_path / "cache").verify_many(memories)
    assert len(reports) == PARALLEL_THRESHOLD and all(r.verdict is Verdict.REFUTED for r in reports)
    assert reports[-1].memory is memories[-1]


def test_cli_deadline(tmp_path, capsys):
    import json

    from anchorcheck.cli import main

    root = write(tmp_path / "repo", {f"m{i}.py": "import redis\n" for i in range(20)})
    assert main(["anchor", "--root", str(root), "--format", "json", "--deadline", "0.000001", "import:redis"]) == 0
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert result["verdict"] == "INCONCLUSIVE" and "budget" in result["reason"]
    with pytest.raises(SystemExit) as exc:  # argparse: a negative budget is a usage error
        main(["anchor", "--root", str(root), "--deadline", "-1", "import:redis"])
    assert exc.value.code == 2


def _reads_of(root, cache_dir, anchor):
    """The verdict of one anchor on a new Verifier, and which source files it read to get there."""
    v = verifier(root, cache_dir)
    read, original = [], v.repo.read_bytes

    def counting(path, limit=None):
        read.append(path)
        return original(path, limit)

    v.repo.read_bytes = counting  # type: ignore[method-assign]
    return v.check(anchor), sorted({p for p in read if p.endswith(".py")})


def test_a_new_verifier_reads_only_what_git_says_changed(tmp_path):
    files = {f"pkg/m{i}.py": f"import json\nX{i} = {i}\n" for i in range(20)}
    files["pkg/uses.py"] = "import redis\n"
    root, cache = write(tmp_path / "repo", files), tmp_path / "cache"
    init_repo(root)
    first, read = _reads_of(root, cache, "import:celery")
    assert first.verdict is Verdict.REFUTED and len(read) == 21
    again, read = _reads_of(root, cache, "import:celery")  # the prefilter's answers are remembered
    assert again.reason == first.reason and read == []
    (root / "pkg/m3.py").write_text("import celery\n")
    edited, read = _reads_of(root, cache, "import:celery")
    assert edited.verdict is Verdict.VERIFIED and read == ["pkg/m3.py"]
    # The committed bytes again: git may still call it modified (its stat changed), then it is read once more.
    (root / "pkg/m3.py").write_text("import json\nX3 = 3\n")
    back, read = _reads_of(root, cache, "import:celery")
    assert back.verdict is Verdict.REFUTED and read in ([], ["pkg/m3.py"])
    assert _reads_of(root, cache, "import:redis")[0].verdict is Verdict.VERIFIED


def test_a_damaged_prefilter_record_is_judged_again(tmp_path):
    root, cache = write(tmp_path / "repo", {"a.py": "import redis\n", "b.py": "x = 1\n"}), tmp_path / "cache"
    init_repo(root)
    assert _reads_of(root, cache, "import:redis")[0].verdict is Verdict.VERIFIED
    store = FactsCache(cache)
    db = store._connect()
    keys = [k for (k,) in db.execute("SELECT key FROM facts WHERE key LIKE 'prefilter:%'")]
    assert keys
    for key in keys:
        store.put(key, {"hits": "not a list", "skipped": [], "uncovered": []})
    store.flush()
    db.execute("DELETE FROM facts WHERE key LIKE 'result:%'")  # else the stored verdict answers without a search
    store.close()
    result, read = _reads_of(root, cache, "import:redis")
    assert result.verdict is Verdict.VERIFIED and read == ["a.py", "b.py"]


# -- the size cap ----------------------------------------------------------------

DAY = 24 * 3600


def _age(cache_dir, seconds, keys=None):
    """Make entries look used `seconds` earlier, as if time had passed (all of them, or these keys)."""
    db = sqlite3.connect(cache_dir / "facts-v2.sqlite")
    where, args = ("", []) if keys is None else (f" WHERE key IN ({','.join('?' * len(keys))})", list(keys))
    db.execute(f"UPDATE facts SET stamp = stamp - ?{where}", [seconds, *args])  # noqa: S608 - placeholders only
    db.commit()
    db.close()


def _live_bytes(cache_dir):
    """The bytes of the database pages holding data, committed WAL included."""
    db = sqlite3.connect(cache_dir / "facts-v2.sqlite")
    pages = db.execute("PRAGMA page_count").fetchone()[0] - db.execute("PRAGMA freelist_count").fetchone()[0]
    size = pages * db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    return size


def _keys(cache_dir):
    """The keys stored, read past FactsCache so that looking does not count as a use."""
    db = sqlite3.connect(cache_dir / "facts-v2.sqlite")
    keys = {key for (key,) in db.execute("SELECT key FROM facts")}
    db.close()
    return keys


def _put_batch(store, prefix, count):
    """Queue `count` entries of about 1.2 KB each (random bytes do not compress) and flush them."""
    keys = [f"{prefix}{i}" for i in range(count)]
    for key in keys:
        store.put(key, {"blob": os.urandom(1000).hex()})
    store.flush()
    return keys


def test_the_cache_stays_under_its_cap_and_keeps_the_most_recently_used(tmp_path):
    cap = 256 * 1024
    store = FactsCache(tmp_path, max_bytes=cap)
    generations = []
    for g in range(12):  # over 3x the cap in all
        generations.append(_put_batch(store, f"g{g}:", 60))
        _age(tmp_path, DAY)
    assert _live_bytes(tmp_path) <= cap
    store.close()  # checkpoints the WAL into the file
    assert (tmp_path / "facts-v2.sqlite").stat().st_size <= cap + 128 * 1024  # at most one flush past the cap
    kept = _keys(tmp_path)
    assert kept >= set(generations[-1]) and kept.isdisjoint(generations[0])


def test_reading_an_old_entry_keeps_it_through_a_trim(tmp_path):
    cap = 256 * 1024
    store = FactsCache(tmp_path, max_bytes=cap)
    old = _put_batch(store, "old:", 100)  # about 60% of the cap
    for rank, key in enumerate(old):  # the first is the least recently used of all
        _age(tmp_path, 10 * DAY - rank, [key])
    assert list(store.get_many([old[0]])) == [old[0]]
    store.flush()  # the read stamps it anew
    for batch in range(20):  # until a trim takes some old entries
        _put_batch(store, f"new{batch}:", 20)
        kept = _keys(tmp_path)
        if not set(old) <= kept:
            break
    assert old[0] in kept and old[1] not in kept


def test_a_warm_read_writes_nothing(tmp_path):
    keys = _put_batch(FactsCache(tmp_path), "k", 2000)
    watcher = sqlite3.connect(tmp_path / "facts-v2.sqlite")

    def commits():
        return watcher.execute("PRAGMA data_version").fetchone()[0]

    def read_all(store):
        assert len(store.get_many(keys)) == 2000
        store.flush()
        return commits()

    store, before = FactsCache(tmp_path), commits()
    assert read_all(store) == before
    _age(tmp_path, 2 * DAY)  # over a day old: the next read stamps them anew
    before = commits()
    after = read_all(store)
    assert after != before
    assert read_all(store) == after  # fresh again
    watcher.close()


def test_the_old_version_database_is_removed(tmp_path):
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / f"facts-v1.sqlite{suffix}").write_bytes(b"old rows")
    store = FactsCache(tmp_path)
    assert store.get_many(["k"]) == {}
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("facts-v1")]
    assert (tmp_path / "facts-v2.sqlite").exists()


def test_a_verifier_with_a_tiny_cap_stays_correct_and_bounded(tmp_path):
    root, cache, cap = tmp_path / "repo", tmp_path / "cache", 48 * 1024
    options = {"cache_dir": cache, "cache_max_bytes": cap}
    init_repo(write(root, {"README.md": "a project\n"}))
    commits = 6  # every commit adds each file's facts and the prefilter's answer: about 10 KB of pages
    for n in range(commits):
        # "celery" is in every file but imported by none: a search for it parses them all.
        write(root, {f"m{i}.py": "import redis  # not celery\n" + "".join(f"def f{n}_{i}_{j}(): pass\n" for j in range(40)) for i in range(30)})
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"commit {n}")
        v = Verifier(root, options=options)
        assert v.check("import:celery").verdict is Verdict.REFUTED
        assert _live_bytes(cache) <= cap
        _age(cache, DAY)
    db = sqlite3.connect(cache / "facts-v2.sqlite")
    (remembered,) = db.execute("SELECT count(*) FROM facts WHERE key LIKE 'prefilter:%'").fetchone()
    db.close()
    assert 0 < remembered < commits  # the oldest commits' answers were dropped
    for _ in range(2):
        v = Verifier(root, options=options)
        assert v.check("import:redis").verdict is Verdict.VERIFIED
    assert SourceIndex.of(v.context).parsed == 0  # the second time from the cache


TRIMMER = """
import os, sys
from pathlib import Path
from anchorcheck.evidence.cache import FactsCache
store = FactsCache(Path(sys.argv[1]), max_bytes=128 * 1024)
for batch in range(30):
    for i in range(30):
        store.put(f"{sys.argv[2]}:{batch}:{i}", {"blob": os.urandom(1000).hex()})
    store.flush()
assert not store.rebuilt
"""


def test_processes_trimming_at_once(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", TRIMMER, str(tmp_path), f"p{n}"]) for n in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    assert not list(tmp_path.glob("*.corrupt"))
    assert _live_bytes(tmp_path) <= 128 * 1024
    db = sqlite3.connect(tmp_path / "facts-v2.sqlite")
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()


@needs_git
def test_a_file_edited_after_the_listing_does_not_poison_the_cache(tmp_path):
    # Facts are filed under the hash of the bytes parsed, not under git's id for the path.
    root = tmp_path / "repo"
    write(root, {"a.py": "class Committed: pass\n"})
    init_repo(root)
    cache = tmp_path / "cache"
    first = verifier(root, cache)
    SourceIndex.of(first.context).sources(None)  # git listed a.py as clean, with its committed blob id
    (root / "a.py").write_text("class Edited: pass\n")
    assert first.check("sym:a.py::Edited").verdict is Verdict.VERIFIED
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "a.py"], check=True)
    assert verifier(root, cache).check("sym:a.py::Committed").verdict is Verdict.VERIFIED


@needs_git
def test_facts_cached_under_a_larger_size_cap_do_not_answer_for_an_oversized_file(tmp_path):
    """A tracked file parsed once, then over a smaller `max-file-size`: a new Verifier without the cache
    cannot read it, and one with the cache answered from the facts stored for its blob."""
    root = tmp_path / "repo"
    init_repo(write(root, {"app/v.py": "import os\n" + "# pad\n" * 40 + "def index():\n    return 1\n"}))
    cache = tmp_path / "cache"
    assert verifier(root, cache).check("sym:app/v.py::index").verdict.value == "VERIFIED"
    write(root, {".anchorcheck.toml": "max-file-size = 120\n"})
    for anchor in ("sym:app/v.py::index", "import:os"):
        assert verifier(root, cache).check(anchor).to_dict() == verifier(root).check(anchor).to_dict()
    assert verifier(root, cache).check("sym:app/v.py::index").state == "unreadable"
