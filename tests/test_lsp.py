"""The real yaml-language-server, driven over LSP, on bundled files and on files with mistakes.

tests/test_editor_support.py asks jsonschema what an editor would show; this asks the editor's own
server (npm package ``yaml-language-server``, checked with 1.25.0), which also decides where it
reads the modeline (the first line only, since 1.24).  Skipped unless the server is there: set
WARTABLE_YAML_LANGUAGE_SERVER to its executable, or put ``yaml-language-server`` on PATH
(``npm install yaml-language-server`` gives ``node_modules/.bin/yaml-language-server``).  CI
installs it from npm where npm is (.ci/run) and sets the variable.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

REPO = Path(__file__).resolve().parent.parent
SERVER = os.environ.get("WARTABLE_YAML_LANGUAGE_SERVER") or shutil.which("yaml-language-server")
# How long to wait for the server's answer about one file: generous, the machine may be loaded
# (it answers in about 2 s); a wait, not a timed assertion.
WAIT_SECONDS = 120

pytestmark = pytest.mark.skipif(not (SERVER and shutil.which("node")), reason="yaml-language-server (npm) or node not available")


class LanguageServer:
    """A yaml-language-server process spoken to over stdio (Content-Length framed JSON-RPC)."""

    SETTINGS: ClassVar[dict[str, Any]] = {"validate": True, "hover": True, "completion": True, "schemaStore": {"enable": False}}

    def __init__(self, executable: str):
        self.process = subprocess.Popen([executable, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._request(1, "initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {"workspace": {"configuration": True}}})
        self._until(lambda message: message.get("id") == 1)
        self._notify("initialized", {})
        self._notify("workspace/didChangeConfiguration", {"settings": {"yaml": self.SETTINGS}})
        self.version = 0

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is not None:
                body = stream.read(length)
                if len(body) < length:  # the server ended (it is stopped at the end of a test) mid-message
                    self.messages.put(None)
                    return
                self.messages.put(json.loads(body))

    def _send(self, message: dict) -> None:
        data = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.process.stdin.flush()

    def _request(self, request_id: int, method: str, params: dict) -> None:
        self._send({"id": request_id, "method": method, "params": params})

    def _notify(self, method: str, params: dict) -> None:
        self._send({"method": method, "params": params})

    def _until(self, wanted) -> dict:
        while True:
            try:
                message = self.messages.get(timeout=WAIT_SECONDS)
            except queue.Empty:
                raise AssertionError(f"yaml-language-server did not answer within {WAIT_SECONDS} s") from None
            if message is None:
                raise AssertionError("yaml-language-server exited")
            if "method" in message and "id" in message:  # a request of the server's: answer it
                items = message.get("params", {}).get("items", [])
                result = [self.SETTINGS for _ in items] if message["method"] == "workspace/configuration" else None
                self._send({"id": message["id"], "result": result})
            elif wanted(message):
                return message

    def diagnostics(self, path: Path) -> list[tuple[int, str]]:
        """(0-based line, message) of what the server flags in the file, as an editor opening it would."""
        uri = path.resolve().as_uri()
        self.version += 1
        self._notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": self.version, "text": path.read_text(encoding="utf-8")}})
        published = self._until(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
        self._notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        return [(d["range"]["start"]["line"], d["message"]) for d in published["params"]["diagnostics"]]

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture(scope="module")
def server() -> Iterator[LanguageServer]:
    assert SERVER is not None
    running = LanguageServer(SERVER)
    yield running
    running.close()


@pytest.fixture
def rules(tmp_path) -> Path:
    """A folder beside a copy of the schemas, as in a modder's repository (rules/../schemas)."""
    shutil.copytree(REPO / "schemas", tmp_path / "schemas")
    (tmp_path / "rules").mkdir()
    return tmp_path / "rules"


@pytest.mark.parametrize("name", ["eto.yaml", "eto_one_more_pip.yaml", "surface_combat_breakoff_strength.yaml", "eia_situations/one_a_side.yaml"])
def test_bundled_files_have_no_editor_errors(server, name):
    assert server.diagnostics(REPO / "rulesdata" / name) == []


VARIANT = 'wartable: 1\nname: v\ntitle: "V"\nsource: "s"\nversion: "1"\nextends: eto\noverride:\n  tabels:\n    naval_interception: {}\n'


def test_a_typo_in_a_variant_is_flagged_at_its_line(server, rules):
    path = rules / "v.yaml"
    path.write_text("# yaml-language-server: $schema=../schemas/ruleset.schema.json\n" + VARIANT, encoding="utf-8")
    # line 9 of the file (8 counted from 0): "  tabels:"
    assert server.diagnostics(path) == [(8, "Property tabels is not allowed.")]


def test_a_modeline_on_the_last_line_is_ignored(server, rules):
    # why the bundled files carry it on line 1: the same typo goes unflagged
    path = rules / "v.yaml"
    path.write_text(VARIANT + "# yaml-language-server: $schema=../schemas/ruleset.schema.json\n", encoding="utf-8")
    assert server.diagnostics(path) == []


def test_a_fragment_is_checked_against_the_fragment_schema(server, rules):
    path = rules / "part.yaml"
    path.write_text("# yaml-language-server: $schema=../schemas/fragment.schema.json\ntables:\n  extra:\n    titel: T\n", encoding="utf-8")
    flagged = server.diagnostics(path)
    # no "missing wartable/name/title" for the file; the table's own keys and the typo (0-based line 3)
    assert (3, "Property titel is not allowed.") in flagged
    assert {message for _, message in flagged} == {f'Missing property "{key}".' for key in ("title", "rule", "rows", "edges", "cells")} | {"Property titel is not allowed."}


def test_a_situation_is_checked_against_the_situation_schema(server, rules):
    path = rules / "s.yaml"
    path.write_text("# yaml-language-server: $schema=../schemas/situation.schema.json\ndistance: 2\nodds: 0.5\n", encoding="utf-8")
    flagged = server.diagnostics(path)
    assert [line for line, _ in flagged] == [2]  # 0.5, on the file's third line
