"""The papers' qualitative findings hold on the synthetic scenarios, and bad input is named."""

from __future__ import annotations

import re
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair.synthetic import beta_scenario, fdr_canonical_system


@pytest.fixture(scope="module")
def scenarios():
    return {name: beta_scenario(name, n_mated=20_000, n_nonmated=200_000, rng=5)
            for name in ("balanced", "BG", "BI", "BC")}


def indices(table):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.UndefinedRateWarning)
        outcome = bf.outcome_fairness(table, fmr=1e-3)
    return {
        "dfi": bf.distribution_fairness_index(table),
        "cei_mated": bf.comprehensive_equity_index(table, kind="mated"),
        "cei_nonmated": bf.comprehensive_equity_index(table, kind="nonmated"),
        "outcome": outcome,
    }


def test_tail_bias_escapes_dfi_but_not_cei_garbe_inequity(scenarios):
    base, bg, bi = (indices(scenarios[n]) for n in ("balanced", "BG", "BI"))
    for case in (bg, bi):  # DFI barely moves when only a tail is biased
        assert case["dfi"].normal > 0.99 and case["dfi"].extreme > 0.98
    # CEI of the biased class drops clearly; the other class does not move.
    assert bg["cei_mated"].extreme < base["cei_mated"].extreme - 0.2
    assert bg["cei_nonmated"].extreme == pytest.approx(base["cei_nonmated"].extreme, abs=0.02)
    assert bi["cei_nonmated"].extreme < base["cei_nonmated"].extreme - 0.2
    assert bi["cei_mated"].extreme == pytest.approx(base["cei_mated"].extreme, abs=0.02)
    # BG shows in the FNMR outcome indices, BI in the FMR ones.
    assert bg["outcome"].garbe_fnmr > 5 * base["outcome"].garbe_fnmr
    assert bg["outcome"].inequity_fnmr > 2 * base["outcome"].inequity_fnmr
    assert bi["outcome"].garbe_fmr > 5 * base["outcome"].garbe_fmr
    assert bi["outcome"].inequity_fmr > 5 * base["outcome"].inequity_fmr


def test_centre_shift_shows_in_dfi(scenarios):
    base, bc = indices(scenarios["balanced"]), indices(scenarios["BC"])
    assert bc["dfi"].extreme < base["dfi"].extreme - 0.03


@pytest.fixture(scope="module")
def default_scenarios():
    return {name: beta_scenario(name, rng=7) for name in ("BG", "BI", "BC")}


def test_centre_shift_moves_dfi_and_cei_not_the_outcomes_at_the_threshold(default_scenarios):
    bc = indices(default_scenarios["BC"])
    assert bc["dfi"].normal <= 0.9
    assert bc["outcome"].garbe_fmr <= 0.1 and bc["outcome"].garbe_fnmr <= 0.1
    assert bc["outcome"].inequity_fmr <= 1.2 and bc["outcome"].inequity_fnmr <= 1.2
    # CEI says which side carries the shift: the impostors
    assert bc["cei_nonmated"].extreme < bc["cei_mated"].extreme - 0.5


def test_centre_shift_keeps_the_upper_tail():
    table = beta_scenario("BC", n_groups=2, n_mated=10, n_nonmated=100_000, rng=3)
    reference = beta_scenario("balanced", n_groups=2, n_mated=10, n_nonmated=100_000, rng=3)
    moved, kept = (t.loc[(t["group"] == "B") & ~t["mated"], "score"].to_numpy() for t in (table, reference))
    start, stop = np.quantile(kept, [0.5, 0.995])  # the map is monotone: same draws, same order
    assert np.array_equal(np.argsort(moved, kind="stable"), np.argsort(kept, kind="stable"))
    assert np.array_equal(moved[kept >= stop + 0.01], kept[kept >= stop + 0.01])
    assert np.allclose(moved[kept <= start - 0.01] - kept[kept <= start - 0.01], 0.2)
    with pytest.raises(ValueError, match="BC needs strength at most 1.4"):
        beta_scenario("BC", strength=1.5)


def test_unbiased_side_scores_near_one(default_scenarios):
    for name, kind in (("BG", "nonmated"), ("BI", "mated"), ("BC", "mated")):
        table = default_scenarios[name]
        assert bf.comprehensive_equity_index(table, kind=kind).extreme >= 0.95
        automatic = bf.automatic_comprehensive_equity_index(table, kind=kind)
        assert automatic.normal >= 0.95 and automatic.extreme >= 0.95


@pytest.mark.parametrize("lacking", ["dev", "evaluation"])
def test_development_and_evaluation_sets_of_other_groups_are_named(lacking, recwarn):
    """A development set without an evaluation group set the pooled thresholds without that
    group's non-mated scores, without a word; development groups the evaluation lacks set them
    too, silently (in an audit's table the threshold moved from 1.30 to 3.24). In memory and out
    of core alike (the same table, one warning each)."""
    import dask
    import dask.dataframe as dd

    from biofair import partitions as bp

    test = fdr_canonical_system(fair=False, n_mated=500, n_nonmated=5_000, rng=2)
    dev = fdr_canonical_system(fair=False, n_mated=500, n_nonmated=5_000, rng=1)
    if lacking == "dev":
        dev_used, test_used = dev[dev["group"] != "1"], test
        message = ("the development scores have no comparisons of 1 of the 3 evaluation groups ('1'): the "
                   "thresholds are set on the other groups' non-mated scores only")
    else:
        dev_used, test_used = dev, test[test["group"] != "1"]
        message = ("the development scores hold 1 group that the evaluation scores lack ('1'): their non-mated "
                   "scores set the pooled thresholds too")
    with pytest.warns(UserWarning) as caught:
        found = bf.fairness_discrepancy_rate(test_used, dev=dev_used, fmr_targets=[1e-2])
        with dask.config.set(scheduler="synchronous"):
            out_of_core = bp.fairness_discrepancy_rate(dd.from_pandas(test_used, npartitions=2),
                                                       dev=dd.from_pandas(dev_used, npartitions=2), fmr_targets=[1e-2])
    assert [str(w.message) for w in caught] == [message, message]
    pd.testing.assert_frame_equal(found, out_of_core)
    # every development group's non-mated scores, as SPEC 4 pools them
    assert found["threshold"].iloc[0] == bf.threshold_at_fmr(bf.split_scores(dev_used)[1], 1e-2)
    recwarn.clear()
    bf.fairness_discrepancy_rate(test, dev=dev, fmr_targets=[1e-2])  # the same groups: no warning
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]


def test_development_labels_that_differ_only_by_case_or_spaces_are_pointed_out():
    """dev labelled 'female' and 'M ' where the evaluation says 'Female' and 'M': FDR warned that
    dev had none of the evaluation's groups and held two others, with no hint (numbers written
    two ways, '1.0' and '1', had one). Now the same hint, as the readers' look-alike warning
    gives it; in memory and out of core alike."""
    import dask
    import dask.dataframe as dd

    from biofair import partitions as bp

    def table(labels):
        return pd.DataFrame({"score": [0.9, 0.1, 0.8, 0.2, 0.7, 0.3], "mated": [True, False] * 3,
                             "group": [label for label in labels for _ in range(2)]})

    test, dev = table(["Female", "M", "1"]), table(["female", "M ", "1.0"])
    with pytest.warns(UserWarning) as caught:
        bf.fairness_discrepancy_rate(test, dev=dev, fmr_targets=[0.5])
        with dask.config.set(scheduler="synchronous"):
            bp.fairness_discrepancy_rate(dd.from_pandas(test, npartitions=2), dev=dd.from_pandas(dev, npartitions=2),
                                         fmr_targets=[0.5])
    message = (
        "the development scores have no comparisons of 3 of the 3 evaluation groups ('1', 'Female', 'M'): the "
        "thresholds are set on the other groups' non-mated scores only. Labels are compared as text, and the "
        "development scores' '1.0' write the same numbers as the evaluation's '1'. Write each number one way (for "
        "whole numbers: table[column] = pd.to_numeric(table[column]).astype(int).astype(str)) in both tables. The "
        "development scores' 'female' differ from the evaluation's 'Female' only by letter case or Unicode form (e.g. "
        "'é' as one character or as e and an accent) or by characters that print as nothing (such as a zero-width "
        "space). Normalise the labels (table[column].str.normalize('NFC').str.strip().str.lower()), or relabel them, "
        "in both tables. The development scores' 'M ' differ from the evaluation's 'M' only by surrounding spaces. "
        "Strip the labels (table[column].str.strip()) in both tables"
    )
    assert [str(w.message) for w in caught if str(w.message).startswith("the development scores have no")] == [message] * 2


def test_unfair_canonical_system_has_lower_fdr_at_every_target():
    results = {}
    for fair in (True, False):
        # 3 x 1e6 pooled non-mated dev scores: FMR = 1e-6 allows 3 false matches (resolved)
        dev = fdr_canonical_system(fair=fair, n_mated=5_000, n_nonmated=1_000_000, rng=1)
        test = fdr_canonical_system(fair=fair, n_mated=5_000, n_nonmated=350_000, rng=2)
        results[fair] = bf.fairness_discrepancy_rate(test, dev=dev, fmr_targets=[1e-3, 1e-4, 1e-5, 1e-6])
    assert (results[False]["fdr"] < results[True]["fdr"]).all()
    assert not results[True]["optimistic"].any() and results[True]["resolved"].all()


def test_subset_bias_finds_the_biased_group(scenarios):
    table = scenarios["BG"]
    performance = bf.subset_performance(table, n_subsets=50, size=2_000, metric="eer", rng=0)
    assert performance.groupby("group").size().eq(50).all()
    bias = bf.subset_bias(performance).set_index("group")
    others = bias.drop("D")
    assert bias.loc["D", "n_sigma"] > 1.5 and bias.loc["D", "n_sigma"] > 2 * others["n_sigma"].max()
    assert bias.loc["D", "parity"] < others["parity"].min()
    assert bias.loc["D", "welch_similarity"] < 1e-6 < others["welch_similarity"].min()
    # The reference is the group with the lowest mean EER, compared with itself.
    reference = bias["reference"].iloc[0]
    assert bias.loc[reference, "mean"] == bias["mean"].min()
    assert (bias.loc[reference, "n_sigma"], bias.loc[reference, "welch_similarity"]) == (0.0, 1.0)


def test_subset_performance_is_seeded_and_tmr_warns_below_resolution(scenarios):
    table = scenarios["balanced"]
    first = bf.subset_performance(table, n_subsets=3, size=500, metric="tmr", rng=4)
    second = bf.subset_performance(table, n_subsets=3, size=500, metric="tmr", rng=4)
    pd.testing.assert_frame_equal(first, second)
    with pytest.warns(bf.InsufficientComparisonsWarning, match=r"0.01 is below 3/N"):
        bf.subset_performance(table, n_subsets=2, size=60, metric="tmr", rng=4)


def test_subset_performance_does_not_depend_on_the_order_of_the_categories():
    """The subsets were drawn in the categories' order: reversing it moved a group's N-Sigma
    from 1.78 to 2.97 on the same scores and seed. The table keeps the groups' order."""
    rng = np.random.default_rng(8)
    table = pd.concat([bf.synthetic.gaussian_scores(n_mated=300, n_nonmated=900, mated_mean=1.0, rng=rng).assign(group=g)
                       for g in ("a", "b", "c")], ignore_index=True)
    names = sorted(table["group"].unique())
    found = [bf.subset_performance(table.assign(group=pd.Categorical(table["group"], categories=order)),
                                   n_subsets=4, size=300, rng=4) for order in (names, names[::-1])]
    assert found[1]["group"].unique().tolist() == names[::-1]
    pd.testing.assert_frame_equal(found[0].sort_values(["group", "subset"], ignore_index=True),
                                  found[1].sort_values(["group", "subset"], ignore_index=True))
    as_text = bf.subset_performance(table.assign(group=table["group"].astype(str)), n_subsets=4, size=300, rng=4)
    pd.testing.assert_frame_equal(found[0], as_text)


def two_groups(**overrides):
    table = pd.DataFrame({
        "score": [0.9, 0.8, 0.1, 0.2, 0.7, 0.6, 0.3, 0.2],
        "mated": [True, True, False, False, True, True, False, False],
        "group": ["a"] * 4 + ["b"] * 4,
    })
    return table.assign(**overrides)


def test_fewer_than_two_groups():
    with pytest.raises(bf.SchemaError, match=r"at least two groups; by='group' gives 1"):
        bf.fairness_discrepancy_rate(two_groups(group="a"))


def test_group_without_a_class_is_named_with_counts():
    table = two_groups()
    table = table[~((table["group"] == "b") & ~table["mated"])]
    with pytest.raises(bf.SchemaError, match=r"group 'b' has 2 mated and 0 homogeneous non-mated"):
        bf.distribution_fairness_index(table)


@pytest.mark.parametrize("dropped, present", [("probe_group", "reference_group"), ("reference_group", "probe_group")])
def test_one_side_of_per_side_group_columns_is_named_as_missing(dropped, present):
    """With reference_group alone, the message advised renaming it to itself:
    "scores.rename(columns={'reference_group': 'reference_group'})" (a permutation audit)."""
    table = bf.synthetic.demographic_scores(rng=0).drop(columns=dropped)
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "no group column for 'group': give a pair-level column of that name or both reference_group and "
            f"probe_group (the table has {present!r} but no {dropped!r})") + "$"):
        bf.scores_by_group(table)


def test_missing_group_column_and_missing_labels():
    with pytest.raises(bf.SchemaError, match=r"no group column for 'gender'"):
        bf.rates_by_group(two_groups(), 0.5, by="gender")
    table = two_groups()
    table.loc[0, "group"] = None
    with pytest.raises(bf.SchemaError, match=r"column 'group' has 1 missing value"):
        bf.rates_by_group(table, 0.5)


def test_zero_rates_for_inequity():
    table = two_groups()
    with pytest.warns(bf.UndefinedRateWarning, match=r"FMR of groups \['a', 'b'\]"):
        outcome = bf.outcome_fairness(table, threshold=0.95)
    assert outcome.rates["fmr_bounded"].all()
    with pytest.raises(ValueError, match="inequity is undefined: 2 group rate"):
        bf.outcome_fairness(table, threshold=0.95, zero="raise")
    assert outcome.garbe_fmr == 0.0  # all zero: no dispersion


def test_unresolvable_fdr_targets_warn_and_are_flagged():
    with pytest.warns(bf.InsufficientComparisonsWarning, match=r"N = 4 non-mated"):
        fdr = bf.fairness_discrepancy_rate(two_groups(), fmr_targets=[1.0, 0.5, 0.01])
    assert fdr["resolved"].tolist() == [True, False, False]  # 4, 2 and 0 false matches allowed
    assert fdr["precise"].tolist() == [False, False, False]
    # pooled non-mated 0.1, 0.2, 0.2, 0.3: at 0.5 the tie at 0.2 would let 3 through, so the
    # threshold is 0.3 and only 1 reaches it
    assert fdr["k"].tolist() == [4, 1, 0]


def test_option_errors():
    table = two_groups()
    with pytest.raises(ValueError, match="alpha must lie in"):
        bf.fairness_discrepancy_rate(table, alpha=1.5)
    with pytest.raises(ValueError, match="needs the rates of at least two groups"):
        bf.garbe([0.1])
    with pytest.raises(ValueError, match="rates must lie in"):
        bf.garbe([0.1, 1.2])
    with pytest.raises(ValueError, match="percentile must lie in"):
        bf.comprehensive_equity_index(table, percentile=100)
    with pytest.raises(ValueError, match="kind must be"):
        bf.comprehensive_equity_index(table, kind="genuine")
    with pytest.raises(ValueError, match="scale must be"):
        bf.area_under_fdr([1, 1], [0.1, 0.01], scale="log")
    with pytest.raises(ValueError, match="exactly one of threshold= and fmr="):
        bf.outcome_fairness(table)


def test_eight_groups_of_a_million_scores_in_seconds():
    rng = np.random.default_rng(0)
    n = 1_000_000
    table = pd.DataFrame({
        "score": np.concatenate([rng.normal(2 + g / 20, 1, n // 10) for g in range(8)]
                                + [rng.normal(g / 20, 1, n - n // 10) for g in range(8)]),
        "mated": np.repeat([True, False], [8 * (n // 10), 8 * (n - n // 10)]),
        "group": np.concatenate([np.repeat([f"g{g}" for g in range(8)], n // 10),
                                 np.repeat([f"g{g}" for g in range(8)], n - n // 10)]),
    })
    start = time.perf_counter()
    fdr = bf.fairness_discrepancy_rate(table)
    bf.area_under_fdr(fdr["fdr"], fdr["fmr_target"])
    bf.outcome_fairness(table, fmr=1e-3)
    bf.distribution_fairness_index(table)
    for kind in ("mated", "nonmated"):
        bf.comprehensive_equity_index(table, kind=kind)
        bf.automatic_comprehensive_equity_index(table, kind=kind)
    elapsed = time.perf_counter() - start
    assert elapsed < 30.0, f"all indices on 8 x 1e6 scores took {elapsed:.1f} s"


def test_groups_from_several_per_side_attributes():
    table = pd.DataFrame({
        "score": [0.9, 0.2, 0.8, 0.3, 0.7, 0.1, 0.4],
        "mated": [True, False, True, False, True, False, False],
        "reference_gender": ["f", "f", "m", "m", "f", "f", "f"],
        "probe_gender": ["f", "f", "m", "m", "f", "f", "m"],
        "reference_age": ["old", "old", "old", "old", "young", "young", "old"],
        "probe_age": ["old", "old", "old", "old", "young", "young", "old"],
    })
    labels = bf.group_labels(table, by=["gender", "age"])
    assert labels.tolist()[:6] == ["f / old", "f / old", "m / old", "m / old", "f / young", "f / young"]
    assert pd.isna(labels.iloc[6])  # f x m: heterogeneous, in no group
    rates = bf.rates_by_group(table, 0.5, by=["gender", "age"])
    assert rates["group"].tolist() == ["f / old", "f / young", "m / old"]
    assert rates["n_nonmated"].tolist() == [1, 1, 1]


def test_cross_group_fmr_and_probe_groups_of_several_attributes():
    table = pd.DataFrame({
        "score": [0.9, 0.2, 0.3, 0.8, 0.6],
        "mated": [True, False, False, True, False],
        "reference_gender": ["f", "f", "f", "m", "m"], "probe_gender": ["f", "f", "m", "m", "f"],
        "reference_age": ["o", "o", "y", "y", "y"], "probe_age": ["o", "y", "y", "y", "y"],
    })
    cross = bf.cross_group_fmr(table, 0.25, by=["gender", "age"])
    assert cross.index.name == "reference_gender / reference_age"
    assert cross.loc["f / o", "f / y"] == 0.0 and cross.loc["f / y", "m / y"] == 1.0
    assert cross.loc["m / y", "f / y"] == 1.0 and np.isnan(cross.loc["f / o", "m / y"])
    long = pd.DataFrame({"probe_id": ["p", "p", "q", "q"], "reference_id": ["a", "b", "a", "b"],
                         "score": [0.9, 0.1, 0.2, 0.3], "mated": [True, False, False, False],
                         "probe_gender": ["f", "f", "m", "m"], "age": ["o", "o", "y", "y"]})
    outcomes = bf.probe_outcomes(long, by=["gender", "age"])
    assert outcomes["group"].tolist() == ["f / o", "m / y"]


@pytest.mark.parametrize("fair", [True, False])
def test_canonical_rates_are_the_model_of_the_sampled_system(fair):
    """The exact rates against direct integration and against two million samples per group."""
    from scipy import integrate, stats

    from biofair.synthetic import FDR_CANONICAL, fdr_canonical_rates

    rates = fdr_canonical_rates(fair=fair, fmr_targets=[1e-2, 1e-3], alpha=0.3)
    params = FDR_CANONICAL[fair]
    for target, block in rates.groupby("fmr_target"):
        t = block["threshold"].iloc[0]
        # pooled FMR of equal-size groups meets the target, by numerical integration of the densities
        pooled = np.mean([integrate.quad(stats.norm(mu, 1).pdf, t, np.inf)[0] for _, _, mu in params.values()])
        assert pooled == pytest.approx(target, rel=1e-8)
        for row in block.itertuples():
            mated_mean, mated_std, nonmated_mean = params[row.group]
            assert row.fnmr == pytest.approx(integrate.quad(stats.norm(mated_mean, mated_std).pdf, -np.inf, t)[0])
            assert row.fmr == pytest.approx(integrate.quad(stats.norm(nonmated_mean, 1).pdf, t, np.inf)[0])
        a, b = np.ptp(block["fmr"]), np.ptp(block["fnmr"])
        assert block["fdr"].eq(block["fdr"].iloc[0]).all()
        assert block["fdr"].iloc[0] == pytest.approx(1 - (0.3 * a + 0.7 * b))
    if fair:  # one distribution for everyone: the threshold is the normal quantile
        assert rates["threshold"].unique() == pytest.approx(stats.norm.isf([1e-2, 1e-3]))
    sampled = fdr_canonical_system(fair=fair, n_mated=200_000, n_nonmated=2_000_000, rng=11)
    measured = bf.fairness_discrepancy_rate(sampled, fmr_targets=[1e-2, 1e-3], alpha=0.3)
    # 60,000 and 6,000 false matches allowed: sampled FDR within a few binomial sd of the model
    assert measured["fdr"].to_numpy() == pytest.approx(rates.groupby("fmr_target", sort=False)["fdr"].first(), abs=0.01)


def test_canonical_rates_check_their_options():
    from biofair.synthetic import fdr_canonical_rates

    with pytest.raises(ValueError, match="alpha must lie in"):
        fdr_canonical_rates(alpha=2.0)
    with pytest.raises(ValueError, match=r"^fmr_targets must lie strictly between 0 and 1, got \[0\.0\]$"):
        fdr_canonical_rates(fmr_targets=[0.0])


def test_cross_group_system_lowers_the_fmr_across_groups():
    from biofair.synthetic import fdr_cross_group_system

    table = fdr_cross_group_system(fair=False, n_mated=1_000, n_nonmated=200_000, cross_shift=1.0, rng=3)
    cells = table[~table["mated"]].groupby(["reference_group", "probe_group"])["score"]
    assert cells.size().eq(200_000).all()
    means = cells.mean().unstack()
    assert np.diag(means) == pytest.approx([0.5, 0.0, -0.5], abs=0.01)
    assert means.loc["0", "2"] == pytest.approx(-1.0, abs=0.01) and means.loc["1", "0"] == pytest.approx(-0.75, abs=0.01)
    fmr = bf.cross_group_fmr(table, 2.5)
    off_diagonal = fmr.to_numpy()[~np.eye(3, dtype=bool)]
    assert off_diagonal.max() < np.diag(fmr).min()
    # the diagonal is the per-group FMR of homogeneous pairs
    assert np.diag(fmr) == pytest.approx(bf.rates_by_group(table, 2.5)["fmr"].to_numpy())
    no_shift = fdr_cross_group_system(fair=True, n_mated=10, n_nonmated=200_000, cross_shift=0.0, rng=4)
    assert bf.cross_group_fmr(no_shift, 1.0).to_numpy() == pytest.approx(0.1587, abs=0.003)  # all cells N(0, 1)
    with pytest.raises(ValueError, match=r"^cross_shift must lie in \[0, inf\), got -1\.0$"):
        fdr_cross_group_system(cross_shift=-1.0)
    with pytest.raises(ValueError, match=r"^n_nonmated must be at least 1, got 0$"):
        fdr_cross_group_system(n_nonmated=0)


def test_subset_bias_of_one_group_is_refused():
    """One group against itself was a "perfectly fair" row: parity 1, similarity 1, N-Sigma 0."""
    table = beta_scenario("BG", n_groups=2, n_mated=500, n_nonmated=500, rng=0)
    performance = bf.subset_performance(table, n_subsets=10, size=200, rng=0)
    one = performance[performance["group"] == performance["group"].iloc[0]]
    with pytest.raises(ValueError, match=r"^subset bias compares groups: the performance table has 1 "):
        bf.subset_bias(one)
    assert len(bf.subset_bias(performance)) == 2


def test_subset_bias_names_the_group_of_a_bad_value_and_pairs_subsets_by_id():
    """Bad tables gave errors about internal arguments ("a contains 1 NaN", "a and b must pair
    value by value"), a row without a group was silently dropped, and groups holding different
    subset ids were paired by position."""
    table = pd.DataFrame({"group": list("aabb"), "subset": [0, 1, 0, 1], "value": [0.1, 0.2, 0.3, 0.2]})
    expected = bf.subset_bias(table).set_index("group")
    assert expected.loc["b", "parity"] == pytest.approx(1 - (0.2 + 0.0) / 2)
    # the order of the rows does not matter: values pair by subset id
    shuffled = bf.subset_bias(table.iloc[[3, 0, 2, 1]]).set_index("group")
    pd.testing.assert_frame_equal(shuffled, expected)
    for value, shown in ((np.nan, "nan"), (1.5, "1.5")):
        bad = table.assign(value=[0.1, 0.2, value, 0.2])
        with pytest.raises(ValueError, match=rf"^the values of group 'b' must lie in \[0, 1\]; 1 value does not: \[{shown}\]"):
            bf.subset_bias(bad)
    with pytest.raises(bf.SchemaError, match=r"^groups 'a' and 'b' hold different subsets \(2 and 1; ids in one "
                                             r"only: \[1\]\); the measures pair the groups' values subset by subset$"):
        bf.subset_bias(table.iloc[:3])
    with pytest.raises(bf.SchemaError, match=r"^groups 'a' and 'b' hold different subsets \(2 and 2; ids in one "
                                             r"only: \[0, 2\]\)"):
        bf.subset_bias(table.assign(subset=[0, 1, 1, 2]))
    with pytest.raises(ValueError, match=r"^subset bias compares groups: the performance table has 0 "):
        bf.subset_bias(table.iloc[:0])
    with pytest.raises(bf.SchemaError, match=r"^group 'a' lists a subset id twice"):
        bf.subset_bias(table.assign(subset=[0, 0, 0, 1]))
    with pytest.raises(bf.SchemaError, match=r"^1 row\(s\) of the performance table have no group label"):
        bf.subset_bias(table.assign(group=["a", "a", "b", None]))
    with pytest.raises(bf.SchemaError, match=r"lacks the column\(s\) \['subset'\]"):
        bf.subset_bias(table.drop(columns="subset"))


def test_scores_by_group_built_by_hand_are_checked():
    """Built from unsorted arrays, every index was silently wrong (FMR 0.0097 for 0.066, DFI
    0.45 for 0.98), or raised IndexError; with a group deleted, FDR was 1 for one group."""
    rng = np.random.default_rng(0)
    arrays = {g: (rng.normal(2, 1, 30), rng.normal(0, 1, 300)) for g in "abc"}
    with pytest.raises(bf.SchemaError, match=r"group 'a': mated scores must be ascending \(np\.sort them\)"):
        bf.ScoresByGroup({g: bf.GroupScores(m, n) for g, (m, n) in arrays.items()}, by="group")
    with pytest.raises(bf.SchemaError, match=r"group 'a': nonmated scores must be a 1-D float array"):
        bf.ScoresByGroup({"a": bf.GroupScores(np.sort(arrays["a"][0]), [0.1, 0.2]),
                          "b": bf.GroupScores(*map(np.sort, arrays["b"]))}, by="group")
    with pytest.raises(bf.SchemaError, match=r"group 'b': mated scores must be finite, and at least one"):
        bf.ScoresByGroup({"a": bf.GroupScores(*map(np.sort, arrays["a"])),
                          "b": bf.GroupScores(np.array([0.5, np.nan]), np.sort(arrays["b"][1]))}, by="group")
    by_hand = bf.ScoresByGroup({g: bf.GroupScores(*map(np.sort, pair)) for g, pair in arrays.items()}, by="group")
    table = pd.concat([pd.DataFrame({"score": np.r_[m, n], "mated": np.arange(m.size + n.size) < m.size, "group": g})
                       for g, (m, n) in arrays.items()], ignore_index=True)
    pd.testing.assert_frame_equal(bf.rates_by_group(by_hand, 1.0), bf.rates_by_group(table, 1.0))
    with pytest.raises(TypeError, match="^a ScoresByGroup cannot be changed"):
        del by_hand["b"]
    with pytest.raises(bf.SchemaError, match=r"fairness needs at least two groups, got 1"):
        bf.fairness_discrepancy_rate(bf.ScoresByGroup({"a": by_hand["a"]}, by="group"), fmr_targets=[0.1])


def test_cross_group_fmr_keeps_a_group_without_non_mated_pairs():
    """Group C, with mated comparisons only, vanished from the matrix without a word."""
    table = bf.read_scores(bf.datasets.example_scores_path())
    table = table[~((table["group"] == "C") & ~table["mated"])]
    sides = table.assign(reference_group=table["group"], probe_group=table["group"]).drop(columns="group")
    matrix = bf.cross_group_fmr(sides, 1.0)
    assert matrix.index.tolist() == matrix.columns.tolist() == ["A", "B", "C"]
    assert matrix.loc["C"].isna().all() and matrix["C"].isna().all()
    nonmated = sides[~sides["mated"] & (sides["reference_group"] == "A")]
    assert matrix.loc["A", "A"] == (nonmated["score"] >= 1.0).mean()


def test_fdr_on_dev_scores_that_share_subjects_with_the_evaluation_is_flagged_optimistic():
    """dev=the evaluation table itself gave the same numbers with optimistic False (SPEC 4:
    thresholds set on the scores they are applied to are flagged)."""
    table = bf.read_scores(bf.datasets.example_scores_path())
    split = bf.mitigation.subject_disjoint_split(table, rng=0)
    flags = {name: bf.fairness_discrepancy_rate(split.eval, dev=dev, fmr_targets=[0.1])["optimistic"].item()
             for name, dev in (("itself", split.eval), ("every subject", table), ("disjoint", split.dev))}
    assert flags == {"itself": True, "every subject": True, "disjoint": False}


@pytest.mark.parametrize("n_std", [10.0, 39.0, 60.0])
def test_automatic_cei_with_empty_tails_warns_and_stays_finite(n_std):
    """No score lies beyond mu + N sigma: each group is split at its 100th percentile, and the
    index warns. At N = 39, 1 - Phi(N) is 0 in float64 and Delta = 0/0 made the index NaN."""
    table = beta_scenario("balanced", n_groups=2, n_mated=2_000, n_nonmated=2_000, rng=0)
    with pytest.warns(bf.InsufficientComparisonsWarning, match=r"CEIᴬ: no non-mated score of group\(s\) 'A', 'B' "
                      r"lies above mu \+ N·sigma"):
        index = bf.automatic_comprehensive_equity_index(table, kind="nonmated", n_std=n_std)
    assert np.isfinite([index.normal, index.extreme, index.parameters["tail_weight"]]).all()
    assert index.parameters["tail_mass_ratio"] == {"A": 0.0, "B": 0.0}
    assert index.parameters["tail_weight"] == 0.5  # sigmoid(0) times a split at the 100th percentile


def test_automatic_cei_with_a_score_beyond_where_the_normal_tail_underflows():
    """At N = 40 one score far beyond: Delta is infinite, sigmoid 1, no NaN and no warning."""
    rng = np.random.default_rng(0)
    scores = np.concatenate([rng.normal(0, 1, 4_000), [0.0]])
    group = np.repeat(["A", "B"], [2_000, 2_001])
    table = pd.DataFrame({"score": np.r_[scores, rng.normal(5, 1, 400)], "mated": np.r_[np.zeros(4_001, bool),
                                                                                      np.ones(400, bool)],
                          "group": np.r_[group, np.repeat(["A", "B"], 200)]})
    table.loc[0, "score"] = 1e6  # group A: one score 1e6 above the rest (sigma about 2e4, so N = 40 reaches it)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        index = bf.automatic_comprehensive_equity_index(table, kind="nonmated", n_std=40)
    assert index.parameters["tail_mass_ratio"]["A"] == np.inf
    assert [str(w.message) for w in caught if "CEIᴬ" in str(w.message)] == [
        "CEIᴬ: no non-mated score of group(s) 'B' lies above mu + N·sigma (N = n_std = 40; a normal tail holds "
        "0 of the scores), so each is split at its 100th percentile and its tail is its extreme score(s) alone; "
        "use a smaller n_std or more scores"]
    assert np.isfinite([index.normal, index.extreme]).all()


@pytest.mark.parametrize("smoothing, error", [(float("nan"), ValueError), (-1e-6, ValueError), (0.0, ValueError),
                                              ("1e-6", TypeError)])
def test_cei_smoothing_is_checked(smoothing, error):
    """smoothing=NaN gave a NaN index, a negative value was accepted, text gave NumPy's error."""
    table = beta_scenario("BG", n_groups=2, n_mated=500, n_nonmated=500, rng=0)
    with pytest.raises(error, match="smoothing must"):
        bf.comprehensive_equity_index(table, mean_tail="split_mean", smoothing=smoothing)


def test_an_unknown_zero_option_is_refused():
    """zero="yes" (anything but "raise") acted as "upper_bound"."""
    with pytest.raises(ValueError, match="zero must be 'upper_bound' or 'raise', got 'yes'"):
        bf.inequity([0.1, 0.2], counts=[10, 10], zero="yes")
    table = beta_scenario("BG", n_groups=2, n_mated=500, n_nonmated=500, rng=0)
    with pytest.raises(ValueError, match="zero must be"):
        bf.outcome_fairness(table, fmr=1e-1, zero="Raise")


@pytest.mark.parametrize("draw, options, error, message", [
    (bf.synthetic.fdr_canonical_system, {"fair": "yes"}, TypeError, "fair must be True or False"),
    (bf.synthetic.fdr_canonical_rates, {"fair": 1}, TypeError, "fair must be True or False"),
    (bf.synthetic.identification_embeddings, {"fair": None}, TypeError, "fair must be True or False"),
    (bf.synthetic.beta_scenario, {"strength": float("nan")}, ValueError, "strength must lie in"),
    (bf.synthetic.gaussian_scores, {"mated_mean": float("nan")}, ValueError, "mated_mean must lie in"),
    (bf.synthetic.gaussian_scores, {"nonmated_std": -1.0}, ValueError, "nonmated_std must lie in"),
])
def test_generators_refuse_options_that_drew_nan_or_raised_key_errors(draw, options, error, message):
    """fair="yes" raised KeyError: 'yes'; a NaN mean or strength drew NaN scores."""
    with pytest.raises(error, match=message):
        draw(**options)


@pytest.mark.parametrize("draw", [bf.synthetic.beta_scenario, bf.synthetic.demographic_scores,
                                  bf.synthetic.fdr_canonical_system, bf.synthetic.fdr_cross_group_system,
                                  bf.synthetic.gaussian_scores, bf.synthetic.identification_embeddings,
                                  bf.synthetic.interval_coverage])
@pytest.mark.parametrize("rng, error, message", [
    (-1, ValueError, r"^rng must be a non-negative integer seed \(or a numpy Generator, or None\), got -1$"),
    (1.5, TypeError, r"^rng must be a numpy Generator, a non-negative integer seed or None, got 1.5$"),
    (True, TypeError, r"^rng must be a numpy Generator, a non-negative integer seed or None, got True$"),
])
def test_generators_check_rng_as_the_resampling_functions_do(draw, rng, error, message):
    """The generators passed rng to NumPy: -1 gave "expected non-negative integer", 1.5 a
    SeedSequence TypeError, and True drew as seed 1."""
    with pytest.raises(error, match=message):
        draw(rng=rng)


@pytest.mark.parametrize("options, error, message", [
    ({"n_repeats": 0}, ValueError, r"^n_repeats must be at least 1, got 0$"),
    ({"n_resamples": 0}, ValueError, r"^n_resamples must be at least 1, got 0$"),
    ({"n_resamples": 100, "confidence": 0.99}, ValueError, r"^n_resamples=100 is too few for 99% intervals"),
    ({"confidence": 95}, ValueError, r"^confidence must lie in \(0, 1\), got 95$"),
    ({"n_subjects": 1}, ValueError, r"^n_subjects must be at least 2, got 1$"),
    ({"comparisons_per_subject": 2.5}, TypeError, r"^comparisons_per_subject must be an integer, got 2.5$"),
    ({"rate": "0.05"}, TypeError, r"^rate must be a number, got '0.05'$"),
    ({"subject_sd": 1.0}, ValueError, r"^subject_sd must lie in \[0, 1\), got 1.0$"),
])
def test_interval_coverage_checks_its_options(options, error, message):
    """Before: n_repeats=0 raised ZeroDivisionError, n_resamples=0 an IndexError,
    confidence=95 NumPy's percentile error; n_subjects=1 (a subject bootstrap of one subject)
    and 2.5 comparisons per subject gave a table."""
    with pytest.raises(error, match=message):
        bf.synthetic.interval_coverage(**options)


def test_interval_coverage_names_an_undefined_design_effect():
    """At a rate no simulated group reaches, every estimate is 0: the design effect is NaN,
    which is said, and the coverages are still given."""
    with pytest.warns(bf.InsufficientComparisonsWarning, match=r"design effect is undefined"):
        table = bf.synthetic.interval_coverage(rate=1e-6, n_repeats=5, n_resamples=100, rng=0)
    assert table["design_effect"].isna().all()
    assert table["coverage"].between(0, 1).all()



@pytest.mark.parametrize("function", [bf.n_sigma, bf.welch_similarity])
def test_subset_values_that_are_not_finite_are_named_as_values(function):
    """Read as comparison scores, a subset's NaN EER was told to "leave out the comparisons
    without a finite score, or decide how to count them (as errors ...)"."""
    with pytest.raises(ValueError) as raised:
        function([0.1, 0.2, 0.3], [0.2, np.nan, np.inf])
    assert str(raised.value) == "b has 2 values that are not finite (e.g. nan): give one finite performance value per subset"
    with pytest.raises(ValueError) as raised:
        function([0.1], [0.2, 0.3])
    assert str(raised.value) == (f"{function.__name__} needs at least two performance values per set, one per subset "
                                 "(a sample standard deviation), got 1 and 2")


@pytest.mark.parametrize("function", [bf.n_sigma, bf.welch_similarity])
@pytest.mark.parametrize(("a", "b", "error", "message"), [
    ([], [0.2, 0.3], ValueError, "{function} needs at least two performance values per set, one per subset (a sample "
                                 "standard deviation), got 0 and 2"),
    ([0.1, 0.2, 0.3], np.array([]), ValueError, "{function} needs at least two performance values per set, one per "
                                                "subset (a sample standard deviation), got 3 and 0"),
    (["0.1", "0.2"], [0.2, 0.3], TypeError, "a must hold numeric performance values, got dtype <U3"),
    (None, [0.2, 0.3], TypeError, "a must be a sequence of performance values (a list, an array or a Series), got "
                                  "NoneType"),
    ([0.1, 0.2], [2**60, 1], ValueError, "b has 1 integer performance value beyond ±2^53 (e.g. 1152921504606846976) "
                                         "that float64 cannot hold exactly: distinct performance values would become "
                                         "ties"),
])
def test_subset_values_are_named_as_performance_values_not_scores(function, a, b, error, message):
    """An empty set was "a is empty: at least one comparison score is needed" (the sets hold one
    performance value per subset, and two are needed), text "must hold numeric scores"."""
    with pytest.raises(error) as raised:
        function(a, b)
    assert str(raised.value) == message.format(function=function.__name__)
