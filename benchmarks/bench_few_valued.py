"""Few-valued wide data (binary words, word counts): rotforest's random forest, rotation
forest and single tree against scikit-learn's, and the rule that grows a dense X of few
entries as a sparse one.

Default part: the targets of the large-data issue for few-valued wide data (our random
forest at most 0.5x and our rotation forest at most 1.0x scikit-learn's random forest's
fit time on binary and count data of 1,000 to 10,000 columns, at unchanged accuracy).
Data: the ``binary`` and ``counts`` families of ``wide_families.py`` at 1,000, 3,000 and
10,000 columns (2,000 rows; 1,000 at 10,000 columns), and the shared sets of binary or
count columns (hiva, cnae9, semeion; skipped without ../shared). One stratified 2/3-1/3
split (seed 0); every model is fitted --repeat times (random_state 0, 1, ...) and the
fastest fit is reported, the models taking turns on each data set so that all of them
see the same machine; accuracy on the held-out third (of the first fit). Forests: 100
trees, n_jobs=2; the trees at their defaults (full depth, every feature).

--sparse-rule: the measurements behind ``_SPARSE_ENTRIES`` (forest.py, tree.py): binary
data of given rows, columns and rates, each estimator fitted on the dense path (the rule
turned off) and on the entries path (the rule forced), the fastest of --repeat fits each,
and the second's time over the first's beside the entries per column and the share of
stored cells.

    python benchmarks/bench_few_valued.py                 # the targets (a few minutes)
    python benchmarks/bench_few_valued.py --sparse-rule   # the rule's crossover
    python benchmarks/bench_few_valued.py --sparse-rule --large   # ... on more rows
    python benchmarks/bench_few_valued.py --quick         # seconds: a smoke run
"""
import argparse
import os
import sys

import numpy as np
from sklearn.ensemble import RandomForestClassifier as SkForest
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier as SkTree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wide_families  # noqa: E402
from common import best_time, header, markdown_table  # noqa: E402

import rotforest  # noqa: E402
from rotforest import forest as _forest  # noqa: E402
from rotforest import tree as _tree  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(REPO, "..", "shared", "datasets")
FAMILIES = [("binary", 2000, 1000), ("binary", 2000, 3000), ("binary", 1000, 10000),
            ("counts", 2000, 1000), ("counts", 2000, 3000), ("counts", 1000, 10000)]
SHARED_SETS = ("hiva", "cnae9", "semeion")
# (rows, columns, lowest rate, highest rate) of the rule's binary data
RULE_GRID = [(10000, 500, 0.002, 0.006), (10000, 500, 0.005, 0.015),
             (10000, 500, 0.01, 0.03), (3000, 1000, 0.01, 0.02), (3000, 1000, 0.02, 0.04),
             (3000, 1000, 0.05, 0.1), (600, 3000, 0.05, 0.1), (600, 3000, 0.1, 0.2),
             (50000, 100, 0.002, 0.006)]
# --large: where the forests' crossover in entries a column has grown with the rows
LARGE_GRID = [(20000, 200, 0.003, 0.007), (20000, 200, 0.008, 0.012),
              (50000, 100, 0.008, 0.012), (100000, 50, 0.001, 0.003),
              (100000, 50, 0.003, 0.007)]


def models(n_jobs):
    return {
        "forest": lambda s: rotforest.RandomForestClassifier(n_jobs=n_jobs, random_state=s),
        "rotation": lambda s: rotforest.RotationForestClassifier(n_jobs=n_jobs,
                                                                 random_state=s),
        "sk-forest": lambda s: SkForest(n_jobs=n_jobs, random_state=s),
        "tree": lambda s: rotforest.DecisionTreeClassifier(random_state=s),
        "sk-tree": lambda s: SkTree(random_state=s),
    }


def data_sets(quick):
    if quick:
        yield "binary 400 x 1000", wide_families.make("binary", 400, 1000)
        return
    for family, rows, cols in FAMILIES:
        yield f"{family} {rows:,} x {cols:,}", wide_families.make(family, rows, cols)
    for name in SHARED_SETS:
        path = os.path.join(SHARED, name + ".npz")
        if os.path.exists(path):
            with np.load(path) as d:
                yield name, (d["X"], d["y"])


def fastest(make, X, y, repeat):
    """The fastest of ``repeat`` fits (random_state repeat - 1 down to 0), and the model
    of random_state 0 (the last fitted)."""
    seeds = iter(range(repeat - 1, -1, -1))
    return best_time(lambda: make(next(seeds)).fit(X, y), repeat)


def targets(args):
    makers = models(args.n_jobs)
    rows, checks = [], []
    for name, (X, y) in data_sets(args.quick):
        Xa, Xb, ya, yb = train_test_split(X, y, test_size=1 / 3, random_state=0,
                                          stratify=y)
        fit, acc = {}, {}
        for key, make in makers.items():
            fit[key], model = fastest(make, Xa, ya, args.repeat)
            acc[key] = float(np.mean(model.predict(Xb) == yb))
        stored = np.count_nonzero(Xa) / Xa.shape[1]
        rows.append([name, f"{stored:.0f}", f"{fit['forest']:.3f}", f"{fit['rotation']:.3f}",
                     f"{fit['sk-forest']:.3f}",
                     f"{fit['forest'] / fit['sk-forest']:.2f}",
                     f"{fit['rotation'] / fit['sk-forest']:.2f}",
                     f"{100 * (acc['forest'] - acc['sk-forest']):+.2f}",
                     f"{100 * (acc['rotation'] - acc['sk-forest']):+.2f}",
                     f"{fit['tree']:.3f}", f"{fit['sk-tree']:.3f}",
                     f"{fit['tree'] / fit['sk-tree']:.2f}"])
        checks.append((fit["forest"] / fit["sk-forest"], fit["rotation"] / fit["sk-forest"]))
        print(rows[-1], file=sys.stderr, flush=True)
    print(markdown_table(
        ["data set", "entries a column", "RF fit", "rotation fit", "sklearn RF fit",
         "RF / sklearn RF", "rotation / sklearn RF", "RF - sklearn RF accuracy (points)",
         "rotation - sklearn RF accuracy (points)", "tree fit", "sklearn tree fit",
         "tree / sklearn tree"], rows))
    rf = [a for a, _ in checks]
    rot = [b for _, b in checks]
    print(f"\nRF / sklearn RF: largest {max(rf):.2f} (target <= 0.5: "
          f"{'met' if max(rf) <= 0.5 else 'not met'}); rotation / sklearn RF: largest "
          f"{max(rot):.2f}, median {np.median(rot):.2f} (target <= 1.0: "
          f"{'met' if max(rot) <= 1.0 else 'not met'})")


def binary(n, p, lo, hi, seed=0):
    """Binary columns of rates between lo and hi; two classes, a logistic function of 12
    of them."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, p)) < rng.uniform(lo, hi, size=p)).astype(np.float64)
    used = rng.choice(p, min(12, p), replace=False)
    logit = X[:, used] @ rng.normal(0.0, 3.0, used.size)
    logit -= np.median(logit)
    return X, (rng.random(n) < 1.0 / (1.0 + np.exp(-logit))).astype(np.int64)


def sparse_rule(args):
    kinds = {
        "random forest": (lambda s: rotforest.RandomForestClassifier(
            n_jobs=args.n_jobs, random_state=s), _forest),
        "extra trees": (lambda s: rotforest.ExtraTreesClassifier(
            n_jobs=args.n_jobs, random_state=s), _forest),
        "tree": (lambda s: rotforest.DecisionTreeClassifier(random_state=s), _tree),
        "extra tree": (lambda s: rotforest.ExtraTreeClassifier(random_state=s), _tree),
    }
    grid = RULE_GRID[:2] if args.quick else (LARGE_GRID if args.large else RULE_GRID)
    rows = []
    for n, p, lo, hi in grid:
        if args.quick:
            n, p = n // 20, p // 5
        X, y = binary(n, p, lo, hi)
        stored = np.count_nonzero(X)
        cells = [f"{n:,} x {p:,}", f"{stored / p:.0f}", f"{100 * stored / X.size:.2f}%"]
        for make, module in kinds.values():
            times = []
            for entries, share in ((None, 0.0), (np.inf, 1.0)):
                saved = module._SPARSE_ENTRIES, getattr(module, "_SPARSE_SHARE", None)
                module._SPARSE_ENTRIES = entries
                if saved[1] is not None:
                    module._SPARSE_SHARE = share
                try:
                    times.append(fastest(make, X, y, args.repeat)[0])
                finally:
                    module._SPARSE_ENTRIES = saved[0]
                    if saved[1] is not None:
                        module._SPARSE_SHARE = saved[1]
            cells.append(f"{times[1] / times[0]:.2f}")
        rows.append(cells)
        print(cells, file=sys.stderr, flush=True)
    print(markdown_table(["rows x columns", "entries a column", "stored cells"]
                         + [f"{k}: entries / dense" for k in kinds], rows))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sparse-rule", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--large", action="store_true",
                        help="--sparse-rule on 20,000 to 100,000 rows")
    args = parser.parse_args(argv)
    print(header("bench_few_valued.py"))
    print()
    if args.sparse_rule:
        sparse_rule(args)
    else:
        targets(args)


if __name__ == "__main__":
    main()
