import sys

from synthtrust.presentation import scorecard as _module

sys.modules[__name__] = _module
