"""argparse types of the ``synthtrust`` command line: each parses one option's text or raises
:class:`argparse.ArgumentTypeError`, which argparse prints as a one-line usage error naming the
option (exit status 2)."""

from __future__ import annotations

import argparse
import json

from synthtrust._validation import check_regex

__all__ = [
    "candidate_choice",
    "int_at_least",
    "json_object",
    "nonnegative_float",
    "nonnegative_int",
    "positive_float",
    "positive_int",
    "positive_or_all",
    "regex",
    "separator",
]

_SEPARATORS = {",": ",", ";": ";", "|": "|", "tab": "\t", "\\t": "\t", "\t": "\t"}


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def positive_or_all(text: str) -> int:
    """``--n-jobs``: an integer other than 0 (``-1`` means all cores, joblib's convention)."""
    value = _integer(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be >= 1, or -1 for all cores")
    return value


def int_at_least(minimum: int):
    """An argparse type that accepts an integer ``>= minimum``."""

    def parse(text: str) -> int:
        value = _integer(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value

    return parse


positive_int = int_at_least(1)
nonnegative_int = int_at_least(0)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def positive_float(text: str) -> float:
    """A finite number ``> 0`` (e.g. ``--epsilon``, timeouts in seconds)."""
    value = _number(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value


def nonnegative_float(text: str) -> float:
    """A finite number ``≥ 0`` (e.g. ``compare --atol``)."""
    value = _number(text)
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def separator(text: str) -> str:
    """``--sep``: a CSV delimiter, ``','``, ``';'``, ``'|'`` or a tab (``tab`` or ``\\t``)."""
    if text not in _SEPARATORS:
        raise argparse.ArgumentTypeError(
            f"unknown delimiter {text!r}; use one of: ',', ';', '|', tab"
        )
    return _SEPARATORS[text]


def json_object(text: str) -> dict:
    """``--params`` and ``--domain``: a JSON object ``{...}`` as a dict."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object {{...}}, got {text!r}")
    return value


def candidate_choice(text: str) -> str | int:
    """``audit --candidates``: ``'next'`` or the number ``k >= 1`` of extreme candidates."""
    if text == "next":
        return text
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'next' or an integer k, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"k must be >= 1, got {value}")
    return value


def regex(text: str) -> str:
    """``compare --ignore``: a non-empty regular expression (checked, returned as text)."""
    try:
        check_regex(text, "pattern")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("pattern: ")) from None
    return text
