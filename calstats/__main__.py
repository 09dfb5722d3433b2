"""``python -m calstats``: the same as the ``calstats`` command."""

import sys

from .cli import main

sys.exit(main())
