import sys

from synthtrust.run import estimate as _module

sys.modules[__name__] = _module
