"""CITATION.cff and the book's "How to cite": valid CFF 1.2.0 (cffconvert's validation against
the format's schema), the facts of pyproject.toml, _config.yml and LICENSE, a reference per
chapter that matches its references.bib entry, and the intro's BibTeX entry and chapter table
that agree with both."""

from __future__ import annotations

import re
import tomllib

import jsonschema
import pytest
import yaml
from _repo import ROOT
from cffconvert.cli.create_citation import create_citation
from pybtex.database import parse_file, parse_string
from pybtex.richtext import Text

from synthtrust.run import book

CFF_FILE = ROOT / "CITATION.cff"
CFF = yaml.safe_load(CFF_FILE.read_text(encoding="utf-8"))
BIB = parse_file(ROOT / "references.bib").entries
CHAPTERS = book.toc_chapters(ROOT)


def _text(latex: str) -> str:
    """A bib field as plain text: braces dropped, ``...''`` as curly quotes, ``--`` as a dash."""
    return Text.from_latex(latex).render_as("text")


def _opening_key(chapter: str) -> str:
    """The paper a chapter's opening section names with ``{cite:t}``: the text from its title
    to its first code cell must name exactly one."""
    text = (ROOT / "chapters" / f"{chapter}.md").read_text(encoding="utf-8")
    start = re.search(r"^# ", text, flags=re.M).start()
    opening = text[start : text.index("```{code-cell}", start)]
    (key,) = set(re.findall(r"\{cite:t\}`([^`]+)`", opening))
    return key


#: chapter -> the references.bib key of the paper it re-runs, from the chapters themselves
PAPERS = {chapter: _opening_key(chapter) for chapter in CHAPTERS}


def _intro_section(title: str) -> str:
    text = (ROOT / "intro.md").read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else None]


# ---------------------------------------------------------------------------------- the file
def test_citation_cff_is_valid_cff_1_2_0():
    create_citation(str(CFF_FILE), None).validate()  # what `cffconvert --validate` runs
    assert CFF["cff-version"] == "1.2.0"


def test_the_validation_rejects_a_broken_file(tmp_path):
    for old, new in (("license: MIT", "license: NOT-A-LICENSE"), ('doi: "10.', 'doi: "no-')):
        broken = tmp_path / "CITATION.cff"
        text = CFF_FILE.read_text(encoding="utf-8")
        assert old in text
        broken.write_text(text.replace(old, new, 1), encoding="utf-8")
        with pytest.raises(jsonschema.ValidationError):
            create_citation(str(broken), None).validate()


def test_the_facts_are_the_repositorys():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert CFF["version"] == project["version"]
    assert CFF["license"] == project["license"] == "MIT"
    assert CFF["abstract"] == project["description"]
    assert CFF["title"] == config["title"]
    assert CFF["authors"] == [{"name": config["author"]}]
    assert "repository-code" not in CFF and "url" not in CFF  # the repository states none


# ------------------------------------------------------------------------------ references
def test_the_references_are_the_chapters_papers():
    # six chapters (tests/run/test_book.py checks their order), each its own paper
    assert len(PAPERS) == 6 and len(set(PAPERS.values())) == 6
    titles = [reference["title"] for reference in CFF["references"]]
    assert titles == [_text(BIB[key].fields["title"]) for key in PAPERS.values()]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_each_reference_matches_its_bib_entry(chapter):
    key = PAPERS[chapter]
    entry, fields = BIB[key], BIB[key].fields
    (reference,) = [r for r in CFF["references"] if r["title"] == _text(fields["title"])]
    assert reference["year"] == int(fields["year"])
    assert reference.get("doi") == fields.get("doi")  # both or neither
    authors = [
        {
            "family-names": " ".join(p.prelast_names + p.last_names),
            "given-names": " ".join(p.first_names + p.middle_names),
        }
        for p in entry.persons["author"]
    ]
    assert reference["authors"] == authors
    kind = {"article": "article", "inproceedings": "conference-paper", "misc": "article"}
    assert reference["type"] == kind[entry.type]
    assert (reference.get("status") == "preprint") == (entry.type == "misc")
    # the fields the entry has, and no others
    expected = {
        "journal": fields.get("journal"),
        "collection-title": fields.get("booktitle"),
        "volume": int(fields["volume"]) if "volume" in fields else None,
        "issue": fields["number"].replace("--", "-") if "number" in fields else None,
        "notes": " ".join(_text(fields["note"]).split()) if "note" in fields else None,
    }
    if "pages" in fields:
        start, end = fields["pages"].split("--")
        expected |= {"start": int(start), "end": int(end)}
    for name, value in expected.items():
        got = reference.get(name)
        assert (" ".join(got.split()) if name == "notes" and got else got) == value, name
    eprint = [f"arXiv:{fields['eprint']}"] if "eprint" in fields else []
    assert [i["value"] for i in reference.get("identifiers", [])] == eprint


# ------------------------------------------------------------------------ the intro's section
def test_the_intro_bibtex_entry_states_the_cff_facts():
    (block,) = re.findall(r"```bibtex\n(.*?)```", _intro_section("How to cite"), flags=re.S)
    ((key, entry),) = parse_string(block, "bibtex").entries.items()
    (license_year,) = re.findall(r"Copyright \(c\) (\d{4})", (ROOT / "LICENSE").read_text())
    assert entry.type == "software" and key == f"synthtrust{license_year}"
    (author,) = entry.persons["author"]
    assert [{"name": _text(str(author))}] == CFF["authors"]
    assert _text(entry.fields["title"]) == CFF["title"]
    assert entry.fields["version"] == CFF["version"]
    assert entry.fields["year"] == license_year
    assert set(entry.fields) == {"title", "year", "version"}


def test_the_intro_cites_each_chapters_paper():
    rows = re.findall(
        r"^\| \{doc\}`chapters/(\w+)` \| \{cite:t\}`(\w+)` \|$",
        _intro_section("How to cite"),
        flags=re.M,
    )
    assert dict(rows) == PAPERS and [chapter for chapter, _ in rows] == CHAPTERS
