"""The VoxCeleb1-H loader: counts pinned, labels agree with speaker ids, clear errors."""

from __future__ import annotations

import importlib.metadata

import pytest

import biofair as bf
from biofair import datasets


@pytest.fixture(scope="module", params=datasets.VOXCELEB_MODELS)
def voxceleb(request, tmp_path_factory):
    return request.param, datasets.load_voxceleb1h(request.param)


def test_counts_are_pinned(voxceleb):
    model, table = voxceleb
    assert len(table) == 550_894
    assert table["mated"].sum() == 275_488 and (~table["mated"]).sum() == 275_406
    assert (table["system"] == model).all()
    genders = bf.group_sizes(table, by="gender")
    assert genders.loc["m", ["n_mated", "n_nonmated"]].tolist() == [162_123, 162_082]
    assert genders.loc["f", ["n_mated", "n_nonmated"]].tolist() == [113_365, 113_324]


def test_labels_agree_with_speaker_ids_and_every_pair_is_homogeneous(voxceleb):
    _, table = voxceleb
    assert ((table["reference_subject"] == table["probe_subject"]) == table["mated"]).all()
    assert (table["reference_gender"] == table["probe_gender"]).all()
    assert (table["reference_nationality"] == table["probe_nationality"]).all()


def test_small_nationalities_are_flagged_not_dropped(voxceleb):
    _, table = voxceleb
    sizes = bf.group_sizes(table, by="nationality")
    assert len(sizes) == 11 and sizes[["n_mated", "n_nonmated"]].sum().tolist() == [275_488, 275_406]
    assert sorted(sizes.index[sizes["small"]]) == ["Germany", "Italy", "Mexico", "New Zealand"]


def test_the_two_models_share_the_trial_list():
    first, second = (datasets.load_voxceleb1h(m) for m in datasets.VOXCELEB_MODELS)
    assert (first["reference_id"] == second["reference_id"]).all()
    assert (first["probe_id"] == second["probe_id"]).all()
    assert (first["score"] != second["score"]).any()


def test_cache_is_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("BIOFAIR_CACHE", str(tmp_path))
    first = datasets.load_voxceleb1h("resnetse34l")
    assert list(tmp_path.glob("*.parquet"))
    assert datasets.load_voxceleb1h("resnetse34l").equals(first)


def test_missing_package_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("BIOFAIR_CACHE", str(tmp_path))

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(datasets, "distribution", missing)
    with pytest.raises(ModuleNotFoundError, match=r"pip install --no-deps bt4vt==1.0.1"):
        datasets.load_voxceleb1h()
    with pytest.raises(ValueError, match="^model must be 'resnetse34v2' or 'resnetse34l', got 'ecapa'$"):
        datasets.load_voxceleb1h("ecapa")


def test_the_cache_folder_set_by_the_environment_needs_no_home(monkeypatch, tmp_path):
    """With BIOFAIR_CACHE set, a process without a home directory (no HOME, no password
    entry) got Path.home()'s RuntimeError: the default was computed before the variable was read."""
    from pathlib import Path

    def no_home():
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    monkeypatch.setenv("BIOFAIR_CACHE", str(tmp_path))
    assert datasets.cache_dir() == tmp_path
    monkeypatch.delenv("BIOFAIR_CACHE")
    with pytest.raises(RuntimeError, match="home directory"):
        datasets.cache_dir()
