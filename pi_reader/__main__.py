"""``python -m pi_reader`` is the same as the ``pi-reader`` console script."""

import sys

from pi_reader.cli import main

sys.exit(main())
