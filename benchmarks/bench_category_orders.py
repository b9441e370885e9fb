"""How more than two classes split a categorical feature of many levels: the builder's
three heuristics, by held-out accuracy and fit time.

With two classes (and numeric targets) the levels of a categorical feature are ordered
by class-1 share (mean target) and every cut of that order is scored, which is exact.
With K > 2 classes a node of at most 10 levels searches every partition; beyond that
the private switch ``rotforest._builder._set_category_orders`` picks a heuristic:

``0``  the cuts of K orders, the levels ordered by their share of each class in turn
       (the best cut of all; the default before this measurement)
``1``  the cuts of one order, the levels projected on the first principal axis of
       their class-share vectors, weighted by level weight (Coppersmith, Hong and
       Hosking 1999; the default since)
``2``  both, the best cut of all

Every data set is fitted under the three settings on the same folds
(--repeats x --folds stratified K-fold; the three settings one after the other on each
fold, so that load on the machine falls alike on them) by
``RandomForestClassifier(n_estimators=--n-estimators, n_jobs=1, random_state=seed,
categorical_features=mask)`` and ``DecisionTreeClassifier(random_state=seed,
categorical_features=mask)``.  Each of --seeds draws its own synthetic sets, samples of
the real sets, folds and models: the data sets of every seed count as data sets.
Printed per data set and model: the accuracy under 0, the paired differences 1 - 0 and
2 - 0 in points with Nadeau and Bengio's corrected standard error (variance factor
1/J + n_test/n_train over the J folds; see bench_accuracy.py), the folds whose
predictions were identical to 0's, and the fit time of 1 and 2 over 0 (the sums over
the folds).  Then per family: the mean difference over
its data sets with the standard error of that mean, the data sets better / worse by two
corrected standard errors, and the geometric mean of the fit-time ratios.  The
family's standard error is first that of the data sets' spread, then (in brackets) the
data sets' corrected errors pooled, sqrt(sum SE^2) / n, the more cautious one.

The families (--rows rows each, generated from the seed; a categorical column of L codes,
drawn with uniform or Zipf (exponent 1.1) frequencies, and five numeric columns, three
of them shifted by the class):

``dirichlet``  each level has its own class distribution, drawn from a symmetric
               Dirichlet(0.5): the class structure of the levels is not
               one-dimensional (K in {3, 5, 10} by L in {30, 300, 2000}, and two of
               2000 uniform levels with ``min_category_samples=1``)
``clusters``   the levels fall in K clusters, each favouring one class
               (Dirichlet(0.3 + 4 e_c)); K in {3, 5, 10} by L in {300, 2000}, and
               K=10, L=2000 uniform with ``min_category_samples=1``
``weak``       the level effect is weak: a level's distribution is 90 % a common
               prior and 10 % its own Dirichlet draw; the numeric columns carry the
               signal (K in {3, 5, 10} with L=300, and K=10, L=2000 uniform with
               ``min_category_samples=1``)
``real``       the shared kddcup99_10pct (5 classes, a 66-level column; a stratified
               sample of --real-rows rows) and hypothyroid (4 classes, its categorical
               column has 5 levels: every partition is searched, so it is a control on
               which the three settings must agree); classes with fewer than 10 rows
               merged into the largest (kddcup keeps 4 classes, hypothyroid 3).
               Skipped when /work/shared/datasets (--data) does not hold them.

    python benchmarks/bench_category_orders.py                  # the tables (~9 min)
    python benchmarks/bench_category_orders.py --families dirichlet --seeds 2,3
    python benchmarks/bench_category_orders.py --quick          # seconds
"""
import argparse
import os
import sys
import time

import numpy as np
from sklearn.model_selection import train_test_split

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import corrected_se, splits  # noqa: E402
from common import header, markdown_table  # noqa: E402

from rotforest import DecisionTreeClassifier, RandomForestClassifier  # noqa: E402
from rotforest import _builder  # noqa: E402

SETTINGS = (0, 1, 2)
SHARED = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "shared", "datasets")
# (family, K classes, L levels, frequencies, min_category_samples)
SYNTHETIC = (
    [("dirichlet", K, L, "uniform" if L == 30 or (L == 300 and K == 5) else "zipf", 10)
     for K in (3, 5, 10) for L in (30, 300, 2000)]
    + [("dirichlet", K, 2000, "uniform", 1) for K in (5, 10)]
    + [("clusters", K, L, "zipf", 10) for K in (3, 5, 10) for L in (300, 2000)]
    + [("clusters", 10, 2000, "uniform", 1)]
    + [("weak", K, 300, "zipf", 10) for K in (3, 5, 10)]
    + [("weak", 10, 2000, "uniform", 1)]
)
REAL = (("kddcup99_10pct", 10), ("hypothyroid", 10))
FAMILIES = ("dirichlet", "clusters", "weak", "real")


def synthetic(kind, K, L, freq, n, rng):
    """X (the codes in column 0, five numeric columns), y of one synthetic data set."""
    if freq == "zipf":
        p = 1.0 / np.arange(1, L + 1) ** 1.1
    else:
        p = np.ones(L)
    p = rng.permutation(p / p.sum())
    if kind == "dirichlet":
        share = rng.dirichlet(np.full(K, 0.5), size=L)
    elif kind == "clusters":
        cluster = rng.randint(K, size=L)
        share = np.array([rng.dirichlet(0.3 + 4.0 * (np.arange(K) == c)) for c in cluster])
    elif kind == "weak":
        prior = rng.dirichlet(np.full(K, 5.0))
        share = 0.9 * prior + 0.1 * rng.dirichlet(np.full(K, 0.5), size=L)
    else:
        raise ValueError(kind)
    level = rng.choice(L, size=n, p=p)
    # a class drawn from each row's level distribution (inverse CDF)
    cum = np.cumsum(share[level], axis=1)
    y = np.minimum((cum < rng.uniform(size=(n, 1))).sum(axis=1), K - 1)
    shift = rng.normal(scale=0.6 if kind != "weak" else 1.0, size=(K, 3))
    numeric = rng.normal(size=(n, 5))
    numeric[:, :3] += shift[y]
    X = np.column_stack([level.astype(np.float64), numeric])
    mask = np.zeros(X.shape[1], dtype=bool)
    mask[0] = True
    return X, np.unique(y, return_inverse=True)[1], mask


def real(path, max_rows, seed):
    """X, y, mask of a shared data set: a stratified sample, classes of fewer than 10
    rows merged into the largest."""
    with np.load(path, allow_pickle=False) as d:
        X, y, mask = d["X"].astype(np.float64), d["y"], d["categorical"].astype(bool)
    y = np.unique(y, return_inverse=True)[1]
    if len(y) > max_rows:
        keep, _ = train_test_split(np.arange(len(y)), train_size=max_rows, stratify=y,
                                   random_state=seed)
        X, y = X[np.sort(keep)], y[np.sort(keep)]
    counts = np.bincount(y)
    y = np.where(counts[y] < 10, np.argmax(counts), y)
    return X, np.unique(y, return_inverse=True)[1], mask


def datasets(args, seed):
    """(family, name, X, y, mask, min_category_samples) of one seed, one at a time."""
    rng = np.random.RandomState(seed)
    tag = f" s{seed}" if len(args.seeds) > 1 else ""
    for kind, K, L, freq, mcs in SYNTHETIC:
        if kind not in args.families:
            continue
        X, y, mask = synthetic(kind, K, L, freq, args.rows, rng)
        name = f"{kind} K={K} L={L} {freq}" + (f" mcs={mcs}" if mcs != 10 else "") + tag
        yield kind, name, X, y, mask, mcs
    for name, mcs in REAL if "real" in args.families else ():
        path = os.path.join(args.data, name + ".npz")
        if not os.path.exists(path):
            print(f"({name}: not in {args.data}, skipped)", flush=True)
            continue
        X, y, mask = real(path, args.real_rows, seed)
        yield "real", name + tag, X, y, mask, mcs


def makers(mask, mcs, args, seed):
    return {
        "forest": lambda: RandomForestClassifier(
            n_estimators=args.n_estimators, n_jobs=1, random_state=seed,
            categorical_features=mask, min_category_samples=mcs),
        "tree": lambda: DecisionTreeClassifier(
            random_state=seed, categorical_features=mask, min_category_samples=mcs),
    }


def evaluate(X, y, mask, mcs, args, seed):
    """model -> dict(score=(settings x folds), fit=(settings x folds),
    same=(settings x folds) predictions equal to setting 0's), and the fold sizes."""
    parts = splits(y, args.folds, args.repeats, seed)
    out = {}
    for model, make in makers(mask, mcs, args, seed).items():
        J = len(parts)
        score, fit, same = np.zeros((3, J)), np.zeros((3, J)), np.zeros((3, J), bool)
        for j, (train, test) in enumerate(parts):
            first = None
            for s in SETTINGS:
                previous = _builder._set_category_orders(s)
                try:
                    est = make()
                    t = time.perf_counter()
                    est.fit(X[train], y[train])
                    fit[s, j] = time.perf_counter() - t
                finally:
                    _builder._set_category_orders(previous)
                p = est.predict(X[test])
                score[s, j] = np.mean(p == y[test])
                first = p if s == 0 else first
                same[s, j] = np.array_equal(p, first)
        out[model] = dict(score=score, fit=fit, same=same)
    n_train = float(np.mean([len(a) for a, _ in parts]))
    n_test = float(np.mean([len(b) for _, b in parts]))
    return out, n_train, n_test


def diff(res, s, n_train, n_test):
    """Mean and corrected SE of setting s minus setting 0, in points."""
    d = res["score"][s] - res["score"][0]
    return 100 * d.mean(), 100 * corrected_se(d, n_train, n_test)


def ratio(res, s):
    return res["fit"][s].sum() / res["fit"][0].sum()


def fmt(mean, se):
    return f"{mean:+.2f} ± {se:.2f}"


def tables(results, model):
    """The per-data-set table and the per-family table of one model."""
    rows = []
    for family, name, shape, K, res, n_train, n_test in results:
        r = res[model]
        J = r["score"].shape[1]
        rows.append([name, f"{shape[0]} x {shape[1]}", K,
                     f"{100 * r['score'][0].mean():.2f}",
                     fmt(*diff(r, 1, n_train, n_test)), fmt(*diff(r, 2, n_train, n_test)),
                     f"{r['same'][1].sum()}/{r['same'][2].sum()} of {J}",
                     f"{ratio(r, 1):.2f}", f"{ratio(r, 2):.2f}"])
    per_set = markdown_table(
        ["data set", "rows x cols", "K", "acc 0 (%)", "1 - 0 (points)", "2 - 0 (points)",
         "folds same as 0 (1/2)", "fit 1/0", "fit 2/0"], rows, align="lrrrrrrrr")
    rows = []
    for family in FAMILIES:
        members = [x for x in results if x[0] == family]
        if not members:
            continue
        cells = [family, len(members)]
        for s in (1, 2):
            d = np.array([diff(x[4][model], s, x[5], x[6]) for x in members])
            se = d[:, 0].std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.nan
            pooled = np.sqrt(np.sum(d[:, 1] ** 2)) / len(d)
            cells += [fmt(d[:, 0].mean(), se) + f" ({pooled:.2f})",
                      f"{int(np.sum(d[:, 0] > 2 * d[:, 1]))} / "
                      f"{int(np.sum(d[:, 0] < -2 * d[:, 1]))}"]
        for s in (1, 2):
            cells.append(f"{np.exp(np.mean([np.log(ratio(x[4][model], s)) for x in members])):.2f}")
        rows.append(cells)
    per_family = markdown_table(
        ["family", "sets", "1 - 0 (points)", "1 better / worse", "2 - 0 (points)",
         "2 better / worse", "fit 1/0", "fit 2/0"], rows, align="lrrrrrrr")
    return per_set, per_family


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=SHARED)
    parser.add_argument("--rows", type=int, default=15_000)
    parser.add_argument("--real-rows", type=int, default=20_000)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-estimators", type=int, default=50)
    parser.add_argument("--seeds", default="0,1",
                        help="comma-separated: each seed draws its own synthetic sets, "
                             "real samples, folds and models")
    parser.add_argument("--families", default=",".join(FAMILIES),
                        help="comma-separated among " + ", ".join(FAMILIES))
    parser.add_argument("--quick", action="store_true",
                        help="2,000 rows (real: 3,000), 2 x 3-fold, 10 trees, seed 0")
    args = parser.parse_args(argv)
    args.seeds = [int(s) for s in args.seeds.split(",")]
    args.families = args.families.split(",")
    if args.quick:
        args.rows, args.real_rows, args.repeats, args.n_estimators = 2000, 3000, 2, 10
        args.seeds = [0]
    print(header("bench_category_orders.py"))
    print(f"# {args.repeats} x {args.folds}-fold, {args.rows} rows a synthetic set, "
          f"{args.real_rows} a real one, forest of {args.n_estimators} trees, n_jobs=1, "
          f"seeds {','.join(map(str, args.seeds))}", flush=True)
    results = []
    for family, name, X, y, mask, mcs, seed in ((*d, seed) for seed in args.seeds
                                                for d in datasets(args, seed)):
        start = time.perf_counter()
        res, n_train, n_test = evaluate(X, y, mask, mcs, args, seed)
        K = len(np.unique(y))
        results.append((family, name, X.shape, K, res, n_train, n_test))
        print(f"{name}: {X.shape}, K={K}, " + ", ".join(
            f"{m} {100 * r['score'][0].mean():.2f} / {fmt(*diff(r, 1, n_train, n_test))} / "
            f"{fmt(*diff(r, 2, n_train, n_test))}" for m, r in res.items())
            + f" ({time.perf_counter() - start:.0f} s)", flush=True)
    for model, title in (("forest", f"RandomForestClassifier ({args.n_estimators} trees)"),
                         ("tree", "DecisionTreeClassifier")):
        per_set, per_family = tables(results, model)
        print(f"\n## {title}\n\n{per_set}\n\n{per_family}")
    return results


if __name__ == "__main__":
    main()
