import sys

from synthtrust.run import book as _module

sys.modules[__name__] = _module
