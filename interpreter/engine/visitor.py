"""One method per IR node kind, found through a table built once per visitor class.

Every pass of the engine that handles IR nodes by kind is a subclass of
:class:`NodeVisitor` naming, in ``covers``, the node kinds it must handle;
it then writes one ``visit_<Kind>`` method for each (``visit_Roll`` for
:class:`ir.Roll`).  The table from kind to method is made when the class is
made, and the class refuses to exist (``TypeError`` at import) when a
covered kind has no method, or a ``visit_`` method names a kind it does not
cover: a node kind added to :mod:`ir` (and to ``ir.STATEMENTS`` or
``ir.EXPRESSIONS``) stops the import of every visitor that must learn it,
instead of failing on the first procedure that uses it.

A call is one dictionary lookup by ``type(node)`` (the kinds are final named
tuples: no subclass to look through), cheaper than ``getattr`` by name and
than a chain of ``if kind is ir.X`` tests.  Each subclass calls its table
from a typed ``visit`` method, so mypy sees each ``visit_<Kind>`` with its
own node class.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar


class CoverageError(TypeError):
    """A visitor class does not have exactly one method per node kind it covers (an engine bug, found at import)."""


def dispatch_table(cls: type, covers: Iterable[type]) -> dict[type, Callable[..., Any]]:
    """``{kind: cls.visit_<kind name>}`` for every kind in ``covers``; CoverageError when one is missing or one is extra."""
    kinds = tuple(covers)
    table: dict[type, Callable[..., Any]] = {}
    missing = []
    for kind in kinds:
        method = getattr(cls, f"visit_{kind.__name__}", None)
        if method is None:
            missing.append(kind.__name__)
        else:
            table[kind] = method
    names = {kind.__name__ for kind in kinds}
    extra = sorted(name for name in dir(cls) if name.startswith("visit_") and name[len("visit_"):] not in names)
    if missing or extra:
        problems = []
        if missing:
            problems.append("no method for " + ", ".join(f"visit_{name}" for name in missing))
        if extra:
            problems.append("methods for kinds it does not cover: " + ", ".join(extra))
        raise CoverageError(f"{cls.__module__}.{cls.__qualname__}: {'; '.join(problems)}")
    return table


class NodeVisitor:
    """Base of the engine's passes over IR nodes: ``covers`` names the kinds, ``visit_<Kind>`` handles each.

    Subclasses that are themselves bases (covering nothing yet) leave
    ``covers`` empty and define no ``visit_`` methods.
    """

    covers: ClassVar[tuple[type, ...]] = ()
    visitors: ClassVar[dict[type, Callable[..., Any]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.visitors = dispatch_table(cls, cls.covers)
