"""Reading the generated code: a procedure's Python, each statement under a comment naming its ruleset line.

``wartable show RULESET PROCEDURE --code [MODE]`` prints it (the CLI calls
:func:`show_code`); :func:`procedure_source` gives it to Python callers.
Every mode is generated fresh into a module of its own, so the text does not
depend on which modes the ruleset has already compiled.
"""

from __future__ import annotations

from typing import Any, TextIO

from .module import GeneratedModule
from .program import WRITERS, ProcedureCompiler

# What --code takes: a mode of ProcedureCode, or all of them.
MODES = ("all", "exact", "play", "sample", "plain_inputs")
_WRITER_OF = {"exact": "exact", "play": "play", "sample": "sample", "plain_inputs": "inputs"}


def procedure_source(ruleset: Any, name: str, mode: str = "all") -> str:
    """The generated Python of procedure ``name`` in ``mode`` (one of MODES), written now."""
    compiler = ProcedureCompiler(GeneratedModule(), ruleset.compiled[name], 0, ruleset.compiled)
    chosen = [m for m in MODES[1:] if mode in ("all", m)]
    for each in chosen:
        WRITERS[_WRITER_OF[each]](compiler)
    module = compiler.module
    text = "\n".join(line for function in module.functions for line in function)
    return text.rstrip("\n") + "\n"


def show_code(ruleset: Any, name: str, mode: str, command_line: Any, stdout: TextIO) -> int:
    """``show RULESET PROCEDURE --code [MODE]``: print the generated code of procedure ``name``.

    A mode or a name it does not know is a usage error pointing at that
    argument (``command_line`` is the CLI's :class:`cli.CommandLine`).
    """
    if mode not in MODES:
        index = command_line.find(mode, "--code")
        offset = command_line.offset_in(index, mode) if index is not None else 0
        raise command_line.error(index, f"--code: no mode '{mode}' (choose from {', '.join(MODES[1:])}, or give none for all)", offset)
    if name not in ruleset.compiled:
        procedures = ", ".join(sorted(ruleset.compiled)) or "none"
        raise command_line.error(command_line.find(name), f"--code: ruleset '{ruleset.name}' has no procedure '{name}' (it has: {procedures})")
    print(procedure_source(ruleset, name, mode), end="", file=stdout)
    return 0
