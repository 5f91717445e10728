import sys

from synthtrust.presentation import report as _module

sys.modules[__name__] = _module
