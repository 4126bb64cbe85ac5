"""``python -m sally_wheeled``: the same as ``sally-wheeled``."""

import sys

from .cli import main

sys.exit(main())
