import sys

from synthtrust.importance import treeshap as _module

sys.modules[__name__] = _module
