"""The rotation forest's wide-data default against its alternatives, on the shared wide
data sets and on synthetic families of wide data, by repeated stratified CV.

Models (keys for --models):

- ``rotation``: RotationForestClassifier with its defaults (on wide data each tree
  rotates 100 features, half the trees drawing 80 of them by the relevance of a
  screening forest and scanning every axis at a node, the others drawing uniformly and
  scanning the square root of the axes);
- ``rotation-relevance``: every tree draws by relevance (``subset_sampling="relevance"``);
- ``rotation-uniform``: every tree draws uniformly (``subset_sampling="uniform"``),
  nodes scanning every axis;
- ``rotation-before``: the classifier's default before relevance sampling (uniform
  subsets, nodes scanning the square root of the axes: ``subset_sampling="uniform"``,
  whose ``max_features="auto"`` means that; with ``--task regression`` the regressor's
  previous default is ``rotation-uniform``);
- ``rotation-all``: every feature rotated, every axis scanned
  (``max_rotated_features=None, max_features=None``): the accurate, slow alternative
  that the default must match;
- ``sk-forest``: scikit-learn's RandomForestClassifier with its defaults.

All forests have --n-estimators trees (100), --n-jobs threads (2) and random_state=0.
With ``--task regression`` the same models are the regressors (scikit-learn's
RandomForestRegressor as ``sk-forest``) and the data are the wide shared regression
sets and the regression families; scores are R^2 and the folds plain K-fold
(differences in points: hundredths of R^2). The regressor's previous default is
``rotation-uniform`` (its nodes always scanned every axis).

Data: the wide shared sets (WIDE, or --datasets) from --data (default ../shared/datasets
beside the repository; skipped when absent), at most --max-rows rows (stratified, seed
0), and the synthetic families of ``wide_families.py`` (its GRID, 200 to 10,000
features; --families to choose, --no-synthetic to leave them out).

Every model is fitted on the same folds (--folds x --repeats, seed 0), by
bench_accuracy.py's ``cross_validate_one``; the shared sets are read and sampled by
common.py's ``iter_folder`` and ``prepared`` (classes of fewer than max(3, --folds) rows
dropped: before, fewer than 3, the same at the default 3 folds). Per data set the
script prints each model's mean score and fit time, and the paired difference of the
default from every other model with Nadeau and Bengio's corrected standard error. The
summary checks the wide-data issue's targets: the default's mean difference from
``rotation-all`` (at least -0.5 points), its worst data set (at least -2 points), its
mean difference from ``sk-forest`` (at least 0), and its fit time over scikit-learn's
forest's (median at most 1.0, largest at most 3.0); then the means per class of data
(each synthetic family, and the shared sets).

    python benchmarks/bench_wide_default.py                        # everything (long)
    python benchmarks/bench_wide_default.py --no-shared --families signal counts \\
        --folds 3 --repeats 1 --n-estimators 20                      # a quick look
    python benchmarks/bench_wide_default.py --task regression
"""
import argparse
import os
import sys
from datetime import date

import numpy as np
from sklearn.ensemble import RandomForestClassifier as SkForestClassifier
from sklearn.ensemble import RandomForestRegressor as SkForestRegressor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wide_families  # noqa: E402
from bench_accuracy import corrected_se, cross_validate_one  # noqa: E402
from common import (iter_folder, machine_description, prepared, table_head,  # noqa: E402
                    table_row, versions)

from rotforest import RotationForestClassifier, RotationForestRegressor  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDE = ("semeion", "isolet", "mnist_test10k", "cnae9", "hiva", "olivetti_faces", "arcene")
WIDE_REGRESSION = ("communities_crime", "uji_indoor_longitude")
MODELS = ("rotation", "rotation-relevance", "rotation-uniform", "rotation-before",
          "rotation-all", "sk-forest")
DEFAULT = "rotation"
REFERENCE = "rotation-all"


def factories(task, n_estimators, n_jobs):
    rotation = RotationForestClassifier if task == "classification" else RotationForestRegressor
    sk = SkForestClassifier if task == "classification" else SkForestRegressor
    common = dict(n_estimators=n_estimators, n_jobs=n_jobs, random_state=0)
    return {
        "rotation": lambda: rotation(**common),
        "rotation-relevance": lambda: rotation(subset_sampling="relevance", **common),
        "rotation-uniform": lambda: rotation(subset_sampling="uniform", max_features=None,
                                             **common),
        "rotation-before": lambda: rotation(subset_sampling="uniform", max_features="sqrt",
                                            **common),
        "rotation-all": lambda: rotation(max_rotated_features=None, max_features=None,
                                         **common),
        "sk-forest": lambda: sk(**common),
    }


def shared_sets(args):
    """(name, X, y) of the shared wide sets found in --data, in the order named, at most
    --max-rows rows (per class in proportion for classification; one generator, seed 0,
    for the sets in turn; classes of fewer than max(3, --folds) rows dropped)."""
    names = args.datasets or (WIDE if args.task == "classification" else WIDE_REGRESSION)
    rng = np.random.default_rng(0)
    out = []
    for name in names:
        for _, X, y in iter_folder(args.data, [name]):
            X, y = prepared(X, y, args.max_rows, max(3, args.folds), rng, task=args.task,
                            stratify=True)
            out.append((name, "shared", X, y))
    return out


def synthetic_sets(args):
    grid = wide_families.GRID if args.task == "classification" else \
        wide_families.REGRESSION_GRID
    out = []
    for family, rows, features in grid:
        if args.families and family not in args.families:
            continue
        rows = min(rows, args.max_rows)
        X, y = wide_families.make(family, rows, features, task=args.task)
        out.append((f"{family} {rows}x{features}", family, X, y))
    return out


def evaluate(models, X, y, args):
    """Per model: one score a fold, one fit time a fold; the mean fold sizes
    (bench_accuracy.cross_validate_one: repeated (stratified) K-fold, seed 0)."""
    res = cross_validate_one(models, X, y, args.folds, args.repeats, seed=0,
                             task=args.task, nan="none")
    return res["score"], res["fit"], (res["n_train"], res["n_test"])


# score differences are printed in points: hundredths of accuracy or of R^2
POINTS = 100.0


def summarize(results, keys, task, out=print):
    """The targets and the means per class of data; returns the target checks."""
    unit = "points" if task == "classification" else "points of R^2"
    diffs = {k: np.array([POINTS * (r["score"][DEFAULT] - r["score"][k]).mean()
                          for r in results]) for k in keys if k != DEFAULT}
    checks = {}
    out(f"\n## Summary over {len(results)} data sets\n")
    if REFERENCE in diffs:
        d = diffs[REFERENCE]
        worst = int(np.argmin(d))
        checks["mean vs all axes"] = (d.mean(), d.mean() >= -0.5)
        checks["worst vs all axes"] = (d[worst], d[worst] >= -2.0)
        out(f"- default minus all axes: mean {d.mean():+.2f} {unit} (target >= -0.50), "
            f"worst {d[worst]:+.2f} on {results[worst]['name']} (target >= -2.00)")
    if "sk-forest" in diffs:
        d = diffs["sk-forest"]
        checks["mean vs sk-forest"] = (d.mean(), d.mean() >= 0)
        out(f"- default minus scikit-learn's forest: mean {d.mean():+.2f} {unit} "
            f"(target >= 0), won {int((d > 0).sum())} / lost {int((d < 0).sum())}")
        ratio = np.array([r["fit"][DEFAULT].mean() / r["fit"]["sk-forest"].mean()
                          for r in results])
        checks["median fit ratio"] = (float(np.median(ratio)), np.median(ratio) <= 1.0)
        checks["largest fit ratio"] = (float(ratio.max()), ratio.max() <= 3.0)
        out(f"- default fit / scikit-learn's forest fit: median {np.median(ratio):.2f} "
            f"(target <= 1.0), largest {ratio.max():.2f} on "
            f"{results[int(np.argmax(ratio))]['name']} (target <= 3.0)")
    for name, (value, ok) in checks.items():
        out(f"  - {name}: {value:+.3f} {'met' if ok else 'NOT met'}")
    classes = sorted({r["kind"] for r in results})
    out(f"\n### Mean differences of the default by class of data ({unit})\n")
    others = [k for k in keys if k != DEFAULT]
    out(table_head(["class", "data sets", *(f"minus {k}" for k in others),
                    "fit / sk-forest"]))
    for kind in classes:
        rows = [i for i, r in enumerate(results) if r["kind"] == kind]
        cells = [f"{diffs[k][rows].mean():+.2f}" for k in others]
        ratio = (np.mean([results[i]["fit"][DEFAULT].mean() / results[i]["fit"]["sk-forest"].mean()
                          for i in rows]) if "sk-forest" in keys else np.nan)
        out(table_row([kind, len(rows), *cells, f"{ratio:.2f}"]))
    return checks


def compact(results, keys, task, out=print):
    """The per-set table in short: the default's score, its mean difference from every
    other model, and the fit times over scikit-learn's forest's."""
    others = [k for k in keys if k != DEFAULT]
    timed = [k for k in (DEFAULT, REFERENCE) if k in keys and "sk-forest" in keys]
    out("\n### Per data set, in short\n")
    out(table_head(["data set", "default", *(f"minus {k}" for k in others),
                    *(f"fit {k} / sk-forest" for k in timed)]))
    for r in results:
        cells = [f"{r['score'][DEFAULT].mean():.4f}"]
        cells += [f"{POINTS * (r['score'][DEFAULT] - r['score'][k]).mean():+.2f}" for k in others]
        cells += [f"{r['fit'][k].mean() / r['fit']['sk-forest'].mean():.2f}" for k in timed]
        out(table_row([r["name"], *cells]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", choices=("classification", "regression"),
                        default="classification")
    parser.add_argument("--data", default=None,
                        help="folder of NAME.npz (default: the shared data sets)")
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--no-shared", action="store_true")
    parser.add_argument("--families", nargs="*", default=None)
    parser.add_argument("--no-synthetic", action="store_true")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--max-rows", type=int, default=3000)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.data is None:
        sub = "datasets" if args.task == "classification" else "datasets_regression"
        args.data = os.path.join(os.path.dirname(REPO), "shared", sub)
    keys = args.models.split(",")
    known = factories(args.task, args.n_estimators, args.n_jobs)
    unknown = [k for k in keys if k not in known]
    if unknown or DEFAULT not in keys:
        raise SystemExit(f"--models must name {DEFAULT!r} and keys among {sorted(known)}; "
                         f"unknown: {unknown}")
    models = {k: known[k] for k in keys}
    sets = ([] if args.no_shared else shared_sets(args)) + \
        ([] if args.no_synthetic else synthetic_sets(args))
    metric = "accuracy" if args.task == "classification" else "R^2"
    print(f"# bench_wide_default: {args.task}, {date.today()}, {machine_description()}")
    print(f"# {versions()}")
    print(f"# {args.n_estimators} trees, n_jobs={args.n_jobs}, {args.folds}-fold CV x "
          f"{args.repeats} repeats (seed 0), at most {args.max_rows:,} rows; differences "
          f"of the default ({DEFAULT}) in points (hundredths of {metric}) +- "
          "Nadeau and Bengio's corrected standard error\n")
    others = [k for k in keys if k != DEFAULT]
    print(table_head(["data set", "rows x features", *(f"{metric} {k}" for k in keys),
                      *(f"default minus {k}" for k in others),
                      *(f"fit {k} (s)" for k in keys)],
                     "ll" + "r" * (2 * len(keys) + len(others))))
    results = []
    for name, kind, X, y in sets:
        score, fit, (n_train, n_test) = evaluate(models, X, y, args)
        cells = [f"{score[k].mean():.4f}" for k in keys]
        for k in others:
            d = POINTS * (score[DEFAULT] - score[k])
            cells.append(f"{d.mean():+.2f} ± {corrected_se(d, n_train, n_test):.2f}")
        cells += [f"{fit[k].mean():.2f}" for k in keys]
        print(table_row([name, f"{X.shape[0]:,} x {X.shape[1]:,}", *cells]), flush=True)
        results.append(dict(name=name, kind=kind, score=score, fit=fit))
    if results:
        summarize(results, keys, args.task)
        compact(results, keys, args.task)
    return results


if __name__ == "__main__":
    main()
