"""Time identification fairness on a probes x gallery matrix that is never held in memory.

Usage:
    .venv/bin/python benchmarks/identification.py                  # 1e4 probes x 1e5 gallery
    .venv/bin/python benchmarks/identification.py --probes 1e3 --gallery 1e4 --output /tmp/r.md

Seeded synthetic embeddings (``bf.synthetic.identification_embeddings``, unfair system,
three groups, half of the probes not enrolled) are scored block by block as cosine
similarities. It times the floor, computing every block of the score matrix and discarding
it, then ``probe_outcomes_from_matrix`` on the same blocks (scores + ranks + best non-mates),
then CMC, rank-1 differential and FDR' at three FPIR targets on the outcomes. Peak memory is
traced with tracemalloc and compared with the size the whole float64 matrix would have. It
checks on the first block that the outcomes equal a brute-force sort per probe, and writes
the section "## Identification" of ``results.md`` (``run.py`` keeps that section).
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

import biofair as bf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sections import machine, replace_section  # noqa: E402

HERE = Path(__file__).resolve().parent
HEADING = "## Identification"


def timed(function, *args, **kwargs):
    """Wall time, peak traced memory and result of one call."""
    tracemalloc.start()
    start = time.perf_counter()
    result = function(*args, **kwargs)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak, result


def floor(data, block_size: int) -> None:
    for start in range(0, len(data.probes), block_size):
        data.scores(start, start + block_size)


def brute_ranks(block: np.ndarray, mates: np.ndarray) -> list[int]:
    """Rank of each mate by sorting its row, non-mates first among ties."""
    ranks = []
    for row, mate in zip(block, mates):
        if mate < 0:
            ranks.append(0)
            continue
        order = sorted(range(row.size), key=lambda j: (-row[j], j == mate))
        ranks.append(order.index(mate) + 1)
    return ranks


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--probes", default="1e4", help="probes, about half of them not enrolled")
    parser.add_argument("--gallery", default="1e5", help="gallery entries (enrolled identities)")
    parser.add_argument("--dim", type=int, default=64, help="embedding dimension")
    parser.add_argument("--block-size", type=int, default=256, help="probes per block")
    parser.add_argument("--output", type=Path, default=HERE / "results.md", help="results file to update")
    args = parser.parse_args(argv)
    n_probes, n_gallery = int(float(args.probes)), int(float(args.gallery))
    per_group = -(-n_gallery // 3)
    searched = max(1, n_probes // 6)
    data = bf.synthetic.identification_embeddings(
        fair=False, n_enrolled=per_group, n_searched=searched, n_nonenrolled=searched, dim=args.dim, rng=2026,
    )
    n_probes, n_gallery = len(data.probes), len(data.gallery)
    options = dict(probe_subjects=data.probe_subjects, gallery_subjects=data.gallery_subjects,
                   probe_groups=data.probe_groups, block_size=args.block_size)

    floor_seconds, floor_peak, _ = timed(floor, data, args.block_size)
    outcome_seconds, outcome_peak, outcomes = timed(bf.probe_outcomes_from_matrix, data.scores, **options)
    targets = [1e-1, 1e-2, 1e-3]

    def fairness():
        return (bf.cmc(outcomes, max_rank=20), bf.rank_n_differential(outcomes),
                bf.identification_discrepancy_rate(outcomes, fpir_targets=targets))

    fairness_seconds, fairness_peak, (_, c1, fdr) = timed(fairness)

    first = slice(0, min(64, n_probes))
    mates = pd.Index(data.gallery_subjects).get_indexer(data.probe_subjects[first])
    agree = brute_ranks(data.scores(first.start, first.stop), mates) == outcomes["rank"][first].tolist()

    matrix_bytes = 8 * n_probes * n_gallery
    rows = pd.DataFrame([
        ("score blocks only (floor)", floor_seconds, floor_peak),
        ("probe_outcomes_from_matrix", outcome_seconds, outcome_peak),
        ("CMC + C + FDR' at 3 targets", fairness_seconds, fairness_peak),
    ], columns=["step", "seconds", "peak_bytes"])
    rows["x_floor"] = rows["seconds"] / floor_seconds
    rows["peak_MB"] = rows.pop("peak_bytes") / 2**20
    rows["peak_x_whole_matrix"] = rows["peak_MB"] * 2**20 / matrix_bytes
    table = rows.to_markdown(index=False, floatfmt=".3g")
    print(table)
    section = (
        f"{HEADING}\n\nMachine: {machine()}\n\nCommand: `python benchmarks/identification.py --probes {args.probes} --gallery "
        f"{args.gallery} --dim {args.dim} --block-size {args.block_size}`\n\n"
        f"{n_probes:,} probes ({int(outcomes['mated'].sum()):,} enrolled) x {n_gallery:,} gallery entries = "
        f"{n_probes * n_gallery:,} cosine scores of {args.dim}-dimensional embeddings, computed and reduced "
        f"{args.block_size} probes at a time; the whole float64 matrix would take "
        f"{matrix_bytes / 2**30:.1f} GiB. `x_floor` divides by the time to compute the score blocks alone; "
        "`peak_x_whole_matrix` compares the peak traced memory with the whole matrix.\n\n"
        f"{table}\n\nRank-1 differential C = {c1:.4f}; FDR' at FPIR {', '.join(f'{t:g}' for t in targets)}: "
        f"{', '.join(f'{v:.4f}' for v in fdr['fdr'])}.\n\n"
        f"Agreement check (ranks of the first {first.stop} probes against a sort per probe): "
        f"{'passed' if agree else 'FAILED'}\n"
    )
    replace_section(args.output, HEADING, section)
    if not agree:
        print("DISAGREEMENT: ranks differ from the brute-force sort", file=sys.stderr)
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
