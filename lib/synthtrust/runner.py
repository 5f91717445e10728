import sys

from synthtrust.run import runner as _module

sys.modules[__name__] = _module
