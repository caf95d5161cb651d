"""Regenerate biofair/data/example_scores.csv, the small example shipped with the package.

Three groups of 40 subjects; every subject has 6 mated comparisons and 60 non-mated ones
against other subjects of its group. Group C's genuine scores are lower and more spread, so
the example has something to find. Run: python data/make_example_scores.py
"""

from pathlib import Path

import numpy as np
import pandas as pd

rng = np.random.default_rng(2026)
rows = []
for group, (mated_mean, mated_std) in {"A": (3.0, 1.0), "B": (3.0, 1.0), "C": (2.4, 1.3)}.items():
    subjects = [f"{group}{i:02d}" for i in range(40)]
    for subject in subjects:
        others = rng.choice([s for s in subjects if s != subject], 60)
        scores = np.concatenate([rng.normal(mated_mean, mated_std, 6), rng.normal(0.0, 1.0, 60)])
        probes = np.concatenate([[subject] * 6, others])
        for probe, score in zip(probes, scores):
            rows.append((subject, probe, group, round(float(score), 4), probe == subject))
table = pd.DataFrame(rows, columns=["reference_subject", "probe_subject", "group", "score", "mated"])
table.to_csv(Path(__file__).resolve().parents[1] / "biofair" / "data" / "example_scores.csv", index=False)
