"""Generated code is readable where it matters: an internal error inside it shows its line.

Procedures compile to Python functions (``interpreter.engine``).  A bug of
the compiler or the runtime surfaces as a traceback through that code; its
lines are registered with ``linecache`` so the traceback prints them instead
of blanks, for as long as the compiled procedure lives.
"""

from __future__ import annotations

import gc
import linecache
import traceback

from interpreter import load_ruleset


def _registered() -> list[str]:
    return [name for name in linecache.cache if name.startswith("<wartable: procedure ")]


def test_a_traceback_through_generated_code_shows_the_generated_line():
    program = load_ruleset("eto").program("interception")
    try:
        # no run: fails inside the generated play (the entry hands the inputs, one each, on to the play itself)
        program.play(None, (None,) * len(program.input_names), None, 0)
    except (AttributeError, IndexError, TypeError) as error:
        frames = traceback.extract_tb(error.__traceback__)
    generated = [frame for frame in frames if frame.filename.startswith("<wartable: procedure interception, play")]
    assert len(generated) == 2, [frame.filename for frame in frames]
    assert generated[0].line == "return yp0_1(rt, R, depth, *I)"
    # the first statement of a play reads the run rt
    assert generated[-1].line and "rt." in generated[-1].line


def test_the_registered_lines_go_with_the_compiled_procedure():
    before = set(_registered())
    ruleset = load_ruleset("eto")
    assert ruleset.program("interception").source.startswith("def ")  # every mode written and compiled
    mine = set(_registered()) - before
    assert len(mine) >= 3  # exact, play, sample (and the inputs check)
    assert all(linecache.getline(name, 1).startswith("def ") for name in mine)
    del ruleset
    gc.collect()
    assert not mine & set(_registered())
