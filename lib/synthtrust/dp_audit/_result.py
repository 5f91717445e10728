"""The result protocol of the audits' frozen dataclasses: ``to_dict()`` and ``to_json()``."""

from __future__ import annotations

import json
from dataclasses import asdict

__all__ = ["ResultMixin"]


class ResultMixin:
    """``to_dict`` (the fields as plain Python values) and ``to_json`` (that dict as JSON) for
    a dataclass result."""

    def to_dict(self) -> dict:
        """The attributes as a dict of plain Python values."""
        return asdict(self)

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(), indent=indent)
