import sys

from synthtrust.presentation import charts as _module

sys.modules[__name__] = _module
