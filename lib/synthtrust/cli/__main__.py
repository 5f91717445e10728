"""``python -m synthtrust.cli``: the ``synthtrust`` command."""

import sys

from synthtrust.cli.app import main

sys.exit(main())
