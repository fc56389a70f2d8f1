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
        program.play(None, (), None, 0)  # no run and no inputs: fails inside the generated function
    except (AttributeError, IndexError, TypeError) as error:
        frames = traceback.extract_tb(error.__traceback__)
    generated = [frame for frame in frames if frame.filename.startswith("<wartable: procedure interception, play")]
    assert generated, [frame.filename for frame in frames]
    # the first statement of a play reads an input from the inputs tuple I, or the run rt
    assert generated[-1].line and ("I[" in generated[-1].line or "rt." in generated[-1].line)


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
