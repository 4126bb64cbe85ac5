import sys

from .cli import optimize_main

sys.exit(optimize_main())
