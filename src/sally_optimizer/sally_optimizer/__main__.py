"""``python -m sally_optimizer``: the same as ``sally-optimize``."""

import sys

from .cli import optimize_main

sys.exit(optimize_main())
