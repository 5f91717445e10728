"""``python -m synthtrust.cli``: the ``synthtrust`` command."""

import sys

from synthtrust.cli.app import main

if __name__ == "__main__":
    sys.exit(main())
