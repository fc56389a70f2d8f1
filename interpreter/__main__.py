"""``python -m interpreter`` is the ``wartable`` command."""

from .cli import console_main

console_main()
