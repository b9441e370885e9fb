"""Time rotforest.explain against shap's TreeExplainer on scikit-learn's forest, side by side.

Part 1 (always): make_classification, 6,000 rows x 20 features, both random forests of
``--n-estimators`` (100) full-depth trees.  Path-dependent SHAP values of 400 rows
(``explain(forest, X, n_jobs=2)`` against ``shap.TreeExplainer(sk_forest).shap_values``,
the explainer's construction included), and interventional values of 100 rows against
100 background rows (shap's ``feature_perturbation="interventional"``).  A regression
forest on make_regression the same way.  Best of ``--repeat`` runs; ratios ours / shap
(below 1 is faster).  Also the largest additivity error of each (|sum of values + base
value - prediction|).

Part 2 (with ``--data FOLDER``, e.g. ../shared/datasets): every NAME.npz (X, y) with at
most ``--max-features`` features, sampled to ``--max-rows`` rows; both forests fitted on
it, path-dependent values of ``--explain-rows`` rows timed the same way.

Part 3 (always): our rotation forest (no other tool explains one in its original
features): path-dependent and interventional times on the Part 1 data.

    python benchmarks/bench_explain.py
    python benchmarks/bench_explain.py --data ../shared/datasets --max-rows 3000
    python benchmarks/bench_explain.py --quick        # a smoke run on small data
"""
import argparse
import glob
import os
import sys
from datetime import date
import warnings

import numpy as np
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import RandomForestClassifier as SkForestClassifier
from sklearn.ensemble import RandomForestRegressor as SkForestRegressor

from rotforest import (RandomForestClassifier, RandomForestRegressor,
                       RotationForestClassifier, explain)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import best_time, machine_description, versions  # noqa: E402


def _output(model, X):
    return model.predict_proba(X) if hasattr(model, "classes_") else model.predict(X)[:, None]


def _additivity(values, base, model, X):
    values = values if values.ndim == 3 else values[:, :, None]
    base = np.asarray(base, dtype=np.float64)
    if base.ndim == 1 and values.shape[2] == 1 and base.size == X.shape[0]:
        base = base[:, None]                  # ours: one base value per row
    base = np.broadcast_to(base if base.ndim == 2 else np.reshape(base, (1, -1)),
                           (X.shape[0], values.shape[2]))
    return float(np.abs(values.sum(axis=1) + base - _output(model, X)).max())


def ours_vs_shap(shap, ours, sk, rows, background, n_jobs, repeat):
    """(our time, shap's time, our additivity error, shap's)."""
    t_ours, ex = best_time(lambda: explain(ours, rows, background=background,
                                           n_jobs=n_jobs), repeat)

    def run_shap():
        if background is None:
            explainer = shap.TreeExplainer(sk)
        else:
            explainer = shap.TreeExplainer(sk, data=background,
                                           feature_perturbation="interventional")
        values = np.asarray(explainer.shap_values(rows, check_additivity=False))
        return values, explainer.expected_value

    t_shap, (values, base) = best_time(run_shap, repeat)
    return (t_ours, t_shap, _additivity(ex.values, ex.base_values, ours, rows),
            _additivity(values, base, sk, rows))


def row(name, t_ours, t_shap, err_ours, err_shap):
    return (f"| {name} | {t_ours:.2f} | {t_shap:.2f} | {t_ours / t_shap:.2f} "
            f"| {err_ours:.1e} | {err_shap:.1e} |")


HEADER = ("| case | explain (s) | shap (s) | ratio | additivity error ours | "
          "additivity error shap |\n|---|---|---|---|---|---|")


def synthetic(shap, args):
    n, n_rows, n_bg = (6000, 400, 100) if not args.quick else (600, 40, 10)
    print(f"\n## Synthetic: {n} x 20, {args.n_estimators} full-depth trees, "
          f"n_jobs={args.n_jobs}\n")
    print(HEADER)
    for task in ("classification", "regression"):
        if task == "classification":
            X, y = make_classification(n, 20, n_informative=10, random_state=0)
            ours = RandomForestClassifier(n_estimators=args.n_estimators, random_state=0,
                                          n_jobs=args.n_jobs).fit(X, y)
            sk = SkForestClassifier(n_estimators=args.n_estimators, random_state=0,
                                    n_jobs=args.n_jobs).fit(X, y)
        else:
            X, y = make_regression(n, 20, n_informative=10, noise=10.0, random_state=0)
            ours = RandomForestRegressor(n_estimators=args.n_estimators, random_state=0,
                                         n_jobs=args.n_jobs).fit(X, y)
            sk = SkForestRegressor(n_estimators=args.n_estimators, random_state=0,
                                   n_jobs=args.n_jobs).fit(X, y)
        rows = X[:n_rows]
        print(row(f"{task}, path-dependent, {n_rows} rows",
                  *ours_vs_shap(shap, ours, sk, rows, None, args.n_jobs, args.repeat)),
              flush=True)
        few = X[:n_bg]
        print(row(f"{task}, interventional, {n_bg} rows x {n_bg} background",
                  *ours_vs_shap(shap, ours, sk, few, X[-n_bg:], args.n_jobs, args.repeat)),
              flush=True)


def real(shap, args):
    print(f"\n## Shared data sets: <= {args.max_rows} rows, <= {args.max_features} "
          f"features, {args.n_estimators} trees, path-dependent values of "
          f"{args.explain_rows} rows\n")
    print("| data set | rows x features | classes | explain (s) | shap (s) | ratio | "
          "additivity error ours | additivity error shap |\n|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    ratios = []
    for path in sorted(glob.glob(os.path.join(args.data, "*.npz"))):
        data = np.load(path, allow_pickle=True)
        X, y = np.asarray(data["X"], dtype=np.float64), data["y"]
        if X.shape[1] > args.max_features:
            continue
        if X.shape[0] > args.max_rows:
            keep = rng.choice(X.shape[0], args.max_rows, replace=False)
            X, y = X[keep], y[keep]
        X = np.where(np.isnan(X), np.nanmedian(X, axis=0), X)   # shap's NaN is not ours
        X = np.nan_to_num(X)
        ours = RandomForestClassifier(n_estimators=args.n_estimators, random_state=0,
                                      n_jobs=args.n_jobs).fit(X, y)
        sk = SkForestClassifier(n_estimators=args.n_estimators, random_state=0,
                                n_jobs=args.n_jobs).fit(X, y)
        rows = X[:args.explain_rows]
        t_ours, t_shap, e_ours, e_shap = ours_vs_shap(shap, ours, sk, rows, None,
                                                      args.n_jobs, 1)
        ratios.append(t_ours / t_shap)
        print(f"| {os.path.basename(path)[:-4]} | {X.shape[0]} x {X.shape[1]} | "
              f"{len(np.unique(y))} | {t_ours:.2f} | {t_shap:.2f} | {t_ours / t_shap:.2f} "
              f"| {e_ours:.1e} | {e_shap:.1e} |", flush=True)
    if ratios:
        print(f"\nratio explain / shap: median {np.median(ratios):.2f}, "
              f"largest {np.max(ratios):.2f} over {len(ratios)} data sets")


def rotation(args):
    n, n_rows, n_bg = (6000, 400, 100) if not args.quick else (600, 40, 10)
    X, y = make_classification(n, 20, n_informative=10, random_state=0)
    model = RotationForestClassifier(n_estimators=args.n_estimators, random_state=0,
                                     n_jobs=args.n_jobs).fit(X, y)
    print(f"\n## Rotation forest ({args.n_estimators} trees, {n} x 20), in the original "
          "features\n")
    print("| game | rows | explain (s) | additivity error |\n|---|---|---|---|")
    for label, rows, background in (("path-dependent", X[:n_rows], None),
                                    (f"interventional, {n_bg} background", X[:n_bg],
                                     X[-n_bg:])):
        t, ex = best_time(lambda: explain(model, rows, background=background,
                                          n_jobs=args.n_jobs), args.repeat)
        print(f"| {label} | {rows.shape[0]} | {t:.2f} | "
              f"{_additivity(ex.values, ex.base_values, model, rows):.1e} |", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", default=None)
    parser.add_argument("--max-rows", type=int, default=3000)
    parser.add_argument("--max-features", type=int, default=100)
    parser.add_argument("--explain-rows", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="small data, one repeat")
    args = parser.parse_args(argv)
    if args.quick:
        args.n_estimators, args.repeat = min(args.n_estimators, 10), 1
    import shap
    warnings.filterwarnings("ignore")
    print(f"# rotforest.explain against shap {shap.__version__}: {date.today()}; "
          f"{machine_description()}; {versions()}")
    synthetic(shap, args)
    if args.data:
        real(shap, args)
    rotation(args)


if __name__ == "__main__":
    main()
