import sys

from synthtrust.run import experiment as _module

sys.modules[__name__] = _module
