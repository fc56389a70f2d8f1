"""The cache of checked rulesets: used when the files are unchanged, never read when someone else could have written it."""

from __future__ import annotations

import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter import cache, load_ruleset, odds
from interpreter.files import real_path
from interpreter.load_limits import DEFAULT_LOAD_LIMITS

from conftest import procedure, ruleset_text

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="the cache is off where files have no owner")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    where = tmp_path / "cache"
    monkeypatch.setenv("WARTABLE_CACHE_DIR", str(where))
    monkeypatch.delenv("WARTABLE_CACHE", raising=False)
    return where


def _ruleset(tmp_path: Path, body: str = "let d = 1d6\noutcome v(high = d >= 4)") -> Path:
    path = tmp_path / "ruleset.yaml"
    path.write_text(ruleset_text({"p": procedure(body)}), encoding="utf-8")
    return path


def _entry(path: Path) -> Path:
    key = (os.fspath(real_path(path)), (), repr(DEFAULT_LOAD_LIMITS))
    return cache._entry_path(cache.folder(), key)


def test_a_second_load_comes_from_the_cache_and_answers_the_same(tmp_path, cache_dir):
    path = _ruleset(tmp_path)
    first = load_ruleset(path)
    entry = _entry(path)
    assert entry.is_file()
    assert stat.S_IMODE(os.stat(cache_dir).st_mode) == 0o700 and stat.S_IMODE(os.stat(entry).st_mode) == 0o600
    second = load_ruleset(path)
    assert second is not first  # unpickled, not kept in memory
    assert odds(second, "p") == odds(first, "p")
    assert repr(second.compiled["p"].body) == repr(first.compiled["p"].body)


def test_a_load_from_the_cache_reads_no_yaml_schema_or_grammar(tmp_path, cache_dir):
    path = _ruleset(tmp_path)
    load_ruleset(path)
    script = (
        "import sys\nfrom interpreter import load_ruleset, odds\n"
        f"r = load_ruleset({os.fspath(path)!r})\nodds(r, 'p')\n"
        "print(sorted(m for m in ('yaml', 'jsonschema', 'lark') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ), check=True)
    assert done.stdout.strip() == "[]"


def test_a_run_from_the_cache_never_builds_the_syntax_tree(tmp_path, cache_dir):
    # the checked procedures are all a run needs: the trees stay pickled, their classes unimported
    load_ruleset("eia")
    script = (
        "import sys\nfrom interpreter import load_ruleset, odds, resolve\n"
        "r = load_ruleset('eia')\n"
        "resolve(r, 'maneuver_roll', {'ships': 2, 'all_frigates': True, 'column': True}, trace=True)\n"  # a modifier list summed
        "odds(r, 'maneuver_roll', {'ships': 2, 'all_frigates': True, 'column': True})\n"
        "print('interpreter.ast' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ), check=True)
    assert done.stdout.strip() == "False", done.stderr


def test_syntax_trees_from_the_cache_are_those_of_the_files(tmp_path, cache_dir):
    fresh = load_ruleset("eia")  # from the files (the cache folder is new): trees built by the parser
    cached = load_ruleset("eia")
    assert cached is not fresh
    from interpreter.ruleset import Deferred

    name = next(iter(cached.procedures))
    assert type(cached.procedures[name].__dict__["body"]) is Deferred  # not read yet
    for name, procedure in fresh.procedures.items():
        # read now; compared node by node through repr (a Pos equals only a Pos of the same Source object)
        assert repr(cached.procedures[name].body) == repr(procedure.body)
        assert type(cached.procedures[name].__dict__["body"]) is not Deferred  # and kept
    entries = [(n, e) for n, modifiers in fresh.modifiers.items() for e in modifiers.entries]
    assert entries, "eia has modifier lists"
    for name, entry in entries:
        twin = next(e for e in cached.modifiers[name].entries if e.name == entry.name)
        assert repr(twin.condition) == repr(entry.condition)
    # positions in a tree point into the very source the checked procedures point into
    name, procedure = next(iter(cached.procedures.items()))
    assert procedure.body.pos.source is cached.compiled[name].body.pos.source
    # a ruleset from the cache whose trees were never read, stored again, keeps them
    unread = load_ruleset("eia")
    assert type(unread.procedures[name].__dict__["body"]) is Deferred
    again = cache_roundtrip(unread)
    assert repr(again.procedures[name].body) == repr(fresh.procedures[name].body)


def cache_roundtrip(ruleset):
    """The ruleset as an entry holds it: through the cache's own pickler and back."""
    import io

    buffer = io.BytesIO()
    cache._Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(ruleset)
    return pickle.loads(buffer.getvalue())


def test_a_changed_file_is_read_again(tmp_path, cache_dir):
    path = _ruleset(tmp_path)
    load_ruleset(path)
    _ruleset(tmp_path, "let d = 1d6\noutcome v(high = d >= 5)")
    assert odds(load_ruleset(path), "p").probability("v", high=True) == pytest.approx(1 / 3)


def test_a_variant_is_read_again_when_its_base_changes(tmp_path, cache_dir):
    base = _ruleset(tmp_path)
    variant = tmp_path / "variant.yaml"
    variant.write_text(
        "wartable: 1\nname: v\ntitle: v\nsource: tests\nversion: '1'\nextends: ruleset.yaml\n", encoding="utf-8"
    )
    assert odds(load_ruleset(variant), "p").probability("v", high=True) == pytest.approx(1 / 2)
    _ruleset(tmp_path, "let d = 1d6\noutcome v(high = d >= 6)")
    assert odds(load_ruleset(variant), "p").probability("v", high=True) == pytest.approx(1 / 6)
    assert base.is_file()


def test_the_names_in_messages_follow_the_working_directory(tmp_path, cache_dir, monkeypatch):
    path = _ruleset(tmp_path)
    monkeypatch.chdir(tmp_path)
    here = load_ruleset(path)
    monkeypatch.chdir(cache_dir.parent.parent)
    elsewhere = load_ruleset(path)
    assert here.compiled["p"].body.pos.source.name == "ruleset.yaml"
    assert elsewhere.compiled["p"].body.pos.source.name != "ruleset.yaml"


def _poison(entry: Path, marker: Path) -> None:
    class Payload:
        def __reduce__(self):
            return (open, (os.fspath(marker), "w"))

    entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    entry.write_bytes(pickle.dumps(Payload()))


@pytest.mark.parametrize("mode", [0o666, 0o620, 0o602])
def test_an_entry_others_could_write_is_never_unpickled(tmp_path, cache_dir, mode):
    path = _ruleset(tmp_path)
    marker = tmp_path / "unpickled"
    entry = _entry(path)
    _poison(entry, marker)
    os.chmod(entry, mode)
    load_ruleset(path)
    assert not marker.exists()


def test_an_entry_in_a_folder_others_could_write_is_never_unpickled(tmp_path, cache_dir):
    path = _ruleset(tmp_path)
    marker = tmp_path / "unpickled"
    entry = _entry(path)
    _poison(entry, marker)
    os.chmod(entry, 0o600)
    os.chmod(cache_dir, 0o777)
    load_ruleset(path)
    assert not marker.exists()
    assert entry.read_bytes().startswith(pickle.dumps(0)[:2])  # the folder is not ours alone: nothing written to it either


@pytest.mark.skipif(os.geteuid() != 0, reason="making a file another user owns needs root")
def test_an_entry_another_user_owns_is_never_unpickled(tmp_path, cache_dir):
    path = _ruleset(tmp_path)
    marker = tmp_path / "unpickled"
    entry = _entry(path)
    _poison(entry, marker)
    os.chmod(entry, 0o600)
    os.chown(entry, 65534, 65534)
    load_ruleset(path)
    assert not marker.exists()


def test_a_symbolic_link_in_place_of_an_entry_is_not_followed(tmp_path, cache_dir):
    path = _ruleset(tmp_path)
    marker = tmp_path / "unpickled"
    elsewhere = tmp_path / "elsewhere.pickle"
    _poison(elsewhere, marker)
    entry = _entry(path)
    entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    entry.symlink_to(elsewhere)
    load_ruleset(path)
    assert not marker.exists()


def test_a_damaged_entry_is_a_miss(tmp_path, cache_dir):
    path = _ruleset(tmp_path)
    load_ruleset(path)
    entry = _entry(path)
    entry.write_bytes(entry.read_bytes()[:100])
    assert odds(load_ruleset(path), "p").probability("v", high=True) == pytest.approx(1 / 2)


def test_the_cache_can_be_turned_off(tmp_path, cache_dir, monkeypatch):
    monkeypatch.setenv("WARTABLE_CACHE", "0")
    load_ruleset(_ruleset(tmp_path))
    assert not cache_dir.exists()


def test_the_cache_keeps_a_bounded_number_of_entries(tmp_path, cache_dir, monkeypatch):
    monkeypatch.setattr(cache, "MAX_ENTRIES", 3)
    for number in range(6):
        folder = tmp_path / f"r{number}"
        folder.mkdir()
        load_ruleset(_ruleset(folder))
    assert len(list(cache_dir.iterdir())) == 3
