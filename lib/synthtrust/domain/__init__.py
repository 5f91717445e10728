"""Reversible discrete encoding of mixed-type tables over a PUBLIC domain.

The marginal-based DP synthesizers (Private-PGM, MST, AIM, MWEM+PGM, PrivBayes, ...) work on
integer codes ``0..k-1`` per column plus the sizes ``{column: k}``; the reference code assumes
data already discretised this way (Private-PGM [``privatepgm2025``] ships adult integer-coded,
every column cut to at most 100 levels, and its mechanisms expect codes in ``0..size-1``). A
:class:`Domain` maps a pandas table to such codes and back.

The domain is part of the *public* input of a DP mechanism: bounds, bin edges and category
lists must come from documentation or domain knowledge, never from the private rows (otherwise
the observed minimum, maximum or the set of rare categories leak without any noise). The only
exception is :meth:`Domain.infer`, a convenience that reads the data and says so with a
``UserWarning``.

Column specifications (one concept each):

* :class:`Categorical` — a public list of categories (strings, ints, bools); code = position.
* :class:`Numeric` — public bin edges; code = bin; decoding draws uniformly within the bin.
* :class:`Ordinal` — integers ``lo..hi``, one code per value, decoded exactly.

Every spec may allow missing values (``missing=token``): NaN/None/``pd.NA``, and values equal
to the token (e.g. ``"?"``), get the spec's last code, which decodes to NaN.

:func:`dataset_domain` gives hand-written public domains for the small medical datasets of the
evaluation-protocols chapter (Movahedi et al. 2024), for the ONS 2011 census teaching file and
for private-pgm's discretised adult; they are data, one JSON file each in
``synthtrust/domain/data/``.
"""

from __future__ import annotations

from .categorical import Categorical
from .dataset_domains import DATASET_DOMAINS, dataset_domain
from .numeric import Numeric
from .ordinal import Ordinal
from .table import Domain

__all__ = [
    "DATASET_DOMAINS",
    "Categorical",
    "Domain",
    "Numeric",
    "Ordinal",
    "dataset_domain",
]
