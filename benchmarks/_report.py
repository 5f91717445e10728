"""Plain-text report shared by the benchmark scripts: print lines, keep them, save atomically."""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

from synthtrust._atomic import write_text

#: The repository root (benchmarks/ is one level below it).
ROOT = Path(__file__).resolve().parents[1]


class Report:
    """Print lines and keep them for the optional results file."""

    def __init__(self):
        self.lines: list[str] = []

    @classmethod
    def start(cls, script: str, argv) -> Report:
        """A report whose first lines are the command (``script`` and its arguments, ``argv``
        or the process's) and the machine with its load average."""
        rep = cls()
        rep(f"{script} {' '.join(sys.argv[1:] if argv is None else argv)}".strip())
        rep(f"machine: {machine()}; {load()}")
        return rep

    def __call__(self, text: str = "") -> None:
        print(text, flush=True)
        self.lines.extend(str(text).split("\n"))

    def table(self, headers: list[str], rows: list[list], right: set[int] | None = None) -> None:
        """Aligned plain-text table; columns in ``right`` (default: all but the first) right-aligned."""
        right = set(range(1, len(headers))) if right is None else right
        cells = [[str(c) for c in r] for r in rows]
        widths = [
            max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
            for i, h in enumerate(headers)
        ]

        def fmt(r):
            return "  ".join(
                c.rjust(w) if i in right else c.ljust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            ).rstrip()

        self(fmt(headers))
        self("  ".join("-" * w for w in widths))
        for r in cells:
            self(fmt(r))

    def save(self, path: Path) -> None:
        """Write the lines to ``path`` atomically."""
        write_text(path, "\n".join(self.lines) + "\n")

    def finish(self, output: Path | None, default: Path, full_run: bool) -> None:
        """Save to ``output``, or to ``default`` when ``output`` is None and this was a full
        run (a partial or quick run does not overwrite the published results); say where."""
        out = output if output is not None else (default if full_run else None)
        if out is None:
            return
        self.save(out)
        shown = out.relative_to(ROOT) if out.resolve().is_relative_to(ROOT) else out
        print(f"report written to {shown}")


def machine() -> str:
    """OS, architecture, CPU model, cores and memory of this machine."""
    model = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 2**20:.0f} GB"
    except (OSError, ValueError, IndexError):
        pass
    return f"{platform.system()} {platform.machine()}, {model}, {os.cpu_count()} cores{mem}"


def load() -> str:
    """The 1/5/15-minute load averages (other jobs inflate wall times)."""
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average n/a"
