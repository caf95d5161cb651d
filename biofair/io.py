"""Reading score files into score tables.

Every column except the score is read as text, exactly as written: ``"01"`` and ``"1"``
are two labels, and only an empty cell is missing. A file is sniffed before it is parsed
(compression, Parquet or text, NUL bytes, line length), so that a file that is not a
score table is refused at once, whatever its size. Read more in the chapter "Compute
error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

import bz2
import codecs
import csv
import gzip
import io
import lzma
import os
import re
import shlex
import zipfile
from collections import Counter, deque
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from itertools import islice
from pathlib import Path
from typing import BinaryIO, Literal

import numpy as np
import pandas as pd

from biofair._direction import warn_if_reversed
from biofair._typing import By, MissingGroups, OneClassGroups
from biofair._validation import (
    EXACT_INTEGER_LIMIT,
    check_choice,
    check_flag,
    how_many,
    inexact_integers,
    is_blank,
    is_real_dtype,
    python_command,
    quoted,
    shell_option,
)
from biofair._warnings import warn
from biofair.exceptions import SchemaError
from biofair.groups import (
    _MISSING_GROUP,
    _attribute_names,
    _attributes_of,
    _by_option,
    _check_no_missing,
    _group_codes,
    _group_columns,
    _no_subject_column,
    add_subject_attributes,
    scores_by_group,
)
from biofair.schema import (
    _FILE_ROWS,
    _FILE_SEPARATOR,
    _SCORE_SETS,
    CANONICAL_COLUMNS,
    _cli_renaming,
    _misnamed,
    _row,
    _score_problems,
    _stripped,
    validate_scores,
)

_ScoreFormat = Literal["auto", "csv", "parquet", "bob"]
_DecimalMark = Literal[".", ","]
_PathLike = str | os.PathLike

_TRUE_LABELS = {"true", "t", "1", "yes", "y", "mated", "genuine", "target"}  # t/f: PostgreSQL's booleans
_FALSE_LABELS = {"false", "f", "0", "no", "n", "nonmated", "non-mated", "non_mated", "impostor", "imposter",
                 "nontarget", "non-target"}
_BOB_COLUMNS = {
    4: ["reference_subject", "probe_subject", "probe_id", "score"],
    5: ["reference_subject", "reference_id", "probe_subject", "probe_id", "score"],
}
# Words a score cell may hold for "not a number"; they become NaN and are then reported.
_NAN_WORDS = ["", "nan", "NaN", "NAN", "-nan", "-NaN", "NA", "N/A", "n/a", "null", "NULL", "None"]
_COMPRESSION_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zip": "zip"}
_COMPRESSION_MAGIC = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz", b"PK\x03\x04": "zip"}
_PARQUET_MAGIC = b"PAR1"
#: The longest line a score file may have. Longer lines (or none at all in the first
#: MiB) mean the file is not a score table; it is refused before pandas buffers it.
_MAX_LINE_BYTES = 1 << 20
#: The byte-order mark that Excel and Notepad write at the start of a UTF-8 file.
_BOM = "\ufeff"
#: The lines :func:`_first_lines` reads: a title above the header is looked for in them.
_HEAD_LINES = 5
#: The key of ``attrs`` under which :func:`_read_file` records the format it read ("csv",
#: "parquet" or "bob"); the public readers remove it.
_FILE_FORMAT = "biofair_file_format"
#: A number as a text field holds it (a first line of such fields is data, not a header).
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
#: A number written with a decimal comma ("0,83"), as a first line of data separated by ';' has it.
_DECIMAL_COMMA = re.compile(r"[-+]?\d*,\d+([eE][-+]?\d+)?")
#: The first bytes of a Feather (Arrow IPC) file.
_FEATHER_MAGIC = b"ARROW1"
#: Told the number of comparisons :func:`read_grouped_scores` has read, before it checks them
#: (``biofair report`` announces the checks of a large file): None, or a callable.
_READ_DONE: ContextVar[Callable[[int], None] | None] = ContextVar("_READ_DONE", default=None)


def _compression(path: Path) -> str | None:
    """The compression of a file, from its first bytes (None: not compressed)."""
    with open(path, "rb") as handle:
        start = handle.read(6)
    return next((kind for magic, kind in _COMPRESSION_MAGIC.items() if start.startswith(magic)), None)


def _open_binary(path: Path, compression: str | None) -> BinaryIO:
    """The file's decompressed bytes as a stream."""
    if compression == "gzip":
        return gzip.open(path, "rb")
    if compression == "bz2":
        return bz2.open(path, "rb")
    if compression == "xz":
        return lzma.open(path, "rb")
    if compression == "zip":
        archive = zipfile.ZipFile(path)
        names = archive.namelist()
        if "[Content_Types].xml" in names and any(name.startswith("xl/") for name in names):
            raise SchemaError(
                f"{path} is an Excel workbook, not a score file: save its sheet as 'CSV UTF-8' in Excel, or "
                "convert it, e.g. " + python_command(
                    f"import pandas as pd; pd.read_excel({str(path)!r}).to_csv("
                    f"{str(path.with_name(path.name.split('.')[0] + '-sheet.csv'))!r}, index=False)")
                + " (which needs openpyxl; a new file: the workbook, or a CSV file of its name, stays as it is)"
            )
        if len(names) != 1:
            raise SchemaError(f"{path} is a zip archive of {len(names)} files; a score file zip holds one")
        return archive.open(names[0])
    return open(path, "rb")


def _save_as_utf8(encoding: str) -> str:
    """How to turn a text file of ``encoding`` into the UTF-8 the reader takes."""
    return f"save it as UTF-8 (in Excel: 'CSV UTF-8'), or convert it, e.g. iconv -f {encoding} -t UTF-8"


def _first_undecodable_line(path: Path, compression: str | None) -> tuple[int, str] | None:
    """The number of the first line of a file that is not UTF-8 text, and that line (each byte
    UTF-8 cannot read shown as the replacement character); None if there is none. The file is
    read by blocks: the line count of each block is one ``bytes.count``."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    number, tail = 1, b""  # tail: the current line's bytes before this block
    with _open_binary(path, compression) as stream:
        while block := stream.read(1 << 20):
            try:
                decoder.decode(block)
            except UnicodeDecodeError as error:  # error.object: the decoder's pending bytes (which end tail), then the block
                seen = tail[: len(tail) - (len(error.object) - len(block))] + error.object
                where = len(seen) - len(error.object) + error.start
                start = seen.rfind(b"\n", 0, where) + 1
                end = seen.find(b"\n", where)
                line = seen[start: end if end >= 0 else len(seen)].rstrip(b"\r")
                return number + seen.count(b"\n", 0, start), line.decode("utf-8", errors="replace")
            number += block.count(b"\n")
            tail = block[block.rfind(b"\n") + 1:] if b"\n" in block else tail + block
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:  # a character cut short by the end of the file
        return number, tail.rstrip(b"\r").decode("utf-8", errors="replace")
    return None


def _first_lines(path: Path, compression: str | None) -> list[str]:
    """The first lines of a text file (at most ``_HEAD_LINES``, whole lines only), refusing
    binary files and overlong lines early.

    Only the first MiB is read: a file of NUL bytes, or with no line break, is refused
    before any parser sees it.
    """
    with _open_binary(path, compression) as stream:
        head = stream.read(_MAX_LINE_BYTES + 1)
    if not head.strip():
        raise SchemaError(f"{path} is empty")
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):  # the byte-order mark of UTF-16, which has NUL bytes in ASCII text
        raise SchemaError(f"{path} is UTF-16 text (Excel's 'Unicode text'), not UTF-8: {_save_as_utf8('UTF-16')}")
    start = head[:64]
    for order, zeros, text in (("LE", start[1::2], start[0::2]), ("BE", start[0::2], start[1::2])):
        if len(start) >= 4 and not zeros.strip(b"\0") and all(text):  # ASCII text as UTF-16, without the mark
            raise SchemaError(f"{path} is UTF-16 text without a byte-order mark, not UTF-8: "
                              f"{_save_as_utf8(f'UTF-16{order}')}")
    nul = head.find(b"\0")
    if nul >= 0:
        raise SchemaError(
            f"{path} is not a text score file: byte {nul:,} is a NUL byte (a binary file? "
            "Parquet files need the suffix .parquet or format='parquet')"
        )
    if b"\r" in head and b"\n" not in head:
        raise SchemaError(f"{path} ends its lines with a carriage return alone (classic Mac OS text), which the "
                          "reader does not take: convert them, e.g. tr '\\r' '\\n' < old.csv > new.csv")
    if b"\r\r\n" in head:  # the whole file is read only for the message; later ones: see each reader
        raise SchemaError(_doubled_carriage_returns_problem(path, compression))
    lines = head.split(b"\n", _HEAD_LINES)
    if len(lines[0]) > _MAX_LINE_BYTES:
        raise SchemaError(f"{path} is not a score file: its first line is longer than {_MAX_LINE_BYTES:,} bytes")
    if len(lines) > 1 and len(head) > _MAX_LINE_BYTES:  # the last may be cut short
        lines.pop()
    return [line.decode("utf-8-sig" if number == 0 else "utf-8", errors="replace").rstrip("\r")
            for number, line in enumerate(lines[:_HEAD_LINES])]


def _doubled_carriage_returns_problem(path: Path, compression: str | None) -> str:
    """The error of a text file with lines ending in two carriage returns (``\\r\\r\\n``), which
    pandas reads as a row and an empty row, so that every later row's number is off; "" if it
    has none. The file is read by blocks, each searched with ``bytes.count`` and ``bytes.find``
    (its last two bytes carried into the next, where such an ending may be cut)."""
    count = first = 0
    before = 0  # the line breaks before ``seen``
    tail = b""
    with _open_binary(path, compression) as stream:
        while block := stream.read(1 << 20):
            seen = tail + block
            if not first and (found := seen.find(b"\r\r\n")) >= 0:
                first = before + seen.count(b"\n", 0, found) + 1
            count += seen.count(b"\r\r\n")
            tail = seen[-2:]
            before += seen.count(b"\n", 0, len(seen) - len(tail))
    if not count:
        return ""
    return (
        f"{path} ends {how_many(count, 'line')} with two carriage returns (\\r\\r\\n; the first is line {first:,}), as "
        "Python's csv module writes on Windows to a file opened without newline='': each such line would read as a "
        "row and an empty row. Convert them, e.g. "
        + python_command("import sys; sys.stdout.buffer.write(sys.stdin.buffer.read().replace(b'\\r\\r\\n', b'\\r\\n'))")
        + " < old.csv > new.csv"
    )


def _kind(path: Path, format: _ScoreFormat, compression: str | None, decimal: str, *,
          scored: bool = True) -> tuple[str, str, str]:
    """``(format, separator, first line)`` of a file, from its suffix, else its content. Fields
    separated by ';' are read with a decimal comma only (``decimal=','``), unless the file holds
    no scores (``scored=False``: a subject file, whose columns are all text)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSION_SUFFIXES:
        suffixes.pop()
    suffix = suffixes[-1] if suffixes else ""
    if format == "parquet" or (format == "auto" and suffix in (".parquet", ".pq")):
        if compression is not None:
            raise SchemaError(f"{path} is a {compression}-compressed file; a Parquet file is compressed inside "
                              "and is read as it is written: decompress it first")
        return "parquet", "", ""
    with open(path, "rb") as handle:
        start = handle.read(len(_FEATHER_MAGIC))
    if format == "auto" and start.startswith(_PARQUET_MAGIC):
        return "parquet", "", ""
    if start == _FEATHER_MAGIC:
        raise SchemaError(
            f"{path} is a Feather (Arrow IPC) file, which biofair does not read: convert it to Parquet, e.g. "
            + python_command(f"import pandas as pd; pd.read_feather({str(path)!r})"
                             f".to_parquet({_new_name(path, '.parquet')})")
        )
    lines = _first_lines(path, compression)
    header = lines[0]
    if header.lstrip().startswith(("{", "[")):
        raise SchemaError(
            f"{path} holds JSON (first line {header[:60]!r}...), which biofair does not read: convert it to CSV, "
            "e.g. " + python_command(f"import pandas as pd; pd.read_json({str(path)!r}, lines="
                                     f"{not header.lstrip().startswith('[')}).to_csv({_new_name(path, '-table.csv')}, "
                                     "index=False)")
        )
    if header.lstrip().lower().startswith(("<!doctype html", "<html")):
        raise SchemaError(
            f"{path} is a web page (HTML, first line {header[:60]!r}), not a score file: a link that led to a page "
            "(a sign-in, an error or a preview) rather than to the file? Download the file itself"
        )
    if len(header) == 5 and header.lower().startswith("sep="):
        raise SchemaError(f"{path} starts with {header!r}, Excel's hint of its separator, not a header: "
                          "delete that first line (the header follows it)")
    fields = header.split(";")
    semicolons = format != "bob" and ";" in header and "\t" not in header and all(
        "," not in field or _DECIMAL_COMMA.fullmatch(field.strip()) for field in fields)
    if semicolons and any(_NUMBER.fullmatch(field.strip()) or _DECIMAL_COMMA.fullmatch(field.strip())
                          for field in fields):
        guess = _guessed_names(fields)
        labels = ", ".join(f"{name!r}: str" for name in guess if name != "score")  # as written ("01")
        raise SchemaError(
            f"{path} separates its fields with ';' (first line {header[:80]!r}), as spreadsheets do where the "
            "decimal mark is a comma, and has no header line naming its columns. Convert it, e.g. " + python_command(
                f"import pandas as pd; pd.read_csv({str(path)!r}, sep=';', decimal=',', header=None, names={guess!r}, "
                f"dtype={{{labels}}}, keep_default_na=False).to_csv({_new_name(path, '-comma.csv')}, index=False)")
            + " (its first line is data: the names, in the order of its columns, are a guess)"
        )
    if semicolons and scored and decimal == "." and _has_decimal_points(lines[1:]):
        raise SchemaError(
            f"{path} separates its fields with ';' (first line {header[:80]!r}), as spreadsheets do where the "
            "decimal mark is a comma, but its numbers have a decimal point (e.g. line 2, "
            f"{lines[1][:80]!r}), which decimal=',' would not read: convert its separators to commas, "
            + _semicolons_to_commas(path)
        )
    if semicolons and scored and decimal == ".":
        raise SchemaError(
            f"{path} separates its fields with ';' (first line {header[:80]!r}), as spreadsheets do where the "
            f"decimal mark is a comma: read it with biofair.read_scores({str(path)!r}, decimal=',') or biofair report "
            "--decimal , (scores such as 0,83 are read as numbers; every other column stays text, as written)"
        )
    if ((format == "csv" or (format == "auto" and suffix in (".csv", ".tsv") and not header.startswith("#")))
            and not semicolons and "," not in header and "\t" not in header):
        if _looks_like_bob(header):
            raise SchemaError(
                f"{path} has no comma or tab in its first line ({header[:80]!r}): its {len(header.split())} fields "
                "separated by spaces, the last a number, are those of a bob score file (" +
                " ".join(_BOB_COLUMNS[len(header.split())]) + "), not of a CSV table: read it with format='bob' "
                "(biofair report --format bob), and give the groups of its subjects with subjects='people.csv' "
                "(biofair report --subjects people.csv: columns subject and one per attribute, e.g. gender)"
            )
        if titles := next((number for number, line in enumerate(lines[1:], 1) if "," in line or "\t" in line), 0):
            separator = "" if "," in lines[titles] else ", sep='\\t'"
            raise SchemaError(
                f"{path} has no comma or tab in its first line ({header[:80]!r}), but line {titles + 1} has "
                f"({lines[titles][:80]!r}): a title above the header? Delete the line{'s' if titles > 1 else ''} "
                "above the header, e.g. " + python_command(
                    f"import pandas as pd; pd.read_csv({str(path)!r}, skiprows={titles}{separator}, dtype=str, "
                    f"keep_default_na=False).to_csv({_new_name(path, '-table.csv')}, index=False)")
                + " (every field as written)"
            )
        if len(header.split()) > 1:
            raise SchemaError(f"{path} has no comma or tab in its first line ({header[:80]!r}): if its fields are "
                              f"separated by spaces, {_to_csv(path)}")
    tab_separated = suffix == ".tsv" or ("\t" in header and "," not in header)
    if format == "csv" or (format == "auto" and (suffix in (".csv", ".tsv") or "," in header or "\t" in header
                                                 or semicolons)):
        if header.startswith("#"):
            raise SchemaError(f"{path} starts with a comment line ({header[:80]!r}), not with the header of its "
                              "columns: delete the comment lines")
        return "csv", ";" if semicolons else "\t" if tab_separated else ",", header
    return "bob", r"\s+", header


def _new_name(path: Path, ending: str) -> str:
    """The name of the file a suggested conversion of ``path`` writes, in the working folder (the
    file's name up to its first dot, then ``ending``), as a Python string literal."""
    return repr(path.name.split(".")[0] + ending)


def _has_decimal_points(lines: list[str]) -> bool:
    """Whether lines of fields separated by ';' hold numbers with a decimal point ("0.83") and
    none with a decimal comma ("0,83"): a file that decimal=',' would not read."""
    fields = [field.strip() for line in lines for field in line.split(";")]
    return (any("." in field and _NUMBER.fullmatch(field) for field in fields)
            and not any(_DECIMAL_COMMA.fullmatch(field) for field in fields))


def _semicolons_to_commas(path: Path) -> str:
    """A command that turns a file whose fields are separated by ';' into a CSV file, every
    field as written (its scores with a decimal point then read as numbers)."""
    return "e.g. " + python_command(
        f"import pandas as pd; pd.read_csv({str(path)!r}, sep=';', dtype=str, keep_default_na=False)"
        f".to_csv({_new_name(path, '-comma.csv')}, index=False)") + " (every field as written)"


def _looks_like_bob(line: str) -> bool:
    """Whether a line holds the fields of a bob score file: 4 or 5 separated by white space,
    the last a number (the score)."""
    fields = line.split()
    return len(fields) in _BOB_COLUMNS and _NUMBER.fullmatch(fields[-1]) is not None


def _guessed_names(values: list[str]) -> list[str]:
    """Column names for a first line of data: score and mated from its values (a number; a
    mated/non-mated label), and "group" for the one other column, if one."""
    guess: list[str] = []
    for value in values:
        word = value.strip().lower()
        if "mated" not in guess and word in _TRUE_LABELS | _FALSE_LABELS:
            guess.append("mated")
        elif "score" not in guess and (_NUMBER.fullmatch(word) or _DECIMAL_COMMA.fullmatch(word)):
            guess.append("score")
        else:
            guess.append("")
    others = guess.count("")
    return [name or ("group" if others == 1 else f"<name of column {i + 1}>") for i, name in enumerate(guess)]


def _refuse_headerless(names: list[str], path: Path, sep: str, columns: Mapping[str, str] | None) -> None:
    """Refuse a CSV file whose first line is data ("0.83,1,female"), not the names of its
    columns: a field of it is a number, and no column is (or is mapped to) the score. Pandas
    took the first comparison for the header, and the error was of a missing column named
    after its values ("pass by='0.83'")."""
    numbers = [name for name in names if _NUMBER.fullmatch(name.strip())]
    if not numbers or "score" in {(columns or {}).get(name, name) for name in names}:
        return
    guess = _guessed_names(names)
    separator = ", sep='\\t'" if sep == "\t" else ""
    guessed = ", guessed from its first line" if "score" in guess else ""
    raise SchemaError(
        f"{path}: its first line ({sep.join(names)[:80]!r}) is data, not a header: a score table's first line names "
        "its columns (score, mated and the group attribute(s), e.g. score,mated,group), and the number "
        f"{numbers[0].strip()!r} is no column name. Add that line, e.g. " + python_command(
            f"import pandas as pd; pd.read_csv({str(path)!r}, header=None, names={guess!r}{separator}, dtype=str, "
            f"keep_default_na=False).to_csv({_new_name(path, '-named.csv')}, index=False)")
        + f" (the names in the order of the file's columns{guessed})"
    )


def _refuse_repeated_header(table: pd.DataFrame, names: list[str], score: str, path: Path, sep: str) -> None:
    """Refuse a CSV file whose header line comes again among its data rows, as files joined
    with their headers (``cat a.csv b.csv``) have it: the error was of a score column that is
    not numeric, with the word 'score' as the value."""
    if score not in table.columns or not pd.api.types.is_string_dtype(table[score]):
        return  # a header repeated would have left its name in the score column (not numbers, nor Python ints)
    again = np.array(table[score].str.removeprefix(_BOM) == score, dtype=bool)  # the few candidates, then their rows
    marked = False
    if again.any():
        rows = table[again].copy()
        marked = rows.iloc[:, 0].str.startswith(_BOM, na=False).any()  # a file joined with its byte-order mark
        rows.iloc[:, 0] = rows.iloc[:, 0].str.removeprefix(_BOM)
        again[again] = rows.eq(table.columns.to_series(index=table.columns)).all(axis=1).to_numpy()
    if not again.any():
        return
    first = int(again.argmax())
    separator = "" if sep == "," else f", sep={sep!r}"  # written back as read: decimal commas stay unquoted
    unmarked = ".replace('^\\ufeff', '', regex=True)" if marked else ""
    raise SchemaError(
        f"{path}: data row {first + 1} repeats the header line ({sep.join(names)[:80]!r}), as files joined with "
        f"their headers (cat a.csv b.csv) do{', the second with its byte-order mark' if marked else ''}; "
        f"{how_many(int(again.sum()), 'data row')} in all. Delete {'it' if again.sum() == 1 else 'them'}, e.g. "
        + python_command(f"import pandas as pd; t = pd.read_csv({str(path)!r}, dtype=str, keep_default_na=False"
                         f"{separator}); t[~t{unmarked}.eq(t.columns).all(axis=1)].to_csv("
                         f"{_new_name(path, '-once.csv')}{separator}, index=False)")
    )


def _renames(names: list[str], columns: Mapping[str, str] | None) -> dict[str, str]:
    """The column mapping, checked against the file's column names."""
    if columns is None:
        return {}
    absent = [name for name in columns if name not in names]
    if absent:
        backwards = {source for source in absent if source in CANONICAL_COLUMNS and columns[source] in names}
        turned = {(columns[source] if source in backwards else source): (source if source in backwards else columns[source])
                  for source in columns}  # {"score": "sim"} written backwards, the other pairs as they are
        hint = (f"; a mapping goes from the file's names to biofair's: columns={turned!r} (biofair report --columns "
                + ",".join(f"{name}={canonical}" for name, canonical in turned.items()) + ")" if backwards else "")
        raise SchemaError(f"columns {absent} named in the mapping are not in the file (it has {names}){hint}")
    targets = Counter(columns.values())
    for target, count in targets.items():
        if count > 1:
            sources = [k for k, v in columns.items() if v == target]
            raise SchemaError(f"columns maps {sources} all to {target!r}; one column per name")
    for source, target in columns.items():
        if target in names and target not in columns:
            raise SchemaError(
                f"columns maps {source!r} to {target!r}, but the file already has a column "
                f"{target!r}: rename or drop one of them (e.g. also map {target!r} to another name)"
            )
    return dict(columns)


def _check_names(names: list[str], path: Path) -> None:
    duplicated = sorted({name for name, count in Counter(names).items() if count > 1 and name})
    if duplicated:
        raise SchemaError(f"{path} has duplicate column name(s) {duplicated}; every column needs its own name")


#: The words of the warning :func:`_read_csv` gives for rows without a value (the command line shows it).
_EMPTY_ROWS_WARNING = "empty in every column"


def _read_csv(path: Path, sep: str, header: str, compression: str | None,
              columns: Mapping[str, str] | None, decimal: str) -> pd.DataFrame:
    """A CSV table: the score column parsed as numbers with the ``decimal`` mark, every other
    column as text."""
    names = next(csv.reader([header], delimiter=sep))
    _check_names(names, path)
    _refuse_headerless(names, path, sep, columns)
    renames = _renames(names, columns)
    score = next((source for source, target in renames.items() if target == "score"), "score")
    if decimal == sep and score in names:
        raise SchemaError(
            f"{path}: decimal=',' (biofair report --decimal ,) reads scores written with a decimal comma, but the "
            f"file also separates its fields with commas (first line {header[:80]!r}), so a score such as 0,83 would "
            "be two fields. A decimal comma goes with fields separated by ';' or tabs: read this file without "
            "decimal=',' (its scores then have a decimal point), or export it again with ';' as its separator"
        )
    try:
        table = pd.read_csv(
            path, sep=sep, decimal=decimal, compression=compression, keep_default_na=False,
            skip_blank_lines=False,  # rows keep their numbers
            dtype={name: str for name in names if name != score},
            na_values={name: _NAN_WORDS if name == score else [""] for name in names},
        )
    except pd.errors.ParserError as error:  # its record numbers count a \r\r\n (after the first MiB) twice
        raise SchemaError(_doubled_carriage_returns_problem(path, compression)
                          or _parser_problem(str(error), path, sep, len(names), compression)) from error
    if not isinstance(table.index, pd.RangeIndex):  # pandas made the first column(s) the index
        raise SchemaError(
            f"{path}: its data rows have more fields than its header ({len(names)}: {', '.join(names)}), so "
            "every value would shift by a column; a separator at the end of each data row does this. Make "
            "the header and the rows agree (remove the trailing separators, or name the extra column); if only "
            f"some rows have more fields, the cause is {_unquoted_separator(sep)}"
        )
    unscored = _blank(table[score]).to_numpy() if score in table.columns else np.ones(len(table), dtype=bool)
    empty = np.zeros(len(table), dtype=bool)
    empty[unscored] = table[unscored].apply(_blank).all(axis=1).to_numpy()  # only the rows without a score are read
    if empty.any() and (problem := _doubled_carriage_returns_problem(path, compression)):  # after the first MiB
        raise SchemaError(problem)  # (see _first_lines): before any message that numbers a later row
    _refuse_repeated_header(table, names, score, path, sep)
    _refuse_comment_lines(table, score, path)
    for name in [name for name in table.columns if name != score and pd.api.types.is_string_dtype(table[name])]:
        distinct = pd.Series(table[name].dropna().unique())  # labels and ids repeat: each value is read once
        if distinct.str.contains("\n|\r", regex=True).any():
            broken = table[name].str.contains("\n|\r", regex=True, na=False).to_numpy()
            row = int(broken.argmax())
            raise SchemaError(
                f"{path}: column {name!r} of data row {row + 1} holds a line break "
                f"({table[name].iloc[row][:60]!r}...). A label or id may not span lines: if the file meant "
                f"one, replace the line breaks (e.g. table[{name!r}] = table[{name!r}].str.replace('\\n', ' ') "
                "before writing it). Otherwise a stray quote (\") opened a field there that closed lines later, "
                "and every line in between was read as part of that one row: remove it, or quote the whole "
                'field and double the quotes inside it ("see ""ticket""")'
            )
    _refuse_short_rows(table, names, path, sep, compression)
    if n_empty := int(empty.sum()):
        one = n_empty == 1
        warn(
            f"{how_many(n_empty, 'data row')} of {quoted(path.name)} {'is' if one else 'are'} {_EMPTY_ROWS_WARNING} "
            f"({'it is' if one else 'the first is'} data row {int(empty.argmax()) + 1}; a spreadsheet's trailing "
            f"row{'' if one else 's'}?): {'it holds' if one else 'they hold'} no comparison and {'is' if one else 'are'} "
            "left out",
            UserWarning,
        )
        table = table[~empty]
    return table.rename(columns=renames)


def _refuse_short_rows(table: pd.DataFrame, names: list[str], path: Path, sep: str, compression: str | None) -> None:
    """Refuse a CSV file with data rows of fewer fields than its header (a file cut short, a
    field left out): pandas fills the fields a row lacks with empty cells, and the error was of
    an empty cell, or the row joined the group of rows without a label. Only a row whose last
    cell is empty can be short: when there are such rows, the fields of the file's records up
    to the last of them are counted with the csv module (quotes and line breaks in quotes read
    as pandas reads them), in C (``map(len, ...)``). A blank line, warned of, is no short row."""
    candidates = np.flatnonzero(_blank(table.iloc[:, -1]).to_numpy())
    if not candidates.size:
        return
    with (_open_binary(path, compression) as stream,
          io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline="") as text):
        fields = np.fromiter(map(len, islice(csv.reader(text, delimiter=sep), int(candidates[-1]) + 2)), dtype=np.intp)
    short = candidates[fields[candidates + 1] < len(names)]  # record 0: the header
    short = short[~table.iloc[short].apply(_blank).all(axis=1).to_numpy()]
    if not short.size:
        return
    row = int(short[0])
    count = int(fields[row + 1])
    raise SchemaError(
        f"{path}: data row {row + 1:,} (line {_line_of(path, sep, compression, row + 1):,}) has {how_many(count, 'field')} where the header has "
        f"{len(names)} ({', '.join(names)}), and its missing fields would be read as empty cells; "
        f"{how_many(short.size, 'data row', verbs=('is', 'are'))} short in all. A row cut short (the file "
        f"truncated? a field left out?): give every row all {len(names)} fields, an empty one (two separators in "
        "a row) where a value is missing"
    )


def _line_of(path: Path, sep: str, compression: str | None, row: int) -> int:
    """The line of the CSV file at ``path`` where its data row ``row`` (counted from 1, as
    pandas counts records: blank lines too) starts, which is later when a quoted field of a row
    before it holds a line break: the csv module reads the header and those rows as pandas does."""
    with (_open_binary(path, compression) as stream,
          io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline="") as text):
        records = csv.reader(text, delimiter=sep)
        deque(islice(records, row), maxlen=0)  # the header and the rows before this one
        return records.line_num + 1


def _unquoted_separator(sep: str) -> str:
    """The likely causes of a data row with more fields than the header, and their repair."""
    if sep == ",":
        return ("a comma unquoted in a field (a decimal comma, '0,83'? a label such as 'Smith, J'?) or at the end "
                "of the row: quote such fields (\"Smith, J\"), write numbers with a decimal point, and remove "
                "separators at the ends of rows")
    if sep == ";":
        return ("a ';' unquoted in a field (a label such as 'Smith; J'?) or at the end of the row: quote such fields "
                "(\"Smith; J\"), and remove separators at the ends of rows")
    return ("a tab in a field or at the end of the row: quote such fields or replace the tabs in them, and remove "
            "tabs at the ends of rows")


def _parser_problem(error: str, path: Path, sep: str, n_names: int, compression: str | None) -> str:
    """The message of pandas' tokenizer ``error`` in the words of the file's data rows and lines
    (its "line 4" is the fourth record, header included, which starts on a later line when a
    quoted field before it spans lines; "row 3" of an open quote, the third data row), with the
    cause and the repair; other errors as they are."""
    if found := re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", error):
        _, record, saw = map(int, found.groups())
        return (f"{path}: data row {record - 1:,} (line {_line_of(path, sep, compression, record - 1):,}) has {saw} "
                f"fields, the header {n_names}: look for " + _unquoted_separator(sep))
    if found := re.search(r"EOF inside string starting at row (\d+)", error):
        row = int(found.group(1))
        return (f"{path}: the quote (\") that opens a field of data row {row:,} (line "
                f"{_line_of(path, sep, compression, row):,}) is never closed, so "
                "the rest of the file would be one field: remove the stray quote, or quote the whole field and double "
                'the quotes inside it ("see ""ticket""")')
    return f"could not read {path} as a score file: {error}"


#: The values a spreadsheet writes into a cell it cannot compute: a score cell holding one is a
#: score that is not a number (named by validate_scores), not a comment line.
_SPREADSHEET_ERRORS = ["#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#SPILL!", "#CALC!",
                       "#GETTING_DATA", "#FIELD!", "#BLOCKED!", "#CONNECT!", "#BUSY!", "#UNKNOWN!"]


def _refuse_comment_lines(table: pd.DataFrame, score: str, path: Path) -> None:
    """Refuse a CSV file with comment lines among its data rows ("# calibrated on dev"): each
    was read as a row without a score or a label, and the error was of an empty 'mated' cell.
    A comment row starts with '#' and has no number as its score (a label '#3' with a score is
    data; a spreadsheet's error value such as '#DIV/0!' is none either)."""
    first = table.iloc[:, 0]
    if not pd.api.types.is_string_dtype(first) or score not in table.columns:
        return  # a column of numbers starts no line with '#'
    distinct = pd.Series(first.dropna().unique())  # labels and ids repeat: each value is read once
    marked = distinct[distinct.str.lstrip().str.startswith("#") & ~distinct.str.strip().isin(_SPREADSHEET_ERRORS)]
    if marked.empty:
        return
    candidates = first.isin(marked).to_numpy()
    scores = table[score][candidates]
    comment = np.zeros(len(table), dtype=bool)
    comment[candidates] = (scores.isna() if pd.api.types.is_numeric_dtype(scores)
                           else pd.to_numeric(scores, errors="coerce").isna()).to_numpy()
    if comment.any():
        row = int(comment.argmax())
        raise SchemaError(
            f"{path}: data row {row + 1:,} is a comment line ({str(first.iloc[row])[:60]!r}), {int(comment.sum()):,} "
            "in all: a score file's rows are comparisons. Delete the comment lines, e.g. grep -v '^#' old.csv > new.csv"
        )


def _blank(column: pd.Series) -> pd.Series:
    """Cells that hold nothing: missing, or only spaces (a line of spaces is one such cell)."""
    if pd.api.types.is_string_dtype(column) or column.dtype == object:
        return column.isna() | column.astype(str).str.strip().eq("")
    return column.isna()


def _as_text(column: pd.Series) -> pd.Series:
    """A column's values as text, missing values kept missing."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = column.cat.categories
        return column.cat.rename_categories([str(c) for c in categories]).astype(str)
    if column.dtype == object:
        return column.map(str, na_action="ignore")
    if pd.api.types.is_string_dtype(column):
        return column
    return column.astype(str).where(column.notna())


def _read_parquet(path: Path, columns: Mapping[str, str] | None) -> pd.DataFrame:
    """A Parquet table: typed as stored, every column but score and mated turned into text.

    A named index pandas stored (``table.set_index("group").to_parquet(...)``) is restored
    as the row labels, without its name, and is also a column like the others (it was lost:
    a group, subject or system column stored so went unseen).

    Integer columns with missing values are read as Arrow integers, not as the floats pandas
    makes of them: labels 1 and 2 stay "1" and "2", not "1.0" and "2.0".
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    _check_names(schema.names, path)
    renames = _renames(schema.names, columns)
    table = pd.read_parquet(path)
    for name in [name for name in table.index.names if name is not None and name not in table.columns]:
        table[name] = table.index.get_level_values(name)  # a column stored as pandas' index: data too
    table.index.names = [None] * table.index.nlevels  # row labels only ("group" both would be ambiguous)
    score = next((source for source, target in renames.items() if target == "score"), "score")
    if score in schema.names and pa.types.is_decimal(schema.field(score).type):
        table[score] = _decimal_scores(table[score], path, score, schema.field(score).type)
    labels = [name for name in table.columns if renames.get(name, name) not in ("score", "mated")]
    nested = [name for name in labels if name in schema.names and pa.types.is_nested(schema.field(name).type)]
    if nested:  # each value would be named by its text, "['A']"
        name = nested[0]
        raise SchemaError(
            f"{path}: column {name!r} holds values of type {schema.field(name).type} (lists or records), not one "
            f"label per row: store one value per row, e.g. the first of each list, table[{name!r}] = "
            f"table[{name!r}].map(lambda values: values[0])"
        )
    # stored as integers, made floats by pandas (nulls, and no pandas metadata to say Int64)
    integers = [name for name in labels if name in schema.names and pa.types.is_integer(schema.field(name).type)
                and table[name].dtype.kind == "f"]  # a RangeIndex is stored as metadata: no field
    if integers:  # the rows in the order read, under the index pandas restored
        table[integers] = pq.read_table(path, columns=integers).to_pandas(types_mapper=pd.ArrowDtype).set_axis(table.index)
    for name in labels:
        table[name] = _as_text(table[name])
    return table.rename(columns=renames)


#: Significant digits up to which distinct decimals stay distinct (and ordered) as float64.
_DECIMAL_DIGITS = 15


def _decimal_scores(values: pd.Series, path: Path, name: str, stored) -> pd.Series:
    """A Parquet decimal score column (SQL and Spark exports), read by pandas as Python
    decimals, as float64: each converted as its text is (correctly rounded; Arrow's own cast
    is an ulp off for some), which keeps distinct decimals distinct and in order up to
    ``_DECIMAL_DIGITS`` significant digits; wider decimals are refused rather than tied."""
    if stored.precision > _DECIMAL_DIGITS:
        raise SchemaError(
            f"{path}: column {name!r} holds decimals of {stored.precision} digits ({stored}), more than float64 "
            f"keeps apart ({_DECIMAL_DIGITS}): distinct scores could become ties. Round them to {_DECIMAL_DIGITS} "
            "digits or store them as float64"
        )
    return pd.Series(np.asarray(values, dtype=object).astype(np.float64), index=values.index)


def _to_csv(path: Path) -> str:
    """How to convert a table whose fields are separated by spaces into a CSV file."""
    return "convert it to CSV, e.g. " + python_command(
        f"import pandas as pd; pd.read_csv({str(path)!r}, sep=r'\\s+').to_csv({_new_name(path, '-table.csv')}, "
        "index=False)")


def _mixed_bob_problem(path: Path, where: str, saw: int, expected: int) -> str:
    """The error of a bob score file whose lines have different numbers of fields: ``where``
    names the first line with ``saw`` fields after lines of ``expected``, and the likely cause."""
    kinds = " or ".join(f"{n} ({' '.join(names)})" for n, names in _BOB_COLUMNS.items())
    cause = ("Two score files of different kinds joined? Read each on its own" if saw in _BOB_COLUMNS else
             "An id with a space in it? The fields are separated by white space: replace the spaces in ids (by _)"
             if saw > expected else "A field left out? Every comparison needs each of them")
    return (f"{path}: {where} has {saw} fields, the lines before it {expected}: a bob score file has the same "
            f"fields on every line, {kinds}. {cause}")


#: A comment line of a bob score file, up to its line break: '#' first after blanks.
_COMMENT_LINE = re.compile(rb"^[ \t\f\v]*#[^\n]*", re.MULTILINE)


def _without_comment_lines(path: Path, compression: str | None) -> io.BytesIO:
    """A bob score file's bytes with each comment line left blank: a line whose first
    non-blank character is '#', as bob's own readers define it (``if s[0] == '#': continue``).
    A '#' inside a field ("probe#2") is part of it, where pandas' ``comment='#'`` would cut the
    line there. Blank, a comment line keeps the numbers pandas gives the lines after it. One
    regular expression over the whole file, no loop over its lines."""
    with _open_binary(path, compression) as stream:
        data = stream.read()
    return io.BytesIO(_COMMENT_LINE.sub(b"", data) if b"#" in data else data)


def _read_bob(path: Path, compression: str | None, columns: Mapping[str, str] | None, format: _ScoreFormat,
              decimal: str) -> pd.DataFrame:
    try:
        # ids as written ("NA" and "null" name subjects); only a field a short line lacks is missing
        table = pd.read_csv(_without_comment_lines(path, compression), sep=r"\s+", header=None, dtype=str,
                            keep_default_na=False, na_values=[""])
    except pd.errors.ParserError as error:  # pandas counts every line, blank lines and comments too
        if problem := _doubled_carriage_returns_problem(path, compression):  # \r\r\n, two lines each to pandas
            raise SchemaError(problem) from None
        if found := re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(error)):
            expected, line, saw = map(int, found.groups())
            raise SchemaError(_mixed_bob_problem(path, f"line {line:,}", saw, expected)) from None
        raise
    if table.shape[1] not in _BOB_COLUMNS:
        why = ("format='bob'" if format == "bob" else "its name does not end in .csv, .tsv or .parquet, "
               "and its first line has no comma or tab")
        raise SchemaError(
            f"{path} was read as a bob score file ({why}); a bob score file has 4 or 5 "
            f"whitespace-separated columns, this one has {table.shape[1]}. "
            + ("Give format='csv' (biofair report --format csv) if it is a table with commas or tabs; if "
               if format == "bob" else "If it is a table and ") + f"its fields are separated by spaces, {_to_csv(path)}"
        )
    table.columns = _BOB_COLUMNS[table.shape[1]]
    if table.shape[1] == 5 and table["score"].isna().any():  # a line of 4 fields after lines of 5: no score
        short = int(table["score"].isna().to_numpy().argmax())
        raise SchemaError(_mixed_bob_problem(path, f"comparison {short + 1:,} (not counting blank lines and comments)",
                                             int(table.iloc[short].notna().sum()), 5))
    numeric = [pd.api.types.is_numeric_dtype(_parsed_scores(table["score"].iloc[[row]], decimal))
               for row in range(min(2, len(table)))]
    if numeric == [False, True] and not any(c.isdigit() for c in str(table["score"].iloc[0])):  # a header line:
        # "claimed real test score", not a first score mistyped ("1.83O5")
        raise SchemaError(
            f"{path}: its first line ({' '.join(map(str, table.iloc[0]))!r}) is a header, which a bob score file does not "
            f"have (its columns are {', '.join(table.columns)}, in that order): delete that line, or start it with '#'"
        )
    table["mated"] = table["reference_subject"] == table["probe_subject"]
    return table.rename(columns=_renames(list(table.columns), columns))


def _unparsed(values: pd.Series, decimal: str) -> tuple[pd.Series, np.ndarray]:
    """Text scores as numbers written with the ``decimal`` mark (a value with the other mark,
    or with two, is none: "0.5" and "1.200,5" with a decimal comma), and where they are not
    numbers (the words of ``_NAN_WORDS`` are missing values, not unparsed ones)."""
    words = values.str.strip().isin(_NAN_WORDS)
    text = values.where(~words)
    if decimal == ",":
        text = text.where(~text.str.contains(".", regex=False, na=False)).str.replace(",", ".", regex=False)
    numbers = pd.to_numeric(text, errors="coerce")
    return numbers, (numbers.isna() & values.notna() & ~words).to_numpy()


#: The digits of 2**53: float64 holds every integer up to it, and not 2**53 + 1.
_EXACT_DIGITS = str(EXACT_INTEGER_LIMIT)


def _rounded_integers_problem(values: pd.Series, what: str) -> str:
    """The problem ("" if none) of scores written as integers beyond ±2**53 (as text, or as
    the Python ints pandas keeps beyond int64), which float64 rounds (9007199254740993 to
    ...992, 99999999999999999999 and ...998 both to 1e20): distinct scores would become ties,
    as :func:`biofair.validate_scores` says of an integer column. Their digits are compared
    as text, and only those of values as long as 2**53 is (16 digits): the rest fit."""
    if is_real_dtype(values.dtype) or pd.api.types.is_bool_dtype(values):
        return ""
    text = values.astype("str")  # Python ints as written; missing values stay missing
    long = text.str.len().to_numpy(dtype=np.float64, na_value=0) >= len(_EXACT_DIGITS)
    long[long] = ~text[long].str.contains(".", regex=False).to_numpy(dtype=bool)  # most long scores are decimals
    long = np.flatnonzero(long)
    written = text.iloc[long].str.strip()
    digits = written.where(written.str.fullmatch(r"[-+]?\d+"), "").str.lstrip("+-").str.lstrip("0")
    beyond = ((digits.str.len() > len(_EXACT_DIGITS))
              | ((digits.str.len() == len(_EXACT_DIGITS)) & (digits > _EXACT_DIGITS))).to_numpy(dtype=bool)
    if not beyond.any():
        return ""
    first = int(np.argmax(beyond))
    return (f"{what} has {how_many(int(beyond.sum()), 'integer value')} beyond ±2^53 (e.g. {written.iloc[first]}; "
            f"first in {_row(values, int(long[first]))}) that float64 cannot hold exactly: distinct scores would "
            "become ties")


def _parsed_scores(values: pd.Series, decimal: str) -> pd.Series:
    """Text scores as numbers, or the text itself when some are not numbers (reported later)."""
    if not pd.api.types.is_string_dtype(values):
        return values
    numbers, unparsed = _unparsed(values, decimal)
    return values if unparsed.any() else numbers


def _decimal_comma_problem(scores: pd.Series, where: str, semicolons: Path | None) -> str:
    """The error of text scores read with a decimal comma that are not all numbers written so
    (``where`` names the file; ``semicolons``, the file if its fields are separated by ';'): the
    first such row, and the repair; a file whose scores have decimal points is converted as it is."""
    unparsed = _unparsed(scores, ",")[1]
    shown = pd.unique(scores[unparsed])
    examples = ", ".join(map(repr, shown[:3]))
    not_numbers = how_many(int(unparsed.sum()), "score", verbs=("is not a number", "are not numbers"))
    problem = (f"{where}: {not_numbers} written with a decimal comma, as decimal=',' reads them (e.g. {examples}; "
               f"first in {_row(scores, int(unparsed.argmax()))}): write them as 0,83 or -1,5e-3, without thousands separators")
    if _unparsed(pd.Series(shown, dtype=scores.dtype), ".")[1].any():
        return problem
    problem += "; they have a decimal point: a file whose scores all have one is read without decimal=','"
    if semicolons is None:
        return problem
    return f"{problem}, once its fields are separated by commas, {_semicolons_to_commas(semicolons)}"


def _file_problem(path: Path, what: str) -> str:
    """Why ``path`` cannot be read as a ``what`` ("" when it is a regular file one may read):
    missing, a folder, a pipe, socket or device (whose reading would wait or read once only),
    or a file its permissions keep from being read."""
    if path.is_file():
        if not os.access(path, os.R_OK):
            return (f"{path} cannot be read: its permissions do not let you read it (its owner can allow it, "
                    f"e.g. chmod a+r {shlex.quote(str(path))}; or read a copy you may read)")
        return ""
    if path.is_dir():
        return f"{path} is a folder, not a {what}"
    if path.exists():
        return f"{path} is not a regular file (a pipe, socket or device?): copy what it holds into a file and give that"
    return f"no {what} at {path}"


def _checked_file(path: _PathLike, what: str) -> Path:
    """``path`` as a Path; FileNotFoundError if it does not exist, PermissionError if it may not
    be read, SchemaError if it is not a regular file."""
    source = Path(path)
    if problem := _file_problem(source, what):
        raise (FileNotFoundError if not source.exists() else PermissionError if source.is_file() else SchemaError)(
            problem)
    return source


def _read_file(
    path: _PathLike | tuple[_PathLike, _PathLike],
    columns: Mapping[str, str] | None,
    greater_is_match: bool,
    format: _ScoreFormat,
    decimal: str,
    *,
    scored: bool = True,
) -> pd.DataFrame:
    """A score file as a table with canonical names, labels and float scores; not validated.
    ``scored=False`` reads a file without scores (a subject file): see :func:`_kind`."""
    check_flag(greater_is_match, "greater_is_match")
    check_choice(format, "format", ("auto", "csv", "parquet", "bob"))
    check_choice(decimal, "decimal", (".", ","))
    if columns is not None and not (isinstance(columns, Mapping) and all(
            isinstance(k, str) and isinstance(v, str) and v for k, v in columns.items())):
        raise TypeError(
            f"columns must map file column names to canonical names, e.g. {{'sim': 'score'}}, got {columns!r}"
        )
    if isinstance(path, (tuple, list)):
        if len(path) != 2:
            raise ValueError(f"path must be one file or a (mated_file, nonmated_file) pair, got {len(path)} files")
        mated, nonmated = _read_score_list(path[0], "mated", decimal), _read_score_list(path[1], "nonmated", decimal)
        table = pd.DataFrame(
            {
                "score": np.concatenate([mated, nonmated]),
                "mated": np.repeat([True, False], [mated.size, nonmated.size]),
            }
        )
        return table.rename(columns=_renames(list(table.columns), columns))
    source = _checked_file(path, "score file")
    try:
        compression = _compression(source)
        kind, sep, header = _kind(source, format, compression, decimal, scored=scored)
        if kind == "parquet":
            table = _read_parquet(source, columns)
        elif kind == "csv":
            table = _read_csv(source, sep, header, compression, columns, decimal)
        else:
            table = _read_bob(source, compression, columns, format, decimal)
    except (SchemaError, TypeError):
        raise
    except UnicodeDecodeError as error:  # a ValueError
        byte = error.object[error.start : error.start + 1].hex()
        found = _first_undecodable_line(source, _compression(source))
        where = "" if found is None else f" on line {found[0]:,} ({quoted(found[1])})"
        raise SchemaError(f"{source} is not UTF-8 text: UTF-8 cannot read its byte 0x{byte}{where} "
                          f"(Latin-1 or Windows-1252 text?): {_save_as_utf8('WINDOWS-1252')}") from error
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, pd.errors.ParserError,
            NotImplementedError) as error:  # Arrow's ArrowNotImplementedError: a type it cannot convert
        raise SchemaError(f"could not read {source} as a score file: {error}") from error
    if kind != "parquet" or table.index.equals(pd.RangeIndex(len(table))):  # not an index stored with the rows
        # row label i is the (i + 1)-th data row (rows left out keep their labels); a bob file's
        # blank and comment lines are not counted: its rows are counted as comparisons
        table.attrs[_FILE_ROWS] = "comparison" if kind == "bob" else "data row"
    table.attrs[_FILE_FORMAT] = kind
    if kind != "parquet":
        table.attrs[_FILE_SEPARATOR] = sep
    if "mated" in table.columns:
        table["mated"] = _as_mated(table["mated"])
    if "score" in table.columns:
        if problem := _rounded_integers_problem(table["score"], "column 'score'"):
            raise SchemaError(f"invalid score table:\n- {problem}")
        table["score"] = _parsed_scores(table["score"], decimal)
        score = table["score"]
        if decimal == "," and pd.api.types.is_string_dtype(score):
            raise SchemaError(_decimal_comma_problem(score, str(source), source if sep == ";" else None))
        if is_real_dtype(score.dtype) and not inexact_integers(score.to_numpy()).any():
            table["score"] = score.astype(np.float64) if greater_is_match else -score.astype(np.float64)
            table.attrs["score_dtype"] = str(getattr(score.dtype, "numpy_dtype", score.dtype))
    for column in ("reference_subject", "probe_subject"):  # an id of spaces names no one, as an empty cell
        if column in table.columns:
            table[column] = _blank_as_missing(table[column])
    return table


#: The words of the warning :func:`_warn_if_rows_repeat` gives (the command line shows it).
_REPEATED_ROWS_WARNING = "repeat earlier rows in every column and in the same order"

#: Consecutive rows copied in order from earlier rows that make :func:`_warn_if_rows_repeat` warn.
_COPIED_RUN = 10


def _longest_copied_run(keys: pd.Series) -> tuple[int, int, int]:
    """The longest run of consecutive rows whose keys repeat, in the same order, consecutive
    earlier rows: its length, its first row and the row it copies (0, 0, 0 when none)."""
    _, first_of, codes = np.unique(np.asarray(keys), return_index=True, return_inverse=True)
    first = first_of[codes]  # the first row with each row's key
    copied = first < np.arange(first.size)
    in_run = copied[1:] & copied[:-1] & (first[1:] == first[:-1] + 1)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], in_run.astype(np.int8), [0]])))
    if not edges.size:
        return 0, 0, 0
    lengths = edges[1::2] - edges[0::2] + 1
    row = int(edges[2 * int(lengths.argmax())])
    return int(lengths.max()), row, int(first[row])


def _warn_if_rows_repeat(table: pd.DataFrame) -> None:
    """Warn when ``_COPIED_RUN`` or more consecutive rows repeat, in every column and in the
    same order, consecutive earlier rows: the mark of a file appended to itself (in part).
    Single equal rows are common (subject-level ids and rounded scores), copied runs are
    not. The rows are kept and counted. The scores alone are searched first (a copied run
    of rows is one of scores); the whole rows only when the scores hold such a run."""
    if "score" in table.columns and _longest_copied_run(table["score"])[0] < _COPIED_RUN:
        return
    rows = pd.util.hash_pandas_object(table, index=False)
    length, row, copy_of = _longest_copied_run(rows)
    if length >= _COPIED_RUN:
        repeated = int(rows.duplicated().sum())  # the run breaks at rows the file held twice before
        warn(
            f"{length:,} rows, from {_row(table, row)} on, {_REPEATED_ROWS_WARNING} (from {_row(table, copy_of)} "
            f"on): a file appended to itself? In all, {repeated:,} rows repeat an earlier row. Each row counts as "
            "a comparison of its own; if they are copies, drop them: table.drop_duplicates()",
            UserWarning,
        )


#: The words of the warning :func:`_warn_if_ids_padded` gives (the command line shows it).
_PADDED_IDS_WARNING = "hold subject ids that differ only by surrounding spaces"


def _warn_if_ids_padded(table: pd.DataFrame) -> None:
    """Warn when subject ids differ only by surrounding spaces (``"s2"`` and ``"s2 "``, in one
    column or across the two): they stay two subjects, as written, so a bootstrap or a
    permutation by subject moves their comparisons apart, but are more often one subject
    typed twice. The ids are compared once each (their distinct values)."""
    columns = [column for column in ("reference_subject", "probe_subject") if column in table.columns]
    if not columns:
        return
    ids = pd.Series(pd.unique(np.concatenate([pd.unique(table[column].dropna()) for column in columns])), dtype=object)
    stripped = _stripped(ids)
    padded = stripped != ids
    if not padded.any():
        return
    alike = stripped[stripped.isin(set(stripped[padded]))]
    found = [ids[variants.index].tolist() for _, variants in alike.groupby(alike, sort=False) if len(variants) > 1]
    if found:
        shown = "; ".join(", ".join(map(repr, variants)) for variants in found[:3]) + ("; ..." if len(found) > 3 else "")
        warn(
            f"column(s) {columns} {_PADDED_IDS_WARNING} ({len(found):,} such set(s) of ids: {shown}): each is kept "
            "as a subject of its own, so a bootstrap or permutation by subject treats their comparisons as "
            "different people's. Strip them (table[column].str.strip()) if they name one subject",
            UserWarning,
        )


def _spreadsheet_error_line(path: Path, compression: str | None) -> tuple[int, str] | None:
    """The number and value of the first line of a score list that holds a spreadsheet's error
    value alone ("#N/A": a comparison without a score), which the list's comment mark '#' would
    leave out without a word; None if there is none."""
    errors = "|".join(map(re.escape, _SPREADSHEET_ERRORS))
    with _open_binary(path, compression) as stream:
        data = stream.read()
    if b"#" in data and (found := re.search(rf"^[ \t]*({errors})[ \t\r]*$".encode(), data, flags=re.MULTILINE)):
        return data.count(b"\n", 0, found.start()) + 1, found.group(1).decode()
    return None


def _read_score_list(path: _PathLike, name: str, decimal: str) -> np.ndarray:
    """One plain file of scores, one per line (pyeer style), as float64, with the ``decimal`` mark."""
    source = _checked_file(path, f"{name} score list")
    what = f"the {name} score list {source}"
    try:
        compression = _compression(source)
        _first_lines(source, compression)
        if found := _spreadsheet_error_line(source, compression):
            raise SchemaError(f"line {found[0]:,} holds {found[1]!r}, a spreadsheet's error value, not a score (a "
                              "comparison that got none?): give it its score, or delete the line if the comparison "
                              "does not count; lines that start with '#' are otherwise comments, left out")
        lines = pd.read_csv(source, header=None, sep=r"\s+", comment="#", dtype=str, compression=compression)
    except pd.errors.EmptyDataError:
        raise SchemaError(f"{what} holds no scores") from None
    except SchemaError as error:
        raise SchemaError(f"{what}: {error}") from None
    except pd.errors.ParserError as error:  # its line numbers count a \r\r\n (after the first MiB) twice
        problem = _doubled_carriage_returns_problem(source, compression)
        raise SchemaError(f"{what}: {problem}" if problem else f"{what} must hold one score per line: {error}") from error
    except (ValueError, OSError, EOFError) as error:
        raise SchemaError(f"{what} must hold one score per line: {error}") from error
    if lines.shape[1] != 1:
        fields = ", ".join(repr(v) for v in lines.iloc[0])
        raise SchemaError(
            f"{what} must hold one score per line; its first line has {lines.shape[1]} fields "
            f"({fields}). A table of scores with labels is read from one CSV file instead"
        )
    written = lines[0]
    values = _parsed_scores(written, decimal)
    for column in (written, values):  # the N-th score (blank and comment lines are not counted)
        column.attrs.update({_FILE_ROWS: "score number", _FILE_SEPARATOR: r"\s+"})
    if problem := _rounded_integers_problem(written, what):
        raise SchemaError(problem)
    if decimal == "," and pd.api.types.is_string_dtype(values):
        raise SchemaError(_decimal_comma_problem(values, what, None))
    if problems := [p.replace("column 'score'", what) for p in _score_problems(values)]:
        raise SchemaError("; ".join(problems))
    return values.to_numpy(dtype=np.float64)


def _blank_as_missing(labels: pd.Series) -> pd.Series:
    """Group labels or subject ids of spaces only (or other white space) as missing: such a cell
    is as empty as an empty one (a label of spaces made a group that the report showed with a
    blank name; an id of spaces, one subject of all its rows)."""
    blank = [label for label in labels.dropna().unique() if is_blank(label)]
    return labels.mask(labels.isin(blank)) if blank else labels


def _refuse_misnamed(table: pd.DataFrame, *, grouping: list[str]) -> None:
    """Refuse a file whose system, split or subject column is named otherwise ("System"):
    it would be ignored (see :func:`biofair.schema._misnamed`)."""
    if problem := _misnamed(list(table.columns), grouping=grouping, table=table, renaming=lambda renames: (
            f"columns={renames!r} ({_cli_renaming(renames)})")):
        raise SchemaError(problem)


def _as_mated(labels: pd.Series) -> pd.Series:
    """Convert a label column to bool: booleans, 0/1, or the usual words."""
    if pd.api.types.is_bool_dtype(labels) and not labels.isna().any():
        return labels.astype(bool)
    codes, distinct = pd.factorize(labels.astype(str), use_na_sentinel=False)  # a few labels, each read once
    words = pd.Series(distinct).str.strip().str.lower().str.replace(r"^(\d+)\.0$", r"\1", regex=True)  # 1.0 -> 1
    known = words.isin(_TRUE_LABELS | _FALSE_LABELS).to_numpy()[codes] & labels.notna().to_numpy()
    if not known.all():
        examples = ", ".join("an empty cell" if pd.isna(x) else repr(x) for x in pd.unique(labels[~known])[:5])
        raise SchemaError(
            f"invalid score table:\n- column 'mated' has {how_many(int((~known).sum()), 'value', verbs=('that is', 'that are'))} "
            f"not a mated/non-mated label (e.g. {examples}; first in "
            f"{_row(labels, int(np.argmin(known)))}); "
            "use booleans (true/false, t/f), 0/1, yes/no, genuine/impostor or target/nontarget"
        )
    return pd.Series(words.isin(_TRUE_LABELS).to_numpy()[codes], index=labels.index)


def _bob_without_subjects(path: _PathLike, table: pd.DataFrame, by: By) -> str:
    """The error of a bob score file read for a fairness analysis without a subject file: it
    names the subjects of each comparison, never their groups (the error was of a missing group
    column, with the advice to compare the groups of its probe ids: "pass by='id'")."""
    attributes = _attributes_of(by)
    option = "" if attributes == ["group"] else " --by " + " ".join(attributes)
    columns = ",".join(["subject", *attributes])
    return (
        f"{path} is a bob score file (its columns: {', '.join(c for c in table.columns if c != 'mated')}), "
        f"which names the subjects of each comparison but not their groups ({', '.join(map(repr, attributes))}): give "
        f"them in a CSV file with a row per subject, e.g. people.csv with the columns {columns}, as "
        f"subjects='people.csv' (biofair report --subjects people.csv{option})"
    )


#: The words of :func:`biofair.scores_by_group`'s problems (a group without one class; one group).
_ONE_CLASS, _ONE_GROUP = "both are needed", "fairness needs at least two groups"


def _refuse_unlabelled_subjects(table: pd.DataFrame, grouping: dict[str, list[str]], attributes: pd.Index,
                                path: Path) -> None:
    """Refuse subjects whose grouping attribute the subject file at ``path`` leaves empty,
    naming them there (the error was of missing values in the score table's
    ``reference_<attribute>`` column, which the user never wrote)."""
    for attribute, names in grouping.items():
        sides = [side for side in ("reference", "probe") if f"{side}_{attribute}" in names]
        if attribute not in attributes or not sides:
            continue  # a column of the score file
        unlabelled = {side: table[f"{side}_{attribute}"].isna().to_numpy() for side in sides}
        if not any(rows.any() for rows in unlabelled.values()):
            continue
        named = pd.unique(pd.concat([table[f"{side}_subject"][rows] for side, rows in unlabelled.items()]))
        n_rows = int(np.logical_or.reduce(list(unlabelled.values())).sum())
        one = len(named) == 1
        raise SchemaError(
            f"missing group labels: the subject file {path} gives no {attribute!r} for "
            f"{how_many(len(named), 'subject')} of the score file ({', '.join(map(quoted, named[:5]))}"
            f"{', ...' if len(named) > 5 else ''}), in {how_many(n_rows, 'comparison')}; "
            f"those comparisons would have no group. Fill in {'its' if one else 'their'} {attribute!r} in "
            f"{path.name}, or give them a group of their own, '(missing)', with read_grouped_scores(..., "
            "missing_groups='group') (biofair report --missing-groups group)"
        )


def _n_labels(rows: pd.DataFrame, attribute: str) -> int:
    """How many distinct labels the column(s) of ``attribute`` hold (pair-level, else both sides)."""
    columns = [attribute] if attribute in rows.columns else [f"reference_{attribute}", f"probe_{attribute}"]
    return pd.concat([rows[column] for column in columns]).nunique()


def _groups_fix(problems: str, rows: pd.DataFrame, by: By, *, subjects: _PathLike | None) -> str:
    """The way forward after :func:`biofair.scores_by_group`'s ``problems`` with the groups of
    ``rows`` (whose attributes came in part from the subject file ``subjects``, if one), as last
    lines of the error: they named the groups, not what to do."""
    fixes = []
    if _ONE_CLASS in problems:
        fixes.append(
            "ISO/IEC 19795-10 compares the FNMR and the FMR of every group, and a group without mated comparisons "
            "has no FNMR (without homogeneous non-mated ones, no FMR): add its missing comparisons, merge it into "
            "another group (relabel its rows), or remove its rows from the file and say in the report that it is "
            "not covered (biofair leaves out no group itself)"
        )
    if _ONE_GROUP in problems:
        attributes = _attributes_of(by)
        names = _group_codes(rows, by)[1]
        others = [name for name in _attribute_names(rows.columns) if name not in attributes
                  and _n_labels(rows, name) > 1]  # an attribute of one group is no way forward
        ways = [f"compare the groups of {' or '.join(map(repr, others[:5]))} (biofair report {_by_option(others)})"
                ] if others else []
        if subjects is not None:
            ways.append(f"add a column of the groups to compare to the subject file {Path(subjects).name} (biofair "
                        f"report {shell_option('--subjects', subjects)} --by <that column>)")
        elif "reference_subject" in rows.columns:
            ways.append("give the subjects' attributes in a subject file (biofair report --subjects people.csv "
                        "--by <attribute>)")
        fixes.append(
            f"the file holds one group{f' ({names[0]!r})' if len(names) == 1 else ''}, and a fairness report compares "
            "two or more" + (": " + ", or ".join(ways) if ways else ": add a column of the groups to compare")
        )
    return "".join(f"\n- {fix}" for fix in fixes)


def read_scores(
    path: _PathLike | tuple[_PathLike, _PathLike],
    *,
    columns: Mapping[str, str] | None = None,
    greater_is_match: bool = True,
    format: _ScoreFormat = "auto",
    decimal: _DecimalMark = ".",
) -> pd.DataFrame:
    """Read a score file into a validated score table.

    Read more in the chapter "Analyse your own system", which reads a score file.

    Parameters
    ----------
    path : path or (path, path)
        A CSV (``.csv``, ``.tsv``) or Parquet (``.parquet``, ``.pq``) table; a bob score
        file (4 columns ``claimed_id real_id probe_label score`` or 5 columns
        ``claimed_id model_label real_id probe_label score``, whitespace separated,
        ``mated`` = claimed id equals real id); or a pair ``(mated_file, nonmated_file)``
        of plain files with one score per line (pyeer style). Text files may be
        compressed (gzip, bz2, xz, zip; ``.csv.gz`` is a CSV). A Parquet file is known by
        its first bytes, whatever its name; another name is read as CSV when its first line
        holds a comma or a tab, else as bob.
    columns : mapping, optional
        Renames the file's columns to the canonical ones, e.g. ``{"sc": "score",
        "lab": "mated"}``. Labels may be booleans (true/false, t/f), 0/1, yes/no (y/n),
        mated/non-mated, genuine/impostor or target/nontarget, in any letter case. A mapping
        onto a name the file already has is an error.
    greater_is_match : bool, default True
        False for distance scores: they are negated here, once, so that every metric
        sees similarities.
    format : {"auto", "csv", "parquet", "bob"}, default "auto"
        ``"auto"`` decides by the file suffix, then by the file's first bytes.
    decimal : {".", ","}, default "."
        The decimal mark of scores written as text. ``","`` reads a spreadsheet's export
        where the decimal mark is a comma (``0,83``; ``-1,5e-3``): its fields are separated by
        ``;`` (a file whose first line has ``;`` and no tab is read so, whatever its name) or
        by tabs. Only the score column is parsed with it; every other column stays text
        exactly as written (``"01"``, ``"NA"``, ``"007"``). Scores stored as numbers (in
        Parquet) are read as they are.

    Returns
    -------
    pandas.DataFrame
        A table that passed :func:`biofair.validate_scores`. ``score`` is float64, and
        ``attrs["score_dtype"]`` names the type the file stored it in ("float32" for a
        float32 Parquet column, "float64" for text); every other column is text exactly as
        written (``"01"`` and ``"1"`` stay distinct; only an empty cell is missing), Parquet
        columns turned into text.

    Raises
    ------
    SchemaError
        When the file cannot be parsed (binary, empty, a first line over 1 MiB, lines ending in
        a carriage return alone or in two, ``\\r\\r\\n``), is a CSV file
        whose first line is data rather than a header or whose header comes again among its
        rows, holds comment lines (``#``) among its rows, a row with more fields than its header
        or a quote never closed (each named by its data row), is named ``.csv`` but holds a bob
        score file, has duplicate column names, a mapped column is absent or collides with an
        existing one, a score list holds more than one field per line or a spreadsheet's error
        value (``#N/A``, which its comment mark would drop) on a line of its own, or the table
        is invalid (a subject id that is empty or white space only is a missing one). When its
        fields are separated by ``;`` and ``decimal`` is ``"."`` (with how to read it). With
        ``decimal=","``: when the fields are separated by commas, or a score written as text is
        not a number with a decimal comma (``"0.5"``, ``"1.200,5"``: the first named by its data
        row).
    FileNotFoundError
        When a file does not exist.
    PermissionError
        When a file's permissions do not let you read it.
    ValueError
        When ``decimal`` is neither ``"."`` nor ``","``.

    Warns
    -----
    ScoreDirectionWarning
        When the ROC AUC is below 0.5: mated scores are mostly below non-mated ones, as
        when distances are read as similarities. The table's ``attrs`` keep a mark of it, so
        that :func:`biofair.fairness_summary` and :func:`biofair.differential_report` of it do
        not warn again.
    UserWarning
        When subject ids differ only by surrounding spaces (``"s2"`` and ``"s2 "``): they
        are kept as two subjects, as written. When rows of a CSV file are empty in every
        column (a spreadsheet's trailing ``,,,,`` rows): they are left out.

    See Also
    --------
    biofair.read_grouped_scores : Also checks that the groups can be compared.
    biofair.validate_scores : The checks every table passes.

    References
    ----------
    bob.measure's score file formats (4 and 5 columns); pyeer's plain score files.

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.read_scores(bf.datasets.example_scores_path())
    >>> len(table), int(table["mated"].sum())
    (7920, 720)
    """
    table = validate_scores(_read_file(path, columns, greater_is_match, format, decimal))
    _refuse_misnamed(table, grouping=[])
    _warn_if_ids_padded(table)
    warn_if_reversed(table, greater_is_match)
    table.attrs.pop(_FILE_ROWS, None)  # the labels stay; the table is the caller's now
    table.attrs.pop(_FILE_FORMAT, None)
    table.attrs.pop(_FILE_SEPARATOR, None)
    return table


def read_grouped_scores(
    path: _PathLike | tuple[_PathLike, _PathLike],
    *,
    by: By = "group",
    columns: Mapping[str, str] | None = None,
    greater_is_match: bool = True,
    format: _ScoreFormat = "auto",
    decimal: _DecimalMark = ".",
    subjects: _PathLike | None = None,
    missing_groups: MissingGroups = "raise",
    one_class_groups: OneClassGroups = "raise",
) -> pd.DataFrame:
    """Read a score file for a fairness analysis and check that its groups can be compared.

    Read more in the chapter "Analyse your own system".

    Parameters
    ----------
    path : path or (path, path)
        As for :func:`biofair.read_scores`.
    by : str or sequence of str, default "group"
        The grouping attribute(s) the analysis will compare.
    columns : mapping, optional
        As for :func:`biofair.read_scores`.
    greater_is_match : bool, default True
        As for :func:`biofair.read_scores`.
    format : {"auto", "csv", "parquet", "bob"}, default "auto"
        As for :func:`biofair.read_scores`.
    decimal : {".", ","}, default "."
        As for :func:`biofair.read_scores`, for the score file only.
    subjects : path, optional
        A table of subject attributes (a ``subject`` column and one column per attribute,
        all read as text), joined to both sides of every comparison (see
        :func:`biofair.add_subject_attributes`). It holds no scores, so its fields may be
        separated by ``,``, ``;`` (a spreadsheet's export) or tabs, whatever ``decimal``.
    missing_groups : {"raise", "group"}, default "raise"
        A comparison whose group label is missing (an empty cell, or one of spaces only, in
        a column of ``by`` or in a subject attribute) is an error by default. ``"group"`` makes those rows a
        group of their own, labelled ``"(missing)"``; the number of rows relabelled per
        column is recorded in ``table.attrs["missing_groups"]``.
    one_class_groups : {"raise", "keep"}, default "raise"
        A group without mated or without homogeneous non-mated comparisons is an error by
        default: most fairness indices need both rates of every group. ``"keep"`` reads it
        for an analysis that reports the rate it lacks as missing, such as
        :func:`biofair.differential_report`.

    Returns
    -------
    pandas.DataFrame
        A validated score table with at least two groups, each with mated and non-mated
        comparisons unless ``one_class_groups="keep"``; ``attrs["missing_groups"]`` maps
        each relabelled column to its count of rows (empty when none).

    Raises
    ------
    SchemaError, FileNotFoundError, PermissionError
        Naming the first problem found and the way forward: unreadable file, missing
        column, bad values, a missing group column or label (a bob score file without
        ``subjects`` has none), fewer than two groups, a group without one class unless
        ``one_class_groups="keep"`` (checked in each score set: each ``system`` and ``split``
        the file holds, which no metric pools). No group is ever left out.
    ValueError
        When ``missing_groups``, ``one_class_groups`` or ``decimal`` is not one of its choices,
        or ``by`` is empty, names a column twice or names "score" or "mated".
    TypeError
        When ``by`` is not a column name or a list of column names.

    Warns
    -----
    ScoreDirectionWarning
        As for :func:`biofair.read_scores`.
    UserWarning
        When ten or more consecutive rows repeat consecutive earlier rows in every column
        and in the same order (a file appended to itself?); they are kept and counted. When
        subject ids or group labels differ only by surrounding spaces (group labels also by
        letter case, Unicode form or how a number is written); they are kept apart, as
        written. When rows of a CSV file are empty in every column; they are left out.

    See Also
    --------
    biofair.read_scores : Reads without the group checks.
    biofair.add_subject_attributes : Joins subject attributes to a table.

    References
    ----------
    ISO/IEC 19795-10:2024 (comparing demographic groups needs comparisons of each class in
    every group).

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.read_grouped_scores(bf.datasets.example_scores_path(), by="group")
    >>> sorted(table["group"].unique())
    ['A', 'B', 'C']
    """
    check_choice(missing_groups, "missing_groups", ("raise", "group"))
    check_choice(one_class_groups, "one_class_groups", ("raise", "keep"))
    table = _read_file(path, columns, greater_is_match, format, decimal)
    score_dtype = table.attrs.get("score_dtype")
    kind = table.attrs.pop(_FILE_FORMAT, None)
    if subjects is not None:
        people = _read_file(_checked_file(subjects, "subject attribute file"), None, True, "auto", decimal,
                            scored=False)
        if "subject" not in people.columns:
            raise SchemaError(_no_subject_column(people.columns, "subject", file=subjects))
        if shadowed := [a for a in _attributes_of(by) if a in table.columns and a in people.columns and a != "subject"]:
            renamed = f"{shadowed[0]}=file_{shadowed[0]}"
            raise SchemaError(
                f"the score file has a column {shadowed[0]!r} and the subject file an attribute of that name: by="
                f"{by!r} would read the score file's column, not the attribute. Rename the score file's, e.g. "
                f"columns={{{shadowed[0]!r}: 'file_{shadowed[0]}'}} (biofair report {shell_option('--columns', renamed)})"
            )
        table = add_subject_attributes(table, people)
    if (told := _READ_DONE.get()) is not None:
        told(len(table))
    relabelled = {}
    try:
        grouping = _group_columns(table, by)
    except SchemaError:
        if kind != "bob" or subjects is not None:
            raise
        raise SchemaError(_bob_without_subjects(path, table, by)) from None
    label_columns = [c for names in grouping.values() for c in names]
    for column in label_columns:
        table[column] = _blank_as_missing(table[column])
    if missing_groups == "group":
        for column in label_columns:
            missing = table[column].isna()
            if missing.any():
                if (table[column] == _MISSING_GROUP).any():
                    raise SchemaError(
                        f"column {column!r} has missing values and also the label {_MISSING_GROUP!r}; "
                        "relabel one of them"
                    )
                table[column] = table[column].where(~missing, _MISSING_GROUP)
                relabelled[column] = int(missing.sum())
    if subjects is not None and missing_groups == "raise":
        _refuse_unlabelled_subjects(table, grouping, people.columns, Path(subjects))
    for names in grouping.values():  # missing labels, with the advice above
        _check_no_missing(table, names)
    validate_scores(table)
    _refuse_misnamed(table, grouping=label_columns)
    _warn_if_ids_padded(table)
    _warn_if_rows_repeat(table)
    warn_if_reversed(table, greater_is_match)
    sets = [column for column in _SCORE_SETS if column in table.columns]
    for _, rows in table.groupby(sets, dropna=False, observed=True, sort=False) if sets else [(None, table)]:
        try:
            scores_by_group(rows, by=by)  # the groups of every score set the metrics will take, checked
        except SchemaError as error:
            if one_class_groups == "raise" or _ONE_GROUP in str(error):  # else its problems are one-class groups
                raise SchemaError(f"{error}{_groups_fix(str(error), rows, by, subjects=subjects)}") from None
    table.attrs.pop(_FILE_ROWS, None)
    table.attrs.pop(_FILE_SEPARATOR, None)
    table.attrs["missing_groups"] = relabelled
    if score_dtype is not None:  # a join with the subjects' table keeps no attrs
        table.attrs["score_dtype"] = score_dtype
    return table
