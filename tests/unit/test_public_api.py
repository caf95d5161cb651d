"""The public API is exactly what is exported, documented and on the API page.

Public names: ``biofair.__all__``, ``biofair.partitions.__all__``, and every top-level name
without a leading underscore of the namespace modules ``biofair.datasets``,
``biofair.plotting``, ``biofair.synthetic``, ``biofair.cli``, ``biofair.mitigation`` and
``biofair.normalisation``. Every other module without a
leading underscore may define only names that one of those exports; plumbing carries a
leading underscore or lives in a private module.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import typing
from pathlib import Path

import pytest
from numpydoc.validate import validate

import biofair
import biofair.cli
from biofair import partitions

ROOT = Path(__file__).resolve().parents[2]
API_PAGE = ROOT / "book" / "api.md"
NAMESPACES = ("biofair.datasets", "biofair.plotting", "biofair.synthetic", "biofair.cli", "biofair.mitigation",
              "biofair.normalisation")
# Sections every public function has (numpydoc checks their form, not that References exist).
SECTIONS_REQUIRED = ("Parameters", "Returns", "See Also", "References", "Examples")


def public_modules() -> list[str]:
    """Every module of the package whose dotted name has no part with a leading underscore."""
    names = ["biofair"]
    for info in pkgutil.walk_packages(biofair.__path__, "biofair."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return names


def top_level_definitions(module_name: str) -> dict[str, int]:
    """Names a module defines at top level (def, class, assignment), with their line."""
    module = importlib.import_module(module_name)
    tree = ast.parse(Path(module.__file__).read_text())
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found[node.name] = node.lineno
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for leaf in ast.walk(target):  # a name, or the names of a tuple
                    if isinstance(leaf, ast.Name):
                        found[leaf.id] = node.lineno
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = node.lineno
    return {name: line for name, line in found.items() if not name.startswith("_") and name != "annotations"}


def public_names() -> dict[str, object]:
    """Dotted public name -> object."""
    names = {}
    for name in biofair.__all__:
        value = getattr(biofair, name)
        if not inspect.ismodule(value):
            names[f"biofair.{name}"] = value
    for name in partitions.__all__:
        names[f"biofair.partitions.{name}"] = getattr(partitions, name)
    for module_name in NAMESPACES:
        module = importlib.import_module(module_name)
        for name in top_level_definitions(module_name):
            names[f"{module_name}.{name}"] = getattr(module, name)
    return names


PUBLIC = public_names()
CALLABLES = {name: value for name, value in PUBLIC.items() if inspect.isfunction(value) or inspect.isclass(value)}
CONSTANTS = {name: value for name, value in PUBLIC.items() if name not in CALLABLES}


def test_every_public_module_defines_only_exported_names():
    exported = {id(value) for value in PUBLIC.values()} | set(biofair.__all__) | set(partitions.__all__)
    stray = []
    for module_name in public_modules():
        if module_name in NAMESPACES:
            continue
        module = importlib.import_module(module_name)
        for name in top_level_definitions(module_name):
            value = getattr(module, name)
            if id(value) not in exported and name not in exported:
                stray.append(f"{module_name}.{name}")
    assert not stray, f"public-looking names that nothing exports (prefix them with _): {stray}"


@pytest.mark.parametrize("module_name", NAMESPACES)
def test_a_namespace_all_lists_exactly_its_public_names(module_name):
    """A second ``__all__`` further down a module (a merge left one in plotting) replaced the
    first and hid two functions from ``import *``; without ``__all__``, ``import *`` of
    ``biofair.synthetic`` brought in its helpers' imports (``check_alpha``, ``interval``)."""
    module = importlib.import_module(module_name)
    assert sorted(module.__all__) == sorted(top_level_definitions(module_name))


def test_all_lists_name_existing_objects_once():
    for module in (biofair, partitions):
        assert len(set(module.__all__)) == len(module.__all__)
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_public_name_is_documented(name):
    value = PUBLIC[name]
    if name in CALLABLES:
        assert inspect.getdoc(value), f"{name} has no docstring"
        return
    # A constant is documented by a `#:` comment right above where it is defined (Sphinx's
    # convention for module attributes).
    attribute = name.rsplit(".", 1)[1]
    defined = [m for m in public_modules() if attribute in top_level_definitions(m)]
    assert defined, f"{name}: no module defines it"
    module = importlib.import_module(defined[0])
    lines = Path(module.__file__).read_text().splitlines()
    line = top_level_definitions(defined[0])[attribute]
    assert lines[line - 2].lstrip().startswith("#:"), f"{name} has no #: comment"


def api_page_targets() -> list[str]:
    text = API_PAGE.read_text()
    return re.findall(r"^\.\. (?:autofunction|autoclass|autodata|autoexception|py:function)::\s+([\w.]+)", text,
                      flags=re.MULTILINE)


def test_the_api_page_names_every_public_name_and_nothing_else():
    targets = api_page_targets()
    assert len(targets) == len(set(targets)), "a name appears twice on the API page"
    missing = sorted(set(PUBLIC) - set(targets))
    assert not missing, f"public names missing from book/api.md: {missing}"
    extra = sorted(set(targets) - set(PUBLIC))
    assert not extra, f"book/api.md documents names that are not public: {extra}"


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_numpydoc_validation(name):
    """numpydoc's own validation, every check of it (none is switched off)."""
    value = CALLABLES[name]
    qualified = f"{value.__module__}.{value.__qualname__}"
    errors = [f"{code}: {message}" for code, message in validate(qualified)["errors"]]
    if is_result_type(value):
        # A result type documents its fields as Attributes, not as constructor Parameters.
        errors = [e for e in errors if not e.startswith("PR01")]
    assert not errors, f"{name} ({qualified}):\n" + "\n".join(errors)


def is_result_type(value) -> bool:
    return inspect.isclass(value) and issubclass(value, tuple) and hasattr(value, "_fields")


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_every_section_is_present(name):
    value = CALLABLES[name]
    doc = inspect.getdoc(value)
    sections = set(re.findall(r"^(\w[\w ]*)\n-{3,}$", doc, flags=re.MULTILINE))
    if inspect.isclass(value) and issubclass(value, BaseException):
        required = {"See Also", "Examples"}
    elif inspect.isclass(value):
        required = {"Attributes", "See Also", "Examples"}
    else:
        required = set(SECTIONS_REQUIRED)
        if not inspect.signature(value).parameters:
            required.discard("Parameters")
    assert required <= sections, f"{name} lacks {sorted(required - sections)}"


@pytest.mark.parametrize("name", sorted(n for n, v in CALLABLES.items() if is_result_type(v)))
def test_every_result_type_documents_every_field(name):
    value = CALLABLES[name]
    doc = inspect.getdoc(value)
    assert "Attributes\n----------\n" in doc, f"{name} has no Attributes section"
    attributes = doc.split("Attributes\n----------\n", 1)[1]
    documented = re.findall(r"^(\w+) :", attributes, flags=re.MULTILINE)
    undocumented = set(value._fields) - set(documented)
    assert not undocumented, f"{name}: fields {sorted(undocumented)} undocumented"


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_options_are_keyword_only_and_literal_typed(name):
    value = CALLABLES[name]
    if not inspect.isfunction(value):
        return
    hints = typing.get_type_hints(value)
    for parameter in inspect.signature(value).parameters.values():
        if parameter.kind is parameter.KEYWORD_ONLY:
            continue
        # Positional: data, or the quantity the function is about (thresholds, targets, a
        # statistic, the path of a file, the model of a data set, argv of the command line).
        if name in POSITIONAL_WITH_DEFAULT:
            continue
        assert parameter.default is parameter.empty, f"{name}: option {parameter.name!r} is not keyword-only"
        assert typing.get_origin(hints.get(parameter.name)) is not typing.Literal, name


# Positional parameters with a default, each the question the function answers.
POSITIONAL_WITH_DEFAULT = {
    "biofair.datasets.load_voxceleb1h",  # which score set to load
    "biofair.synthetic.beta_scenario",  # which scenario to draw
    "biofair.cli.main",  # argv
    "biofair.BoundedValue",
}


def test_public_methods_and_properties_are_documented():
    for name, value in CALLABLES.items():
        if not inspect.isclass(value) or issubclass(value, BaseException):
            continue
        for attribute, member in vars(value).items():
            if attribute.startswith("_") or attribute in getattr(value, "_fields", ()):
                continue
            if callable(member) or isinstance(member, (property, staticmethod, classmethod)):
                assert inspect.getdoc(getattr(value, attribute)), f"{name}.{attribute}"


def api_page_members() -> list[str]:
    """Dotted names of the methods the API page renders (an autoclass's ``:members:`` list)."""
    found = re.findall(r"^\.\. autoclass::\s+([\w.]+)\n\s+:members:\s*(.+)$", API_PAGE.read_text(), flags=re.MULTILINE)
    return [f"{owner}.{member.strip()}" for owner, members in found for member in members.split(",")]


# What a small method may omit: an extended summary, See Also and an example (its class has them).
METHOD_STYLE_CODES = {"ES01", "SA01", "EX01"}


@pytest.mark.parametrize("name", api_page_members())
def test_numpydoc_validation_of_rendered_methods(name):
    """numpydoc's checks of parameters, returns and form, for methods on the API page:
    ``to_json`` left ``indent`` undocumented, four methods had no Returns section."""
    owner, attribute = name.rsplit(".", 1)
    method = getattr(CALLABLES[owner], attribute)
    errors = [f"{code}: {message}" for code, message in validate(f"{method.__module__}.{method.__qualname__}")["errors"]
              if code not in METHOD_STYLE_CODES]
    assert not errors, f"{name}:\n" + "\n".join(errors)


def test_containers_of_scores_print_their_counts_not_their_scores():
    """A notebook that shows a ScoresByGroup or a SubjectSplit printed every group's arrays
    (20,000 characters for the example data) or three whole tables."""
    table = biofair.synthetic.demographic_scores(rng=0)
    groups = biofair.scores_by_group(table)
    shown = repr(groups)
    assert len(shown) < 120 * min(len(groups), 10) + 120
    for name, group in list(groups.items())[:10]:
        assert f"{name!r} ({group.mated.size:,} mated, {group.nonmated.size:,} non-mated)" in shown
    many = biofair.ScoresByGroup({str(i): next(iter(groups.values())) for i in range(25)}, by="group")
    assert repr(many).endswith("... (15 more groups)>")
    split = biofair.mitigation.subject_disjoint_split(table, rng=0)
    assert repr(split) == (
        f"<SubjectSplit dev: {len(split.dev):,} comparisons of {len(split.dev_subjects):,} subjects; "
        f"eval: {len(split.eval):,} comparisons of {len(split.eval_subjects):,} subjects; "
        f"cross: {len(split.cross):,} comparisons>")


# Public functions without a Raises section, each because no input it accepts makes it raise.
CANNOT_RAISE = {
    # No parameters: the path of the file shipped in the package, which as_file does not check.
    "biofair.datasets.example_scores_path",
    # No parameters: a dependency that is not installed prints "not installed".
    "biofair.show_versions",
}
PUBLIC_FUNCTIONS = {name: value for name, value in CALLABLES.items() if inspect.isfunction(value)}


@pytest.mark.parametrize("name", sorted(PUBLIC_FUNCTIONS))
def test_every_public_function_says_what_it_raises(name):
    """Most metrics raised ValueError or SchemaError on bad input (SPEC section 7) without a
    Raises section that said so; the functions that could not raise were few."""
    doc = inspect.getdoc(PUBLIC_FUNCTIONS[name])
    sections = set(re.findall(r"^(\w[\w ]*)\n-{3,}$", doc, flags=re.MULTILINE))
    if name in CANNOT_RAISE:
        assert "Raises" not in sections, f"{name} has a Raises section now: take it off the list"
        return
    assert "Raises" in sections, f"{name} has no Raises section"


def test_the_lists_of_functions_without_raises_name_public_functions():
    assert CANNOT_RAISE <= set(PUBLIC_FUNCTIONS)
