"""Each benchmark script owns one "## ..." section of results.md and rewrites only that one."""

from __future__ import annotations

from pathlib import Path


def replace_section(path: Path, heading: str, section: str) -> None:
    """Put ``section`` (starting with ``heading``) in place of the old one, or append it."""
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    if heading in text:
        before, _, after = text.partition(heading)
        rest = after[after.find("\n## ") + 1 :] if "\n## " in after else ""
        text = before.rstrip("\n") + ("\n\n" + rest if rest else "")
    path.write_text(f"{text.rstrip()}\n\n{section.rstrip()}\n")
