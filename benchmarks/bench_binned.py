"""The binned builder (``max_bins``) against the exact one: where each is faster, and
what binning costs in accuracy.

``--crossover``: fit times of the random forests grown exact (``max_bins=None``) and
binned (``max_bins=255``) on ``make_classification`` / ``make_regression`` data of
``--features`` features, at each of ``--rows``, side by side in this process (the best of
``--repeats``), with their ratio: the evidence for the rows from which ``"auto"`` bins.

``--accuracy``: repeated stratified K-fold (``bench_accuracy.cross_validate_models``:
the same folds for every model, paired differences with Nadeau and Bengio's corrected
standard errors) of the exact forest against the binned ones (255 bins, and 32), on the
shared classification and regression sets (``../shared``, skipped when absent) and on
synthetic families for the kinds of data a user may hold: fine periodic structure in one
continuous feature (where bins are coarser than the signal), a threshold at a rare
value, counts, few-valued columns, sparse signal among noise, and a smooth regression.

``--inside``: the search for cuts inside bins (classification, see _hist.pyx): held-out
accuracy and fit time of the exact forest and of binned ones without that search, with
the default tolerances (``_hist.INSIDE_TOL``, ``INSIDE_ABS``) and with none (every bin
that might hold a better cut searched), on the fine periodic family (with 5% of the
labels flipped) and on ``make_classification`` at ``--inside-rows`` (the second with
``--depth``), ``--trees`` trees, the mean over ``--repeats`` seeds.

    python benchmarks/bench_binned.py --crossover
    python benchmarks/bench_binned.py --accuracy --folds 3 --repeats 2
``--monotonic``: random forests with ``monotonic_cst`` (on the two features most
correlated with the target, in the sign of their correlation), grown exact and binned
on ``make_classification`` / ``make_regression`` at ``--monotonic-rows``: fit time,
held-out accuracy (R^2 for regression) and the steps against a constraint in sweeps of
the constrained features through 200 held-out rows (0: every tree keeps them).

``--categorical``: random forests on five categorical features (3 to 200 categories,
few of them frequent, split on sets) beside 15 numeric ones, grown exact and binned at
each of ``--categorical-rows``: fit time and held-out accuracy (R^2 for regression).

    python benchmarks/bench_binned.py --inside --trees 20 --repeats 3 --depth 12
    python benchmarks/bench_binned.py --monotonic --trees 20 --depth 12
``--poisson``: random regression forests with ``criterion="poisson"`` on counts (the
floor of exp of a standardised ``make_regression`` target, 20 features) at each of
``--poisson-rows``, grown exact and binned: fit time, held-out R^2 and mean Poisson
deviance.

``--outputs``: random forests on several outputs at each of ``--outputs-rows``: three
targets of ``make_regression`` (20 features), and two labels of
``make_multilabel_classification`` (20 features, 5 labels drawn, the first two kept),
grown exact and binned: fit time, held-out R^2 (subset accuracy for the labels).

``--wide``: the rule of ``"auto"`` for data of more than 64 features (whose records
carry their rows, not their codes): fit times of the two builders on
``make_classification`` (20 informative features) of each of ``--wide-features``
widths at each of ``--wide-rows`` (up to 300 million cells), and what ``"auto"`` picks.

    python benchmarks/bench_binned.py --categorical --trees 20 --depth 12
    python benchmarks/bench_binned.py --poisson --trees 20 --depth 12
    python benchmarks/bench_binned.py --outputs --trees 20 --depth 12
    python benchmarks/bench_binned.py --wide --trees 20 --depth 12
``--threads``: trees grown as forks (see _hist_forks.pxi) at each of ``--threads-rows``
of ``make_classification`` (20 features): a forest of one tree with n_jobs=2, its
subtrees in one thread (forks off) and in two, and ten trees with n_jobs=1, forks off
and on (what forking costs where no thread is spare); fit times, the best of
``--repeats``.

    python benchmarks/bench_binned.py --threads --depth 12

``--tree``: single trees (``DecisionTreeClassifier`` / ``DecisionTreeRegressor``, exact
by default) exact and with ``max_bins=255`` at each of ``--tree-rows`` of
``make_classification`` / ``make_regression`` (20 features), at ``--depth`` and at full
depth: fit times (the best of ``--repeats``), their ratio, and held-out accuracy (R^2)
on 100,000 rows: the evidence for the single trees' default.

    python benchmarks/bench_binned.py --tree --depth 12

``--rotation``: rotation forests (``--trees`` trees of full depth, n_jobs=2; each tree
bins its own axes) exact and with ``max_bins=255`` at each of ``--rotation-rows`` of
``make_classification`` (20 features): fit times (the best of ``--repeats``), their
ratio, held-out accuracy on 100,000 rows.

    python benchmarks/bench_binned.py --rotation --trees 10 --repeats 1
    python benchmarks/bench_binned.py --quick           # small, for the tests
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import cross_validate_models, paired  # noqa: E402
from common import header, iter_folder, markdown_table  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(REPO), "shared")


def forest(regression, max_bins, trees, n_jobs=2, **params):
    """A factory of our random forest with ``max_bins``."""
    from rotforest import RandomForestClassifier, RandomForestRegressor
    cls = RandomForestRegressor if regression else RandomForestClassifier
    return lambda: cls(n_estimators=trees, max_bins=max_bins, n_jobs=n_jobs,
                       random_state=0, **params)


def crossover(args):
    from sklearn.datasets import make_classification, make_regression
    rows_out = []
    for task in args.tasks:
        regression = task == "regression"
        for rows in args.rows:
            if regression:
                X, y = make_regression(rows, args.features, n_informative=10, noise=10.0,
                                       random_state=0)
            else:
                X, y = make_classification(rows, args.features, random_state=0)
            times = {}
            for key, bins in (("exact", None), ("binned", 255)):
                make = forest(regression, bins, args.trees, max_depth=args.depth)
                best = np.inf
                for _ in range(args.repeats):
                    model = make()
                    start = time.perf_counter()
                    model.fit(X, y)
                    best = min(best, time.perf_counter() - start)
                times[key] = best
            rows_out.append([task, f"{rows:,}", f"{times['exact']:.2f} s",
                             f"{times['binned']:.2f} s",
                             f"{times['binned'] / times['exact']:.2f}"])
            print(rows_out[-1], file=sys.stderr, flush=True)
    depth = "full depth" if args.depth is None else f"depth {args.depth}"
    print(f"{args.features} features, {args.trees} trees of {depth}, n_jobs=2, best of "
          f"{args.repeats}\n")
    print(markdown_table(["task", "rows", "exact", "binned (255)", "binned / exact"],
                         rows_out))


def _exact_and_binned(make, X, y, fit, test, repeats):
    """``make(None)`` and ``make(255)`` fitted on the rows ``fit``, the best of
    ``repeats`` fits each: their times and held-out scores on ``test``, and the ratio
    of the times (binned over exact), as table cells."""
    cells, times = [], []
    for bins in (None, 255):
        best, model = np.inf, None
        for _ in range(repeats):
            model = make(bins)
            start = time.perf_counter()
            model.fit(X[fit], y[fit])
            best = min(best, time.perf_counter() - start)
        times.append(best)
        cells += [f"{best:.2f} s", f"{model.score(X[test], y[test]):.4f}"]
    return cells + [f"{times[1] / times[0]:.2f}"]


def single_tree(args):
    from sklearn.datasets import make_classification, make_regression

    from rotforest import DecisionTreeClassifier, DecisionTreeRegressor
    held = 600 if args.quick else 100_000
    rows_out = []
    for task in args.tasks:
        regression = task == "regression"
        cls = DecisionTreeRegressor if regression else DecisionTreeClassifier
        for rows in args.tree_rows:
            if regression:
                X, y = make_regression(rows + held, args.features, n_informative=10,
                                       noise=10.0, random_state=0)
            else:
                X, y = make_classification(rows + held, args.features, random_state=0)
            fit, test = slice(0, rows), slice(rows, None)
            for depth in ([None] if args.depth is None else [args.depth, None]):
                cells = [task, f"{rows:,}", "full" if depth is None else str(depth)]
                cells += _exact_and_binned(
                    lambda bins: cls(max_depth=depth, max_bins=bins, random_state=0),
                    X, y, fit, test, args.repeats)
                rows_out.append(cells)
                print(cells, file=sys.stderr, flush=True)
    print(f"\n{args.features} features, one tree, the best of {args.repeats} fits; "
          f"held-out score on {held:,} rows (accuracy, R^2)\n")
    print(markdown_table(["task", "rows", "depth", "exact fit", "exact score",
                          "binned (255) fit", "binned score", "binned / exact"],
                         rows_out))


def rotation(args):
    from sklearn.datasets import make_classification

    from rotforest import RotationForestClassifier
    held = 600 if args.quick else 100_000
    rows_out = []
    for rows in args.rotation_rows:
        X, y = make_classification(rows + held, args.features, random_state=0)
        fit, test = slice(0, rows), slice(rows, None)
        cells = [f"{rows:,}"] + _exact_and_binned(
            lambda bins: RotationForestClassifier(n_estimators=args.trees, max_bins=bins,
                                                  n_jobs=2, random_state=0),
            X, y, fit, test, args.repeats)
        rows_out.append(cells)
        print(cells, file=sys.stderr, flush=True)
    print(f"\n{args.features} features, {args.trees} trees of full depth, n_jobs=2, the "
          f"best of {args.repeats}; held-out accuracy on {held:,} rows\n")
    print(markdown_table(["rows", "exact fit", "exact accuracy", "binned (255) fit",
                          "binned accuracy", "binned / exact"], rows_out))


def inside(args):
    from sklearn.datasets import make_classification

    from rotforest import _hist
    rows = args.inside_rows
    rng = np.random.default_rng(0)
    u = rng.random((rows[0] + 50_000, 6))
    y = (np.sin(2 * np.pi * 60 * u[:, 0]) > 0).astype(int)
    flip = rng.random(len(y)) < 0.05
    y[flip] = 1 - y[flip]
    sets = [("fine-periodic", rows[0], None, u, y)]
    Xc, yc = make_classification(rows[-1] + 50_000, 20, random_state=0)
    sets.append(("make_classification", rows[-1], args.depth, Xc, yc))
    variants = [("exact (max_bins=None)", None, None),
                ("binned, no search inside bins", 1e300, 0.0),
                ("binned, default tolerances", _hist.INSIDE_TOL, _hist.INSIDE_ABS),
                ("binned, every bin searched", 0.0, 0.0)]
    defaults = _hist.INSIDE_TOL, _hist.INSIDE_ABS
    table = []
    try:
        for name, n, depth, X, y in sets:
            X_train, y_train, X_test, y_test = X[:n], y[:n], X[n:], y[n:]
            base = None
            for label, tol, tol_abs in variants:
                if tol is not None:
                    _hist.INSIDE_TOL, _hist.INSIDE_ABS = tol, tol_abs
                accs, times = [], []
                for seed in range(args.repeats):
                    model = forest(False, None if tol is None else 255, args.trees,
                                   max_depth=depth)()
                    model.set_params(random_state=seed)
                    start = time.perf_counter()
                    model.fit(X_train, y_train)
                    times.append(time.perf_counter() - start)
                    accs.append(float(np.mean(model.predict(X_test) == y_test)))
                base = np.mean(times) if base is None else base
                table.append([name, f"{n:,}", label, f"{np.mean(accs):.4f}",
                              f"{np.mean(times):.2f} s",
                              f"{np.mean(times) / base:.2f}"])
                print(table[-1], file=sys.stderr, flush=True)
    finally:
        _hist.INSIDE_TOL, _hist.INSIDE_ABS = defaults
    print(f"{args.trees} trees, n_jobs=2, 50,000 held out, mean of {args.repeats} seeds; "
          f"make_classification of 20 features, depth {args.depth}\n")
    print(markdown_table(["data", "rows", "forest", "accuracy", "fit", "fit / exact"],
                         table))


def monotonic(args):
    from sklearn.datasets import make_classification, make_regression
    table = []
    n = args.monotonic_rows
    for task in args.tasks:
        regression = task == "regression"
        if regression:
            X, y = make_regression(n + 50_000, args.features, n_informative=10,
                                   noise=10.0, random_state=0)
        else:
            X, y = make_classification(n + 50_000, args.features, random_state=0)
        X_train, y_train, X_test, y_test = X[:n], y[:n], X[n:], y[n:]
        corr = np.array([np.corrcoef(X_train[:5000, j], y_train[:5000])[0, 1]
                         for j in range(X.shape[1])])
        top = np.argsort(-np.abs(corr))[:2]
        cst = np.zeros(X.shape[1], dtype=int)
        cst[top] = np.sign(corr[top]).astype(int)
        base = None
        for label, bins in (("exact (max_bins=None)", None), ("binned (255)", 255)):
            model = forest(regression, bins, args.trees, max_depth=args.depth,
                           monotonic_cst=cst)()
            start = time.perf_counter()
            model.fit(X_train, y_train)
            took = time.perf_counter() - start
            base = took if base is None else base
            score = model.score(X_test, y_test)
            grid = np.linspace(-3, 3, 41)
            against = 0
            for f in top:
                sweep = np.repeat(X_test[:200], grid.size, axis=0)
                sweep[:, f] = np.tile(grid, 200)
                out = (model.predict(sweep) if regression
                       else model.predict_proba(sweep)[:, 1])
                steps = np.diff(out.reshape(200, grid.size), axis=1) * cst[f]
                against += int(np.sum(steps < -1e-12))
            table.append([task, f"{n:,}", label, f"{took:.2f} s", f"{took / base:.2f}",
                          f"{score:.4f}", str(against)])
            print(table[-1], file=sys.stderr, flush=True)
    depth = "full depth" if args.depth is None else f"depth {args.depth}"
    print(f"{args.features} features, {args.trees} trees of {depth}, n_jobs=2, 50,000 "
          "held out; monotonic_cst on the two features most correlated with the target\n")
    print(markdown_table(["task", "rows", "forest", "fit", "fit / exact",
                          "held-out score", "steps against"], table))


def both_builders(regression, args, X, y, n, **params):
    """The exact and the binned forest fitted on the first n rows of (X, y), in turn:
    ``(label, model, fit seconds, fit / the exact fit)`` for each."""
    base = None
    for label, bins in (("exact (max_bins=None)", None), ("binned (255)", 255)):
        model = forest(regression, bins, args.trees, max_depth=args.depth, **params)()
        start = time.perf_counter()
        model.fit(X[:n], y[:n])
        took = time.perf_counter() - start
        base = took if base is None else base
        yield label, model, took, took / base


def categorical_data(n, regression, seed=0):
    """Five categorical features (3, 8, 20, 60 and 200 categories, Zipf-distributed
    codes) whose categories shift the target, beside 15 normal features."""
    rng = np.random.default_rng(seed)
    cats = np.column_stack([rng.zipf(1.5, n) % k for k in (3, 8, 20, 60, 200)])
    num = rng.normal(size=(n, 15))
    effect = rng.normal(size=256)
    signal = (effect[cats].sum(axis=1) + num[:, 0] - 0.5 * num[:, 1]
              + 0.3 * num[:, 2] * num[:, 3] + rng.normal(size=n))
    y = signal if regression else (signal > np.median(signal)).astype(int)
    return np.hstack([cats.astype(float), num]), y


def categorical(args):
    table = []
    for task in args.tasks:
        regression = task == "regression"
        for n in args.categorical_rows:
            X, y = categorical_data(n + n // 4, regression)
            for label, model, took, ratio in both_builders(
                    regression, args, X, y, n, categorical_features=list(range(5))):
                table.append([task, f"{n:,}", label, f"{took:.2f} s", f"{ratio:.2f}",
                              f"{model.score(X[n:], y[n:]):.4f}"])
                print(table[-1], file=sys.stderr, flush=True)
    depth = "full depth" if args.depth is None else f"depth {args.depth}"
    print(f"5 categorical features (3-200 categories) and 15 numeric, {args.trees} trees "
          f"of {depth}, n_jobs=2, a quarter of the rows again held out\n")
    print(markdown_table(["task", "rows", "forest", "fit", "fit / exact",
                          "held-out score"], table))


def poisson(args):
    from sklearn.datasets import make_regression
    from sklearn.metrics import mean_poisson_deviance
    table = []
    for n in args.poisson_rows:
        X, y = make_regression(n + n // 4, 20, n_informative=10, noise=10.0,
                               random_state=0)
        y = np.floor(np.exp((y - y.mean()) / y.std()))
        for label, model, took, ratio in both_builders(True, args, X, y, n,
                                                       criterion="poisson"):
            pred = np.maximum(model.predict(X[n:]), 1e-12)
            table.append(["poisson", f"{n:,}", label, f"{took:.2f} s", f"{ratio:.2f}",
                          f"{model.score(X[n:], y[n:]):.4f}",
                          f"{mean_poisson_deviance(y[n:], pred):.4f}"])
            print(table[-1], file=sys.stderr, flush=True)
    depth = "full depth" if args.depth is None else f"depth {args.depth}"
    print(f"counts from make_regression (20 features), {args.trees} trees of {depth}, "
          "n_jobs=2, a quarter of the rows again held out\n")
    print(markdown_table(["criterion", "rows", "forest", "fit", "fit / exact",
                          "held-out R^2", "Poisson deviance"], table))


def outputs(args):
    from sklearn.datasets import make_multilabel_classification, make_regression
    table = []
    for task in args.tasks:
        regression = task == "regression"
        for n in args.outputs_rows:
            if regression:
                X, y = make_regression(n + n // 4, 20, n_informative=10, n_targets=3,
                                       noise=10.0, random_state=0)
            else:
                X, y = make_multilabel_classification(n + n // 4, 20, n_classes=5,
                                                      random_state=0)
                X = X + np.random.default_rng(0).normal(scale=0.5, size=X.shape)
                y = y[:, :2]
            for label, model, took, ratio in both_builders(regression, args, X, y, n):
                table.append([f"{task}, {y.shape[1]} outputs", f"{n:,}", label,
                              f"{took:.2f} s", f"{ratio:.2f}",
                              f"{model.score(X[n:], y[n:]):.4f}"])
                print(table[-1], file=sys.stderr, flush=True)
    depth = "full depth" if args.depth is None else f"depth {args.depth}"
    print(f"{args.trees} trees of {depth}, n_jobs=2, a quarter of the rows again held "
          "out\n")
    print(markdown_table(["task", "rows", "forest", "fit", "fit / exact",
                          "held-out score"], table))


def wide(args):
    from sklearn.datasets import make_classification
    from rotforest import RandomForestClassifier
    from rotforest._bins import resolve_max_bins
    table = []
    for p in args.wide_features:
        for n in args.wide_rows:
            if n * p > 300_000_000:
                continue
            X, y = make_classification(n, p, n_informative=min(20, p // 2),
                                       random_state=0)
            times = {}
            for key, bins in (("exact", None), ("binned", 255)):
                model = forest(False, bins, args.trees, max_depth=args.depth)()
                start = time.perf_counter()
                model.fit(X, y)
                times[key] = time.perf_counter() - start
            auto = resolve_max_bins(RandomForestClassifier(), X, 1, 2)
            table.append([str(p), f"{n:,}", f"{times['exact']:.2f} s",
                          f"{times['binned']:.2f} s",
                          f"{times['binned'] / times['exact']:.2f}",
                          "binned" if auto else "exact"])
            print(table[-1], file=sys.stderr, flush=True)
    depth = "full depth" if args.depth is None else f"depth {args.depth}"
    print(f"make_classification, {args.trees} trees of {depth}, n_jobs=2\n")
    print(markdown_table(["features", "rows", "exact", "binned (255)", "binned / exact",
                          '"auto" picks'], table))


def threads(args):
    from sklearn.datasets import make_classification
    from rotforest import tree
    fork_rows = tree._FORK_ROWS
    table = []
    for n in args.threads_rows:
        X, y = make_classification(n, 20, n_informative=10, random_state=0)
        times = {}
        for key, trees, n_jobs, rows in (("one, off", 1, 2, 0),
                                         ("one, on", 1, 2, fork_rows),
                                         ("ten, off", 10, 1, 0),
                                         ("ten, on", 10, 1, fork_rows)):
            tree._FORK_ROWS = rows
            best = np.inf
            for _ in range(args.repeats):
                model = forest(False, 255, trees, n_jobs=n_jobs, max_depth=args.depth)()
                start = time.perf_counter()
                model.fit(X, y)
                best = min(best, time.perf_counter() - start)
            times[key] = best
        tree._FORK_ROWS = fork_rows
        table.append([f"{n:,}", f"{times['one, off']:.2f} s", f"{times['one, on']:.2f} s",
                      f"{times['one, on'] / times['one, off']:.2f}",
                      f"{times['ten, off']:.2f} s", f"{times['ten, on']:.2f} s",
                      f"{times['ten, on'] / times['ten, off']:.2f}"])
        print(table[-1], file=sys.stderr, flush=True)
    depth = "full depth" if args.depth is None else f"depth {args.depth}"
    print(f"make_classification x 20, trees of {depth}, max_bins=255, best of "
          f"{args.repeats}\n")
    print(markdown_table(["rows", "1 tree, n_jobs=2: forks off", "forks in 2 threads",
                          "ratio", "10 trees, n_jobs=1: forks off", "forks on", "ratio"],
                         table))


# ------------------------------------------------------------------ synthetic families


def families(n, seed=0):
    """name -> (X, y, task): the synthetic kinds of data the accuracy study covers."""
    rng = np.random.default_rng(seed)
    out = {}
    u = rng.random((n, 6))
    # fine periodic structure: the class flips every 1/120 of one feature's range
    out["fine-periodic"] = (u, (np.sin(2 * np.pi * 60 * u[:, 0]) > 0).astype(int),
                            "classification")
    # a threshold at a rare value of a long-tailed feature (beyond the 99.7th percentile)
    x = rng.lognormal(size=(n, 5))
    cut = np.quantile(x[:, 0], 0.997)
    flip = rng.random(n) < 0.05
    out["rare-threshold"] = (x, ((x[:, 0] > cut) ^ flip).astype(int), "classification")
    # counts: Poisson features, the class by a count sum
    c = rng.poisson(3.0, (n, 20)).astype(float)
    out["counts"] = (c, (c[:, :4].sum(axis=1) + rng.normal(0, 2, n) > 12).astype(int),
                     "classification")
    # few-valued columns (five levels), interaction
    f = rng.integers(0, 5, (n, 30)).astype(float)
    out["few-valued"] = (f, ((f[:, 0] - 2) * (f[:, 1] - 2) + rng.normal(0, 1, n) > 0)
                         .astype(int), "classification")
    # sparse signal among noise: 5 informative of 200
    s = rng.normal(size=(n, 200))
    out["sparse-signal"] = (s, (s[:, :5].sum(axis=1) + rng.normal(0, 1, n) > 0)
                            .astype(int), "classification")
    # smooth regression (Friedman #1)
    from sklearn.datasets import make_friedman1
    Xf, yf = make_friedman1(n, 10, noise=1.0, random_state=seed)
    out["friedman1"] = (Xf, yf, "regression")
    return out


def shared_sets(kind, max_rows):
    folder = os.path.join(SHARED, kind)
    if not os.path.isdir(folder):
        return {}
    out = {}
    rng = np.random.default_rng(0)
    for name, X, y in iter_folder(folder):
        if len(y) > max_rows:
            keep = np.sort(rng.choice(len(y), max_rows, replace=False))
            X, y = X[keep], y[keep]
        out[name] = (X, y)
    return out


def shared_groups(max_rows):
    """The shared classification and regression sets (empty where absent)."""
    return [("shared classification",
             {k: (X, y, "classification")
              for k, (X, y) in shared_sets("datasets", max_rows).items()}),
            ("shared regression",
             {k: (X, y, "regression")
              for k, (X, y) in shared_sets("datasets_regression", max_rows).items()})]


def accuracy(args):
    keys = ("exact", "binned-255", "binned-32")
    bins = {"exact": None, "binned-255": 255, "binned-32": 32}
    groups = [("synthetic", {k: v for k, v in families(args.synthetic_rows).items()})]
    if args.quick:      # (the tests: the synthetic families only)
        groups = [("synthetic", dict(list(groups[0][1].items())[:2]))]
    else:
        groups += shared_groups(args.max_rows)
    for title, sets in groups:
        if not sets:
            print(f"\n({title}: not found, skipped)")
            continue
        rows = []
        diffs = {k: [] for k in keys[1:]}
        for name, (X, y, task) in sets.items():
            regression = task == "regression"
            models = {k: forest(regression, bins[k], args.trees) for k in keys}
            result = cross_validate_models({name: (X, y)}, models, folds=args.folds,
                                           repeats=args.repeats, task=task)[name]
            cells = [name, f"{len(y):,} x {X.shape[1]}",
                     f"{result['score']['exact'].mean():.4f}"]
            for k in keys[1:]:
                _, mean, se = paired(result, k, "exact")
                diffs[k].append((mean, se))
                mark = " *" if abs(mean) > 2 * se else ""
                cells.append(f"{100 * mean:+.2f} ± {100 * se:.2f}{mark}")
            ratio = result["fit"]["binned-255"].sum() / result["fit"]["exact"].sum()
            cells.append(f"{ratio:.2f}")
            rows.append(cells)
            print(cells, file=sys.stderr, flush=True)
        summary = []
        for k in keys[1:]:
            means = np.array([m for m, _ in diffs[k]])
            worse = sum(m < -2 * se for m, se in diffs[k])
            better = sum(m > 2 * se for m, se in diffs[k])
            summary.append(f"{100 * means.mean():+.2f} (worse {worse}, better {better})")
        rows.append([f"mean over {len(rows)}", "", "", *summary, ""])
        score = "accuracy" if "regression" not in title else "R^2"
        print(f"\n{title}: {score} of the exact forest, and the binned ones' paired "
              f"differences (points; * beyond 2 corrected SE), {args.trees} trees, "
              f"{args.folds}-fold x {args.repeats}\n")
        print(markdown_table(["data set", "rows x features", "exact",
                              "binned 255 - exact", "binned 32 - exact",
                              "fit binned 255 / exact"], rows))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crossover", action="store_true")
    parser.add_argument("--accuracy", action="store_true")
    parser.add_argument("--rows", type=int, nargs="+",
                        default=[50_000, 100_000, 200_000, 400_000, 1_000_000])
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--tasks", nargs="+", default=["classification", "regression"])
    parser.add_argument("--trees", type=int, default=50)
    parser.add_argument("--depth", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--max-rows", type=int, default=5000)
    parser.add_argument("--synthetic-rows", type=int, default=4000)
    parser.add_argument("--inside", action="store_true")
    parser.add_argument("--inside-rows", type=int, nargs=2, default=[200_000, 1_000_000],
                        help="rows of the fine periodic family, of make_classification")
    parser.add_argument("--monotonic", action="store_true")
    parser.add_argument("--monotonic-rows", type=int, default=1_000_000)
    parser.add_argument("--categorical", action="store_true")
    parser.add_argument("--categorical-rows", type=int, nargs="+",
                        default=[250_000, 1_000_000])
    parser.add_argument("--poisson", action="store_true")
    parser.add_argument("--poisson-rows", type=int, nargs="+",
                        default=[250_000, 1_000_000])
    parser.add_argument("--outputs", action="store_true")
    parser.add_argument("--outputs-rows", type=int, nargs="+",
                        default=[250_000, 1_000_000])
    parser.add_argument("--wide", action="store_true")
    parser.add_argument("--wide-features", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--wide-rows", type=int, nargs="+",
                        default=[200_000, 1_000_000])
    parser.add_argument("--threads", action="store_true")
    parser.add_argument("--threads-rows", type=int, nargs="+",
                        default=[1_000_000, 4_000_000])
    parser.add_argument("--rotation", action="store_true")
    parser.add_argument("--rotation-rows", type=int, nargs="+",
                        default=[200_000, 1_000_000])
    parser.add_argument("--tree", action="store_true")
    parser.add_argument("--tree-rows", type=int, nargs="+",
                        default=[200_000, 1_000_000, 4_000_000])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.crossover = args.accuracy = args.inside = args.monotonic = True
        args.categorical = args.poisson = args.outputs = args.wide = args.threads = True
        args.tree, args.tree_rows = True, [600]
        args.rotation, args.rotation_rows = True, [600]
        args.threads_rows = [600]
        args.wide_features, args.wide_rows = [70], [600]
        args.categorical_rows = args.poisson_rows = args.outputs_rows = [600]
        args.rows, args.trees, args.repeats, args.folds = [600], 3, 1, 2
        args.max_rows, args.synthetic_rows = 300, 300
        args.inside_rows = [600, 600]
        args.monotonic_rows = 600
    print(header("bench_binned.py"))
    from rotforest import tree
    fork_rows = tree._FORK_ROWS
    if args.quick:
        tree._FORK_ROWS = 100           # (forks on the small data too)
    try:
        for part in (crossover, accuracy, inside, monotonic, categorical, poisson,
                     outputs, wide, threads, single_tree, rotation):
            if getattr(args, part.__name__.replace("single_", "")):
                part(args)
    finally:
        tree._FORK_ROWS = fork_rows


if __name__ == "__main__":
    main()
