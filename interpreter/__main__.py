"""``python -m interpreter`` is the ``wartable`` command."""

import sys

from .cli import main

sys.exit(main())
