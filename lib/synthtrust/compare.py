import sys

from synthtrust.run import compare as _module

sys.modules[__name__] = _module
