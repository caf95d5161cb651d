"""Label the bibliography as the text cites it: "[de Freitas Pereira and Marcel, 2022]".

sphinxcontrib-bibtex cites in author-year style (``bibtex_reference_style: author_year``), but
pybtex's ``plain`` style numbers the list ([1], [2], ...), so a reader who follows a citation
lands on a number. This registers ``author_year_plain``: pybtex's ``plain`` formatting and
sort order (author, year, title) with labels built from the same authors and year as the
citation. Two entries with one label get a, b, ... after the year.
"""

from __future__ import annotations

from collections import Counter

from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle


def _surname(person) -> str:
    return Text.from_latex(" ".join(person.prelast_names + person.last_names)).render_as("text")


def _label(entry) -> str:
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [_surname(p) for p in persons]
    if not names or "year" not in entry.fields:
        raise ValueError(f"bibliography entry {entry.key!r} needs an author and a year")
    if len(names) == 1:
        who = names[0]
    elif len(names) == 2:
        who = f"{names[0]} and {names[1]}"
    else:
        who = f"{names[0]} et al."
    return f"{who}, {entry.fields['year']}"


class AuthorYearLabels(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        entries = list(sorted_entries)
        labels = [_label(entry) for entry in entries]
        repeated = {label for label, n in Counter(labels).items() if n > 1}
        seen: Counter = Counter()
        for label in labels:
            if label in repeated:
                yield f"{label}{'abcdefghijklmnopqrstuvwxyz'[seen[label]]}"
                seen[label] += 1
            else:
                yield label


class AuthorYearPlainStyle(PlainStyle):
    default_label_style = AuthorYearLabels


def setup(app):
    register_plugin("pybtex.style.formatting", "author_year_plain", AuthorYearPlainStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
