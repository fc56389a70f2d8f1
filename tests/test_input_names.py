"""Record-typed inputs and fields are listed under their own names (text, JSON, the player aid).

A record type's document was ``{"type": "record", "name": "ship"}``, spread beside an input's own
``"name"``: the type's name won, so eia's ``fire_at`` listed ``--set ship=...`` twice instead of
``shooter`` and ``target``, and ``--set ship=`` then failed.  It is now ``"record": "ship"``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from interpreter.cli import main

DUEL = """\
wartable: 1
name: duel
title: "Duel"
source: "tests"
version: "1"
types:
  ship:
    fields:
      strength: {type: int, min: 0, max: 9}
  flagship:
    type: ship
  pair:
    fields:
      lead: {type: ship}
      rear: {type: flagship}
procedures:
  fire_at:
    title: "One ship fires at another"
    rule: "r"
    inputs:
      shooter: {type: ship, description: "The firing ship."}
      target: {type: flagship}
      line: {type: pair}
      escorts: {type: list, of: ship, default: []}
    body: |
      if shooter.strength > target.strength then
        outcome win
      end
      outcome lose
"""


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def duel(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("duel.yaml").write_text(DUEL, encoding="utf-8")
    return "duel.yaml"


def test_eia_fire_at_lists_shooter_and_target():
    code, out, _ = run(["list", "eia"])
    assert code == 0
    lines = out.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("  fire_at:")))
    assert lines[at + 1:at + 3] == ["    --set shooter=...  ship, required", "    --set target=...  ship, required"]
    assert "--set ship=" not in out  # no input of eia is called ship


def test_text_listing_names_inputs_and_record_fields(duel):
    _, out, _ = run(["list", duel])
    assert "  pair                         {lead: ship, rear: ship}" in out.splitlines()
    assert [line.strip() for line in out.splitlines() if line.strip().startswith("--set")] == [
        "--set shooter=...  ship, required", "--set target=...  ship, required", "--set line=...  pair, required",
        "--set escorts=...  list of ship, default []",
    ]


def test_json_listing_names_inputs_and_record_fields(duel):
    code, out, _ = run(["list", duel, "--json"])
    assert code == 0
    document = json.loads(out)
    (procedure,) = document["procedures"]
    assert procedure["inputs"] == [
        {"name": "shooter", "type": "record", "record": "ship", "required": True, "description": "The firing ship."},
        {"name": "target", "type": "record", "record": "ship", "required": True},
        {"name": "line", "type": "record", "record": "pair", "required": True},
        {"name": "escorts", "type": "list", "of": {"type": "record", "record": "ship"}, "required": False, "default": []},
    ]
    pair = next(t for t in document["types"] if t["name"] == "pair")
    assert [(f["name"], f["record"]) for f in pair["fields"]] == [("lead", "ship"), ("rear", "ship")]


def test_the_listed_names_are_the_ones_set_takes(duel):
    code, out, err = run(["run", duel, "fire_at", "--set", "shooter={strength: 3}", "--set", "target={strength: 2}",
                          "--set", "line={lead: {strength: 1}, rear: {strength: 1}}"])
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "outcome: win"  # 3 > 2
    code, _, err = run(["run", duel, "fire_at", "--set", "ship={strength: 3}"])
    assert code == 2 and "has no input 'ship'" in err


def test_aid_names_inputs(duel):
    code, _, _ = run(["aid", duel, "-o", "aid.html"])
    assert code == 0
    html = Path("aid.html").read_text(encoding="utf-8")
    for name, kind in (("shooter", "ship"), ("target", "ship"), ("line", "pair"), ("escorts", "list of ship")):
        assert f'<td class="text"><code>{name}</code></td><td class="text">{kind}</td>' in html
    assert "<code>ship</code>" not in html
