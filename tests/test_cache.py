"""The cache of checked rulesets: used when the files are unchanged, never read when someone else could have written it."""

from __future__ import annotations

import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import procedure, ruleset_text

from interpreter import RulesetError, cache, load_ruleset, odds
from interpreter.files import real_path
from interpreter.load_limits import DEFAULT_LOAD_LIMITS

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
        "print('interpreter.syntax' in sys.modules)"
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
    for name, fresh_procedure in fresh.procedures.items():
        # read now; compared node by node through repr (a Pos equals only a Pos of the same Source object)
        assert repr(cached.procedures[name].body) == repr(fresh_procedure.body)
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


def _trusted_key(where: Path) -> bytes:
    """The key as the cache reads it from ``where``, whatever the file's mode or owner (to forge valid entries)."""
    path = where / "entries.key"
    return cache._bound(path.read_bytes(), os.stat(path))


def _forge(entry: Path, marker: Path, key: bytes, named: Path | None = None) -> None:
    """A poisoned entry (unpickling it creates ``marker``) behind a valid MAC under ``key`` for the entry
    ``named`` (default: ``entry`` itself), mode 0600."""
    _poison(entry, marker)
    payload = entry.read_bytes()
    entry.write_bytes(cache._mac(key, named or entry, payload) + payload)
    os.chmod(entry, 0o600)


# In these four the planted entry carries a valid MAC (see _forge): only the check each names stops it.


@pytest.mark.parametrize("mode", [0o666, 0o620, 0o602])
def test_an_entry_others_could_write_is_never_unpickled(tmp_path, cache_dir, mode):
    path = _ruleset(tmp_path)
    load_ruleset(path)
    marker, entry = tmp_path / "unpickled", _entry(path)
    _forge(entry, marker, _trusted_key(cache_dir))
    os.chmod(entry, mode)
    load_ruleset(path)
    assert not marker.exists()


def test_an_entry_in_a_folder_others_could_write_is_never_unpickled(tmp_path, cache_dir):
    path = _ruleset(tmp_path)
    load_ruleset(path)
    marker, entry = tmp_path / "unpickled", _entry(path)
    _forge(entry, marker, _trusted_key(cache_dir))
    planted = entry.read_bytes()
    os.chmod(cache_dir, 0o777)
    load_ruleset(path)
    assert not marker.exists()
    assert entry.read_bytes() == planted  # the folder is not ours alone: nothing written to it either


@pytest.mark.skipif(os.geteuid() != 0, reason="making a file another user owns needs root")
def test_an_entry_another_user_owns_is_never_unpickled(tmp_path, cache_dir):
    path = _ruleset(tmp_path)
    load_ruleset(path)
    marker, entry = tmp_path / "unpickled", _entry(path)
    _forge(entry, marker, _trusted_key(cache_dir))
    os.chown(entry, 65534, 65534)
    load_ruleset(path)
    assert not marker.exists()


def test_a_symbolic_link_in_place_of_an_entry_is_not_followed(tmp_path, cache_dir):
    path = _ruleset(tmp_path)
    load_ruleset(path)
    marker, entry = tmp_path / "unpickled", _entry(path)
    elsewhere = tmp_path / "elsewhere.pickle"
    _forge(elsewhere, marker, _trusted_key(cache_dir), named=entry)
    entry.unlink()
    entry.symlink_to(elsewhere)
    load_ruleset(path)
    assert not marker.exists()


def test_a_damaged_entry_is_a_miss(tmp_path, cache_dir):
    path = _ruleset(tmp_path)
    load_ruleset(path)
    entry = _entry(path)
    entry.write_bytes(entry.read_bytes()[:100])
    assert odds(load_ruleset(path), "p").probability("v", high=True) == pytest.approx(1 / 2)


# How long a load is given before it counts as waiting forever (it takes well under a second): a guard
# against a hang, not a timing.
WAIT_SECONDS = 120


@pytest.mark.parametrize("which", ["entry", "key"])
def test_a_named_pipe_in_place_of_an_entry_or_the_key_is_a_miss_not_a_wait(tmp_path, cache_dir, which):
    # A cache folder unpacked from an archive may hold a named pipe.  Opened plainly, it waits for a writer that
    # never comes: every command hung.  Opened without waiting, it is refused as not a regular file: the entry is a
    # miss (the ruleset loads from its file), the key turns the cache off.
    path = _ruleset(tmp_path)
    load_ruleset(path)
    target = _entry(path) if which == "entry" else cache_dir / "entries.key"
    target.unlink()
    os.mkfifo(target, 0o600)
    script = f"from interpreter import load_ruleset, odds\nprint(odds(load_ruleset({os.fspath(path)!r}), 'p').probability('v', high=True))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ), check=False,
                          timeout=WAIT_SECONDS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1/2"  # a d6 showing 4 or more
    assert stat.S_ISFIFO(os.lstat(target).st_mode) == (which == "key")  # an entry is written afresh in its place; the key is left


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
    assert len(list(cache_dir.glob("*.ruleset-cache"))) == 3
    assert (cache_dir / "entries.key").is_file()  # never trimmed


# ---- names re-resolved: a link pointed elsewhere, a folder that appears ------------------------
#
# The files an entry was made from may all be unchanged while a name in the ruleset now leads to
# another file: each test loads once (stored), moves only a name's target, and loads again.


def _from_cache(ruleset) -> bool:
    """Whether ``ruleset`` came from an entry: its procedure bodies are still pickled (see cache._deferred_tree)."""
    from interpreter.ruleset import Deferred

    return all(type(procedure.__dict__["body"]) is Deferred for procedure in ruleset.procedures.values())


def _retarget(link: Path, target: Path) -> None:
    link.unlink()
    link.symlink_to(target)


HIGH_ON = "constants:\n  need: {{value: {need}, rule: r}}\n"


def test_an_include_through_a_link_pointed_elsewhere_is_read_again(tmp_path, cache_dir):
    # p rolls 1d6 and is high on need or more; need comes from the included part.yaml, a link.
    # six.yaml: need 6, one face of six: 1/6.  two_up.yaml: need 2, faces 2..6: 5/6.
    (tmp_path / "six.yaml").write_text(HIGH_ON.format(need=6), encoding="utf-8")
    (tmp_path / "two_up.yaml").write_text(HIGH_ON.format(need=2), encoding="utf-8")
    (tmp_path / "part.yaml").symlink_to(tmp_path / "six.yaml")
    path = tmp_path / "ruleset.yaml"
    path.write_text(
        ruleset_text({"p": procedure("let d = 1d6\noutcome v(high = d >= need)")}, extra="include: [part.yaml]"), encoding="utf-8"
    )
    assert odds(load_ruleset(path), "p").probability("v", high=True) == pytest.approx(1 / 6)
    again = load_ruleset(path)
    assert _from_cache(again) and odds(again, "p").probability("v", high=True) == pytest.approx(1 / 6)
    _retarget(tmp_path / "part.yaml", tmp_path / "two_up.yaml")
    moved = load_ruleset(path)
    assert not _from_cache(moved)
    assert odds(moved, "p").probability("v", high=True) == pytest.approx(5 / 6)


def _variant(folder: Path, extends: str) -> Path:
    path = folder / "variant.yaml"
    path.write_text(f"wartable: 1\nname: v\ntitle: v\nsource: tests\nversion: '1'\nextends: {extends}\n", encoding="utf-8")
    return path


def test_a_base_through_a_link_pointed_elsewhere_is_read_again(tmp_path, cache_dir):
    # variant.yaml extends base.yaml, a link: first to six/ruleset.yaml (high on 6: 1/6), then to
    # two_up/ruleset.yaml (high on 2..6: 5/6).  Neither file changes.
    for name, need in (("six", 6), ("two_up", 2)):
        (tmp_path / name).mkdir()
        _ruleset(tmp_path / name, f"let d = 1d6\noutcome v(high = d >= {need})")
    (tmp_path / "base.yaml").symlink_to(tmp_path / "six" / "ruleset.yaml")
    variant = _variant(tmp_path, "base.yaml")
    assert odds(load_ruleset(variant), "p").probability("v", high=True) == pytest.approx(1 / 6)
    assert _from_cache(load_ruleset(variant))
    _retarget(tmp_path / "base.yaml", tmp_path / "two_up" / "ruleset.yaml")
    moved = load_ruleset(variant)
    assert not _from_cache(moved)
    assert odds(moved, "p").probability("v", high=True) == pytest.approx(5 / 6)


# A local stand-in for the bundled eto: its interception succeeds on 2..6, 5 faces of 6 (5/6),
# where the bundled table's row 11+ succeeds on a 6 alone (1/6).
LOCAL_ETO = ruleset_text(
    {"interception": procedure("let die = 1d6\nif die >= 2 then\n  outcome intercepted\nelse\n  outcome not_intercepted\nend", inputs="{zones: {type: int}}")},
    name="eto",
)


def test_a_local_folder_named_like_a_bundled_base_is_read_when_it_appears(tmp_path, cache_dir):
    variant = _variant(tmp_path, "eto")
    first = load_ruleset(variant)
    assert odds(first, "interception", {"zones": 11}).probability("intercepted") == pytest.approx(1 / 6)
    assert _from_cache(load_ruleset(variant))
    (tmp_path / "eto").mkdir()
    (tmp_path / "eto" / "ruleset.yaml").write_text(LOCAL_ETO, encoding="utf-8")
    local = load_ruleset(variant)
    assert not _from_cache(local)
    assert odds(local, "interception", {"zones": 11}).probability("intercepted") == pytest.approx(5 / 6)


def test_a_local_folder_named_like_a_bundled_ruleset_given_by_name_is_read_when_it_appears(tmp_path, cache_dir, monkeypatch):
    # the name on the command line, "eto", first leads to the bundled ruleset (1/6 at 11 zones), then to ./eto/ (5/6)
    monkeypatch.chdir(tmp_path)
    assert odds(load_ruleset("eto"), "interception", {"zones": 11}).probability("intercepted") == pytest.approx(1 / 6)
    assert _from_cache(load_ruleset("eto"))
    (tmp_path / "eto").mkdir()
    (tmp_path / "eto" / "ruleset.yaml").write_text(LOCAL_ETO, encoding="utf-8")
    assert odds(load_ruleset("eto"), "interception", {"zones": 11}).probability("intercepted") == pytest.approx(5 / 6)


def test_a_base_allowed_by_base_paths_is_cached_and_read_again_when_its_link_moves(tmp_path, cache_dir):
    # project/variant.yaml extends ../shared/base.yaml, outside its folder: allowed by base_paths=[shared].
    # base.yaml is a link to shared/six.yaml (1/6), then to shared/two_up.yaml (5/6).
    project, shared = tmp_path / "project", tmp_path / "shared"
    project.mkdir()
    shared.mkdir()
    for name, need in (("six", 6), ("two_up", 2)):
        (shared / f"{name}.yaml").write_text(ruleset_text({"p": procedure(f"let d = 1d6\noutcome v(high = d >= {need})")}), encoding="utf-8")
    (shared / "base.yaml").symlink_to(shared / "six.yaml")
    variant = _variant(project, "../shared/base.yaml")
    assert odds(load_ruleset(variant, base_paths=[shared]), "p").probability("v", high=True) == pytest.approx(1 / 6)
    assert _from_cache(load_ruleset(variant, base_paths=[shared]))  # re-resolved with the same allowed bases: a hit
    _retarget(shared / "base.yaml", shared / "two_up.yaml")
    moved = load_ruleset(variant, base_paths=[shared])
    assert not _from_cache(moved)
    assert odds(moved, "p").probability("v", high=True) == pytest.approx(5 / 6)


def test_a_base_whose_link_now_leads_outside_the_allowed_folders_is_refused_not_served(tmp_path, cache_dir):
    (tmp_path / "inside").mkdir()
    (tmp_path / "outside").mkdir()
    _ruleset(tmp_path / "inside")
    _ruleset(tmp_path / "outside")  # the same text: only where the name leads differs
    (tmp_path / "inside" / "base.yaml").symlink_to(tmp_path / "inside" / "ruleset.yaml")
    variant = _variant(tmp_path / "inside", "base.yaml")
    load_ruleset(variant)
    _retarget(tmp_path / "inside" / "base.yaml", tmp_path / "outside" / "ruleset.yaml")
    with pytest.raises(RulesetError, match="outside this ruleset's folder"):
        load_ruleset(variant)


def test_an_entry_found_from_another_working_directory_checks_the_file_it_was_made_from(tmp_path, cache_dir, monkeypatch):
    # a/ruleset.yaml is loaded as "ruleset.yaml" from a/, then changed (high on 6: 1/6), then loaded as
    # ../a/ruleset.yaml from b/, which holds a copy of the old text (high on 4: 1/2) under the same name
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        _ruleset(tmp_path / name)
    monkeypatch.chdir(tmp_path / "a")
    load_ruleset("ruleset.yaml")
    _ruleset(tmp_path / "a", "let d = 1d6\noutcome v(high = d >= 6)")
    monkeypatch.chdir(tmp_path / "b")
    assert odds(load_ruleset("../a/ruleset.yaml"), "p").probability("v", high=True) == pytest.approx(1 / 6)


# ---- entries are authenticated: a planted file is a miss, never code ------------------------------


@pytest.mark.parametrize("key_length", [0, 1, 32, 64, 65, 200])
def test_the_hand_made_hmac_is_hmac_sha256(key_length):
    import hashlib
    import hmac

    key = bytes(range(7, 7 + key_length % 256)) * (key_length // 256 + 1)
    key = key[:key_length]
    parts = (b"", b"entry-name", b"\0", bytes(range(256)) * 40)
    assert cache._hmac_sha256(key, *parts) == hmac.new(key, b"".join(parts), hashlib.sha256).digest()
    # RFC 4231, test case 2: key "Jefe"
    assert cache._hmac_sha256(b"Jefe", b"what do ya want ", b"for nothing?").hex() == (
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )


def test_the_key_is_a_file_only_we_may_read(tmp_path, cache_dir):
    load_ruleset(_ruleset(tmp_path))
    key = cache_dir / "entries.key"
    status = os.lstat(key)
    assert stat.S_ISREG(status.st_mode) and stat.S_IMODE(status.st_mode) == 0o600 and status.st_size == 32
    assert status.st_uid == os.getuid()
    assert not list(cache_dir.glob("*.tmp"))  # the temporary file it was linked from is gone


def test_an_entry_behind_a_valid_mac_is_unpickled(tmp_path, cache_dir):
    # the control for the tests below: what they plant would run if its MAC verified
    path = _ruleset(tmp_path)
    load_ruleset(path)
    marker = tmp_path / "unpickled"
    _forge(_entry(path), marker, _trusted_key(cache_dir))
    load_ruleset(path)
    assert marker.exists()


@pytest.mark.parametrize("mac", ["none", "zeros", "another key", "the key file's bytes alone"])
def test_a_planted_entry_without_a_valid_mac_is_never_unpickled(tmp_path, cache_dir, mac):
    # the entry is ours, mode 0600, in our folder: only its MAC tells it from one we wrote
    path = _ruleset(tmp_path)
    load_ruleset(path)
    marker, entry = tmp_path / "unpickled", _entry(path)
    _poison(entry, marker)
    payload = entry.read_bytes()
    forged = {
        "none": b"",
        "zeros": bytes(32),
        "another key": cache._mac(os.urandom(32), entry, payload),
        "the key file's bytes alone": cache._mac((cache_dir / "entries.key").read_bytes(), entry, payload),
    }[mac]
    entry.write_bytes(forged + payload)
    os.chmod(entry, 0o600)
    assert odds(load_ruleset(path), "p").probability("v", high=True) == pytest.approx(1 / 2)  # loaded from the file
    assert not marker.exists()


def test_a_cache_folder_unpacked_from_elsewhere_key_and_all_is_a_miss(tmp_path, cache_dir, monkeypatch):
    # Someone makes a cache folder with a key and an entry that verifies under it (loading from it runs
    # the payload: the control), and ships it; unpacked as the user's cache folder (files ours, modes
    # kept), the key file has the same bytes but is another file: nothing verifies, nothing runs.
    import shutil

    path = _ruleset(tmp_path)
    theirs = tmp_path / "theirs"
    monkeypatch.setenv("WARTABLE_CACHE_DIR", str(theirs))
    load_ruleset(path)
    marker = tmp_path / "unpickled"
    _forge(_entry(path), marker, _trusted_key(theirs))
    load_ruleset(path)
    assert marker.exists()
    marker.unlink()
    _forge(_entry(path), marker, _trusted_key(theirs))  # again: the load above replaced the entry it could not use
    shutil.copytree(theirs, cache_dir, copy_function=shutil.copy2)
    monkeypatch.setenv("WARTABLE_CACHE_DIR", str(cache_dir))
    assert (cache_dir / "entries.key").read_bytes() == (theirs / "entries.key").read_bytes()
    assert odds(load_ruleset(path), "p").probability("v", high=True) == pytest.approx(1 / 2)
    assert not marker.exists()


def _break_key(key: Path, how: str) -> None:
    if how == "symbolic link":
        real = key.with_name("real.key")
        key.rename(real)
        key.symlink_to(real)
    elif how == "33 bytes":
        key.write_bytes(key.read_bytes() + b"!")
    elif how == "another owner":
        os.chown(key, 65534, 65534)
    else:
        os.chmod(key, how)


BAD_KEYS = [0o644, 0o640, 0o604, 0o660, 0o606, "symbolic link", "33 bytes"]
BAD_KEYS.append(pytest.param("another owner", marks=pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")))


@pytest.mark.parametrize("how", BAD_KEYS)
def test_a_key_file_not_ours_alone_turns_the_cache_off(tmp_path, cache_dir, how):
    # after the change, an entry that verifies under the key as it now stands is still never read,
    # and no entry is written (the key is not replaced either)
    path = _ruleset(tmp_path)
    load_ruleset(path)
    key = cache_dir / "entries.key"
    _break_key(key, how)
    marker, entry = tmp_path / "unpickled", _entry(path)
    _forge(entry, marker, _trusted_key(cache_dir))
    assert not _from_cache(load_ruleset(path))
    assert not marker.exists()
    entry.unlink()
    load_ruleset(path)
    assert not entry.exists()
    assert key.is_symlink() == (how == "symbolic link")


def test_an_edited_schema_or_engine_module_makes_every_entry_a_miss(tmp_path, cache_dir, monkeypatch):
    """The entries are keyed by wartable's own files: its modules, its engine's and the JSON Schemas.  Before, only
    the top-level modules counted: a schema edited to refuse a ruleset still served the ruleset as checked."""
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    (schemas / "ruleset.schema.json").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(cache, "data_dir", lambda kind: schemas)
    path = _ruleset(tmp_path)
    load_ruleset(path)
    assert _entry(path).is_file()  # stored under today's files
    (schemas / "ruleset.schema.json").write_text('{"type": "object"}', encoding="utf-8")  # another size
    assert not _entry(path).is_file()  # the same ruleset's key now names another entry: a miss
    load_ruleset(path)
    assert _entry(path).is_file()
    # the engine's modules are counted too: their names appear in what the key is made from
    assert "engine/play.py:" in cache._code_fingerprint() and "schemas/ruleset.schema.json:" in cache._code_fingerprint()
