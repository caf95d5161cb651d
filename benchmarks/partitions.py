"""Exact fairness metrics over 1e9 non-mated scores on disk, with a local Dask cluster.

Usage:
    .venv/bin/python benchmarks/partitions.py                     # 1e9 non-mated, 1e8 mated
    .venv/bin/python benchmarks/partitions.py --nonmated 1e7 --folder /tmp/scores --output /tmp/r.md

Generates the score set partition by partition into Parquet files (8 groups, mated = 1/10 of
non-mated, scores rounded to 4 decimals: ties), never holding more than one partition in
memory, then on a ``LocalCluster`` (2 workers, 1 thread each) times: the census; the exact
thresholds at FMR 1e-1 ... 1e-6; FMR/FNMR of every group at six fixed thresholds; FDR at the
six targets. Peak memory: the client's resident set (``resource``) and each worker's, polled
while the work runs. Writes the section "## Out of core" of ``results.md``.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

from biofair import partitions as bp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sections import replace_section  # noqa: E402

HERE = Path(__file__).resolve().parent
HEADING = "## Out of core"
GROUPS = np.array([f"g{i}" for i in range(8)])


def generate(folder: Path, n_nonmated: int, rows_per_part: int, seed: int) -> int:
    """Write the Parquet partitions; returns their number."""
    folder.mkdir(parents=True, exist_ok=True)
    n_rows = n_nonmated + n_nonmated // 10
    n_parts = -(-n_rows // rows_per_part)
    for i in range(n_parts):
        rng = np.random.default_rng([seed, i])
        size = min(rows_per_part, n_rows - i * rows_per_part)
        mated = rng.random(size) < 1 / 11
        group = rng.integers(0, GROUPS.size, size)
        score = np.round(rng.normal(np.where(mated, 3.0, 0.0) + 0.05 * group, 1.0), 4)
        labels = pd.Categorical.from_codes(group, GROUPS)  # dictionary-encoded in Parquet
        pd.DataFrame({"score": score, "mated": mated, "group": labels}).to_parquet(
            folder / f"part-{i:05d}.parquet", index=False)
    return n_parts


class WorkerMemory:
    """Polls the workers' resident memory while work runs; keeps each one's peak."""

    def __init__(self, client):
        self.client, self.peak, self.running = client, {}, True
        self.thread = threading.Thread(target=self.poll, daemon=True)
        self.thread.start()

    def poll(self):
        while self.running:
            for worker, info in self.client.scheduler_info()["workers"].items():
                self.peak[worker] = max(self.peak.get(worker, 0), info["metrics"]["memory"])
            time.sleep(0.5)

    def stop(self) -> list[float]:
        self.running = False
        self.thread.join()
        return [v / 2**30 for v in self.peak.values()]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nonmated", default="1e9", help="non-mated scores (mated: a tenth of that)")
    parser.add_argument("--rows-per-part", type=int, default=10_000_000)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/biofair-partitions"))
    parser.add_argument("--output", type=Path, default=HERE / "results.md")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    args = parser.parse_args(argv)
    from distributed import Client, LocalCluster

    n_nonmated = int(float(args.nonmated))
    start = time.perf_counter()
    n_parts = generate(args.folder, n_nonmated, args.rows_per_part, seed=2026)
    timings = {"generate the Parquet partitions": time.perf_counter() - start}
    on_disk = sum(f.stat().st_size for f in args.folder.glob("*.parquet")) / 2**30
    path = str(args.folder / "*.parquet")
    targets = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6]
    fixed = [0.5, 1.0, 2.0, 3.0, 4.0, 5.0]
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        memory = WorkerMemory(client)
        steps = [
            ("census (checks, counts per group and class)", lambda: bp.partitioned(path)),
            ("thresholds at FMR 1e-1 ... 1e-6 (exact)", lambda: bp.pooled_thresholds(data, targets)),
            ("FMR/FNMR per group at six thresholds", lambda: bp.rates_by_group(data, fixed)),
            ("FDR per group at six targets", lambda: bp.fairness_discrepancy_rate(data, fmr_targets=targets)),
            ("CEI of mated scores (exact per-group percentiles)", lambda: bp.comprehensive_equity_index(data)),
            ("CEI^A of mated scores", lambda: bp.automatic_comprehensive_equity_index(data)),
            ("TMR at FMR 1e-1 ... 1e-6 over all pairs", lambda: bp.tmr_at_fmr(data, targets)),
            ("EER (ROC convex hull, exact)", lambda: bp.eer(data)),
            ("partial AUC up to FMR 1e-3 (bounded)", lambda: bp.partial_auc(data, max_fmr=1e-3)),
        ]
        results = {}
        for name, step in steps:
            begin = time.perf_counter()
            results[name] = step()
            timings[name] = time.perf_counter() - begin
            if name.startswith("census"):
                data = results[name]
        workers = memory.stop()
    client_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    census = data.census
    fdr = results["FDR per group at six targets"]
    cei, ceia = results["CEI of mated scores (exact per-group percentiles)"], results["CEI^A of mated scores"]
    tmr, eer = results["TMR at FMR 1e-1 ... 1e-6 over all pairs"], results["EER (ROC convex hull, exact)"]
    pauc = results["partial AUC up to FMR 1e-3 (bounded)"]
    rows = pd.DataFrame({"step": list(timings), "seconds": list(timings.values())})
    section = (
        f"{HEADING}\n\nCommand: `python benchmarks/partitions.py --nonmated {args.nonmated}`\n\n"
        f"{int(census.n_nonmated.sum()):,} non-mated and {int(census.n_mated.sum()):,} mated scores in "
        f"{len(census.names)} groups, {n_parts} Parquet partitions ({on_disk:.2f} GiB on disk), read by a "
        "LocalCluster of 2 workers with 1 thread each. Every metric but the partial AUC is exact (the same "
        "numbers as the in-memory functions; `tests/partitions` checks it at 1e7); CEI^A up to the rounding of "
        "merged moments.\n\n"
        f"{rows.to_markdown(index=False, floatfmt='.1f')}\n\n"
        f"Peak resident memory: client {client_peak:.2f} GiB; workers "
        f"{', '.join(f'{w:.2f}' for w in workers)} GiB.\n\n"
        f"Thresholds at FMR {', '.join(f'{t:g}' for t in targets)}: "
        f"{', '.join(f'{t:.4f}' for t in fdr['threshold'])}; FDR: {', '.join(f'{v:.5f}' for v in fdr['fdr'])}. "
        f"CEI_E (mated) {cei.extreme:.5f}, CEI^A_E {ceia.extreme:.5f}; "
        f"TMR at FMR 1e-3 {tmr[2]:.5f}; EER {eer.eer:.6f} (bounds {eer.low:.6f} ... {eer.high:.6f}); "
        f"partial AUC up to 1e-3 in [{pauc.low:.6f}, {pauc.high:.6f}].\n"
    )
    replace_section(args.output, HEADING, section)
    print(section)
    if not args.keep:
        shutil.rmtree(args.folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
