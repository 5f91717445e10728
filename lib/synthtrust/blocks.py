import sys

from synthtrust.run import blocks as _module

sys.modules[__name__] = _module
