"""The engine: checked procedures (:mod:`interpreter.ir`) compiled to Python functions.

For every procedure up to four functions are generated, each when first
used: ``exact`` (the distribution of outcomes over every die face),
``play`` (one play with a dice source), ``sample`` (Monte Carlo) and
``plain_inputs`` (the common API call's inputs checked in one pass).  See
ARCHITECTURE.md ("Engine") for the modules and what each owns, and
:mod:`.module` for the safety rule every writer keeps.

:func:`compile_procedure` is the entry point; :func:`procedure_source`
gives a procedure's generated Python with the ruleset lines it came from
(``wartable show RULESET PROCEDURE --code``).
"""

from __future__ import annotations

from .module import literal
from .program import (
    SHARED_OUTCOMES,
    ProcedureCode,
    ProcedureCompiler,
    compile_procedure,
)
from .show import MODES, procedure_source, show_code

__all__ = ["MODES", "SHARED_OUTCOMES", "ProcedureCode", "ProcedureCompiler", "compile_procedure", "literal", "procedure_source", "show_code"]
