"""biofair and biofair.partitions: one vocabulary for every metric both offer.

For every name in both ``__all__`` lists: the same parameter names in the same order, the
same kinds (positional data and question, keyword-only options), the same defaults, the same
option types (resolved annotations, so a ``Literal`` alias must be the same alias) and the
same return type. The partitioned function reads one partitioned table where the in-memory
one reads its data, and may add options that exist only out of core, after the shared ones.
"""

from __future__ import annotations

import inspect
import typing

import pytest

import biofair as bf
from biofair import partitions as bp

# Every name both packages export; the test below compares each of them.
SHARED = sorted(set(bf.__all__) & set(bp.__all__))
EXPECTED_SHARED = [
    "automatic_comprehensive_equity_index",
    "comprehensive_equity_index",
    "distribution_fairness_index",
    "eer",
    "fairness_discrepancy_rate",
    "outcome_fairness",
    "partial_auc",
    "rates_by_group",
    "roc_auc",
    "tmr_at_fmr",
]
# Options that only make sense out of core: histogram bins of the bounded areas, refinement
# passes of the ROCCH EER. They come after every shared option.
OUT_OF_CORE_ONLY = {"roc_auc": ["bins"], "partial_auc": ["bins"], "eer": ["max_passes"]}
# The data a function reads: in memory two score arrays or one table; out of core one
# partitioned table. Their types differ by design; everything else is compared.
DATA = {"mated", "nonmated", "scores", "dev"}


def test_the_shared_names_are_the_listed_ones():
    assert SHARED == EXPECTED_SHARED


def split(function):
    parameters = list(inspect.signature(function).parameters.values())
    data = [p for p in parameters if p.name in DATA and p.kind is not p.KEYWORD_ONLY]
    positional = [p for p in parameters if p.name not in DATA and p.kind is not p.KEYWORD_ONLY]
    keyword = [p for p in parameters if p.kind is p.KEYWORD_ONLY]
    return data, positional, keyword


@pytest.mark.parametrize("name", SHARED)
def test_signatures_agree(name):
    memory, partitioned = getattr(bf, name), getattr(bp, name)
    assert memory is not partitioned
    memory_data, memory_positional, memory_keyword = split(memory)
    data, positional, keyword = split(partitioned)
    # data: (mated, nonmated) or (scores,) in memory, (scores,) out of core, first
    assert [p.name for p in memory_data] in (["mated", "nonmated"], ["scores"])
    assert [p.name for p in data] == ["scores"]
    # the question (thresholds, a target) stays positional, with the same name and type
    memory_hints, hints = typing.get_type_hints(memory), typing.get_type_hints(partitioned)
    assert [p.name for p in positional] == [p.name for p in memory_positional]
    for parameter in positional:
        assert hints.get(parameter.name) == memory_hints.get(parameter.name), parameter.name
    # options: keyword-only, the same names in the same order, then the out-of-core ones
    extra = OUT_OF_CORE_ONLY.get(name, [])
    assert [p.name for p in keyword] == [p.name for p in memory_keyword] + extra
    for shared, own in zip(memory_keyword, keyword):
        assert own.default == shared.default, (name, own.name)
        if own.name not in DATA:
            assert hints.get(own.name) == memory_hints.get(own.name), (name, own.name)
    assert hints["return"] == memory_hints["return"], name


def test_string_options_are_literal_types_shared_by_both():
    """Every string option of a shared name is typed with the same Literal alias in both."""
    checked = 0
    for name in SHARED:
        for function in (getattr(bf, name), getattr(bp, name)):
            for parameter, hint in typing.get_type_hints(function).items():
                default = inspect.signature(function).parameters.get(parameter)
                if default is not None and isinstance(default.default, str) and parameter != "by":
                    assert typing.get_origin(hint) is typing.Literal, (name, parameter, hint)
                    assert default.default in typing.get_args(hint), (name, parameter)
                    checked += 1
    assert checked >= 12  # method, kind, combine, mean_tail, zero, in both packages


def test_bounded_values_share_one_type():
    assert typing.get_type_hints(bp.roc_auc)["return"] is bf.BoundedValue
    assert typing.get_type_hints(bp.partial_auc)["return"] is bf.BoundedValue
    assert issubclass(bf.BoundedValue, float)


def test_randomness_and_grouping_have_one_name_each():
    for module in (bf, bp):
        for name in module.__all__:
            function = getattr(module, name)
            if not inspect.isfunction(function):
                continue
            parameters = inspect.signature(function).parameters
            assert "seed" not in parameters, f"{module.__name__}.{name}: randomness is rng="
            if "by" in parameters:
                assert parameters["by"].kind is parameters["by"].KEYWORD_ONLY, name
                hint = typing.get_type_hints(function)["by"]
                assert hint == typing.get_type_hints(bf.rates_by_group)["by"], (name, hint)  # str or sequence
