"""The hand-written value classes of errors.py: a diagnostic's repr names each field by its value.

``__slots__`` is kept sorted (ruff), so it is not the constructor's order: a repr that zipped the
slots with the values printed ``Diagnostic(column='r.yaml', file=3, ...)``.
"""

from __future__ import annotations

import pickle

from interpreter.errors import Diagnostic, Pos, Source


def test_a_diagnostic_repr_names_each_field_with_its_own_value():
    diagnostic = Diagnostic("r.yaml", 3, 7, "bad value", "  x: 1")
    assert repr(diagnostic) == "Diagnostic(file='r.yaml', line=3, column=7, message='bad value', line_text='  x: 1')"
    assert (diagnostic.file, diagnostic.line, diagnostic.column) == ("r.yaml", 3, 7)
    assert pickle.loads(pickle.dumps(diagnostic)) == diagnostic


def test_a_position_makes_its_diagnostic_from_its_source_line():
    source = Source("r.yaml", "a: 1\nb: two\n")
    diagnostic = Pos(source, 2, 4).diagnostic("not a number")
    assert diagnostic == Diagnostic("r.yaml", 2, 4, "not a number", "b: two")
    assert diagnostic.format() == "r.yaml:2:4: not a number\n    b: two\n       ^"
