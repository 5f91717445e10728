"""The argparse types of the command line (synthtrust.cli.arguments): what each accepts, and the
message of each refusal."""

from __future__ import annotations

import argparse

import pytest

from synthtrust.cli.arguments import (
    candidate_choice,
    int_at_least,
    json_object,
    nonnegative_int,
    positive_float,
    positive_int,
    positive_or_all,
    regex,
    separator,
)


@pytest.mark.parametrize(
    ("parse", "text", "value"),
    [
        (positive_or_all, "-1", -1),
        (positive_or_all, "3", 3),
        (positive_int, "1", 1),
        (nonnegative_int, "0", 0),
        (int_at_least(40), "40", 40),
        (positive_float, "0.25", 0.25),
        (positive_float, "1e3", 1000.0),
        (separator, "tab", "\t"),
        (separator, "\\t", "\t"),
        (separator, ";", ";"),
        (json_object, '{"a": [1, 2]}', {"a": [1, 2]}),
        (candidate_choice, "next", "next"),
        (candidate_choice, "7", 7),
        (regex, r"(^|_)s$", r"(^|_)s$"),
    ],
)
def test_each_type_parses_what_it_accepts(parse, text, value):
    assert parse(text) == value
    assert type(parse(text)) is type(value)


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (positive_or_all, "0", "must be >= 1, or -1 for all cores"),
        (positive_or_all, "two", "expected an integer, got 'two'"),
        (positive_int, "0", "must be >= 1, got 0"),
        (nonnegative_int, "-3", "must be >= 0, got -3"),
        (int_at_least(40), "39", "must be >= 40, got 39"),
        (int_at_least(2), "1.5", "expected an integer, got '1.5'"),
        (positive_float, "0", "must be a finite number > 0, got 0"),
        (positive_float, "inf", "must be a finite number > 0, got inf"),
        (positive_float, "nan", "must be a finite number > 0, got nan"),
        (positive_float, "x", "expected a number, got 'x'"),
        (separator, "::", "unknown delimiter '::'; use one of: ',', ';', '|', tab"),
        (json_object, "{x", "not valid JSON"),
        (json_object, "[1]", "expected a JSON object {...}, got '[1]'"),
        (candidate_choice, "0", "k must be >= 1, got 0"),
        (candidate_choice, "all", "expected 'next' or an integer k, got 'all'"),
        (regex, "", "an empty pattern matches every name"),
        (regex, "(", "'(' is not a regular expression (missing ), unterminated subpattern"),
    ],
)
def test_each_type_refuses_with_a_message(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError) as info:
        parse(text)
    assert str(info.value).startswith(message)
