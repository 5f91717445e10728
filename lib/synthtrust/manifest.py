import sys

from synthtrust.run import manifest as _module

sys.modules[__name__] = _module
