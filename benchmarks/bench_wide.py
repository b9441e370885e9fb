"""Both rotforest forests against scikit-learn's (and aeon's) on wide data, in one run.

Models (keys for --models, as in compare.py): rotforest's RandomForestClassifier
("forest") and RotationForestClassifier ("rotation"), scikit-learn's
RandomForestClassifier ("sk-forest") and ExtraTreesClassifier ("sk-extra"), and aeon's
RotationForestClassifier ("aeon") when aeon is installed. Forests have --n-estimators
trees (100) and use --n-jobs threads (2), random_state=0, everything else at each
library's defaults.

Data: every NAME.npz in --data (default: the shared data sets, ../shared/datasets beside
the repository) with at least --min-features features (30), among them the wide ones
(WIDE below), sampled to at most --max-rows rows (10,000; stratified, seed 0 for every
data set; classes of fewer than 3 rows dropped); and make_classification data with each
--synthetic number of features (500, 2,000 and 10,000): --synthetic-rows rows (2,000,
or --max-rows if fewer), 20 informative and 20 redundant features (fewer below 40), the
rest noise, 3 classes, seed 0. Categorical columns enter as their ordinal codes. Missing
cells are median-imputed, fitted on the training part, for the models whose scikit-learn
tags say they do not take NaN (aeon); the others get the NaN as they are. (The shared
sets are read and sampled by common.py's ``iter_folder`` and ``prepared``; the splits
and fits are bench_accuracy.py's ``cross_validate_one``, the same splits as before; the
imputation is now part of the fit it precedes, and so of its time.)

Each data set is split once, stratified, 2/3 for training and 1/3 for testing (seed 0);
--folds K uses stratified K-fold instead and reports the means over the folds (times in
seconds per fold). Fit and predict (labels of the test part) are timed with
time.perf_counter, after one warm-up fit of every model on a tiny data set. aeon runs
only on data sets of at most --aeon-max-features features (250, the range of its target
below), since it is far slower on the wide ones.

The summary checks the targets of the wide-data issue: rotforest RF fit / sklearn RF fit
<= 0.5 on every data set, with accuracy no more than 0.5 points below sklearn's; rotation
forest fit / sklearn RF fit <= 1.0 on the wide sets and at 2,000 synthetic features,
with its mean accuracy over the wide sets beside sklearn RF's; aeon fit / rotation forest
fit >= 10 on the sets of at most 250 features; then totals per model.

    python benchmarks/bench_wide.py                    # the full run: long (mnist, hiva)
    python benchmarks/bench_wide.py --datasets semeion cnae9 arcene --max-rows 200 \\
        --n-estimators 5 --n-jobs 1 --synthetic 500    # a quick look (seconds)
"""
import argparse
import os
import sys

import numpy as np
from sklearn.datasets import make_classification

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import cross_validate_one  # noqa: E402
from common import (available_models, dataset_names, header, iter_folder,  # noqa: E402
                    prepared, table_head)
from common import table_row as markdown_row  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDE = ("mnist_test10k", "isolet", "cnae9", "hiva", "semeion", "arcene", "olivetti_faces")
MODELS = ("forest", "rotation", "rotation-all", "rotation-sqrt", "sk-forest", "sk-extra",
          "aeon")
OPTIONAL = ("rotation-all", "rotation-sqrt")    # settings of the rotation forest
# ratio columns: header, numerator model, denominator model, quantity
RATIOS = [("RF / skRF fit", "forest", "sk-forest", "fit"),
          ("RF - skRF accuracy (points)", "forest", "sk-forest", "acc"),
          ("RoF / skRF fit", "rotation", "sk-forest", "fit"),
          ("aeon / RoF fit", "aeon", "rotation", "fit")]


def synthetic(n_features, n_rows):
    """20 informative and 20 redundant features (fewer below 40 features), 3 classes."""
    return make_classification(n_samples=n_rows, n_features=n_features,
                               n_informative=min(20, n_features // 2),
                               n_redundant=min(20, n_features // 4), n_classes=3,
                               random_state=0)


def warm_up(models):
    """Fit every model once on a tiny data set, so that one-time costs (imports, compiled
    code, thread pools) do not land on the first data set's times."""
    X, y = make_classification(n_samples=60, n_features=8, random_state=0)
    for label, factory in models.values():
        try:
            factory().fit(X, y)
        except Exception as exc:
            print(f"warm-up of {label} failed: {exc!r}", file=sys.stderr)


def evaluate(models, X, y, folds, run_aeon, name):
    """Model key -> (fit s, predict s, accuracy), means over the splits; or a word saying
    why there is no result (skipped, error). The splits and fits are
    bench_accuracy.cross_validate_one's: one stratified 2/3-1/3 split (folds None) or
    stratified K-fold, seed 0."""
    out = {key: "skipped" for key in models if key == "aeon" and not run_aeon}
    run = {key: model for key, model in models.items() if key not in out}

    def progress(name, key, entry):
        print(f"  {name:<16} {run[key][0]:<28} fit {entry['fit'].mean():8.2f} s  accuracy "
              f"{entry['score'].mean():.4f}", file=sys.stderr, flush=True)

    res = cross_validate_one(run, X, y, folds, 1, seed=0, on_error="record",
                             progress=progress, name=name)
    for key in run:
        if key in res["errors"]:    # a failing model must not lose the rest of a long run
            print(f"  {name}: {run[key][0]} failed: {res['errors'][key]}",
                  file=sys.stderr, flush=True)
            out[key] = "error"
        else:
            out[key] = (res["fit"][key].mean(), res["predict"][key].mean(),
                        res["score"][key].mean())
    return {key: out[key] for key in models}


def value(result, key, what):
    cell = result["scores"].get(key)
    if not isinstance(cell, tuple):
        return np.nan
    return cell[("fit", "pred", "acc").index(what)]


def ratio(result, num, den, what):
    a, b = value(result, num, what), value(result, den, what)
    return 100 * (a - b) if what == "acc" else a / b


def table_header(models, ratios):
    print(table_head(["data set", "rows", "features", "classes"]
                     + [label for label, _ in models.values()] + [r[0] for r in ratios]))


def table_row(result, models, ratios):
    cells = []
    for key in models:
        cell = result["scores"][key]
        cells.append(f"{cell[0]:.2f} / {cell[1]:.3f} / {cell[2]:.4f}"
                     if isinstance(cell, tuple) else cell)
    for _, num, den, what in ratios:
        v = ratio(result, num, den, what)
        cells.append("" if not np.isfinite(v) else f"{v:+.2f}" if what == "acc"
                     else f"{v:.3f}")
    print(markdown_row([result["name"], f"{result['rows']:,}", f"{result['features']:,}",
                     result["classes"], *cells]), flush=True)


def per_set_target(text, results, num, den, ok, total=True):
    """One line: whether fit-time ratio num / den meets ``ok`` on every data set given."""
    pairs = [(r["name"], ratio(r, num, den, "fit")) for r in results]
    pairs = [(name, v) for name, v in pairs if np.isfinite(v)]
    if not pairs:
        print(f"- {text}: not measured (needs {num} and {den} on such data sets)")
        return
    misses = [f"{name} {v:.3f}" for name, v in pairs if not ok(v)]
    line = (f"- {text}: {'holds' if not misses else 'does NOT hold'} "
            f"({len(pairs) - len(misses)} of {len(pairs)} data sets")
    line += f"; misses: {', '.join(misses)})" if misses else ")"
    if total:
        kept = [r for r in results if np.isfinite(ratio(r, num, den, "fit"))]
        totals = [sum(value(r, key, "fit") for r in kept) for key in (num, den)]
        line += f"; ratio of the total fit times {totals[0] / totals[1]:.3f}"
    print(line)


def summary(results, models):
    print("\n## Targets\n")
    per_set_target("rotforest RF fit / sklearn RF fit <= 0.5 on every data set", results,
                   "forest", "sk-forest", lambda v: v <= 0.5)
    diffs = [(r["name"], ratio(r, "forest", "sk-forest", "acc")) for r in results]
    diffs = [(name, d) for name, d in diffs if np.isfinite(d)]
    if diffs:
        mean = np.mean([d for _, d in diffs])
        outside = [f"{name} {d:+.2f}" for name, d in diffs if abs(d) > 0.5]
        print(f"- rotforest RF accuracy no more than 0.5 points below sklearn RF (mean "
              f"over {len(diffs)} data sets): {'holds' if mean >= -0.5 else 'does NOT hold'}"
              f" (mean difference {mean:+.2f} points; data sets more than 0.5 points "
              f"apart: {', '.join(outside) if outside else 'none'})")
    else:
        print("- rotforest RF accuracy within 0.5 points of sklearn RF: not measured")
    wide = [r for r in results if r["name"] in WIDE or r["name"] == "synthetic_2000"]
    per_set_target("rotation forest fit / sklearn RF fit <= 1.0 on the wide sets and at "
                   "2,000 synthetic features", wide, "rotation", "sk-forest",
                   lambda v: v <= 1.0)
    both = [r for r in results if r["name"] in WIDE
            and np.isfinite(ratio(r, "rotation", "sk-forest", "acc"))]
    if both:
        rof = np.mean([value(r, "rotation", "acc") for r in both])
        skf = np.mean([value(r, "sk-forest", "acc") for r in both])
        print(f"- mean accuracy over the wide sets run ({len(both)}): rotation forest "
              f"{rof:.4f}, sklearn RF {skf:.4f} ({100 * (rof - skf):+.2f} points)")
    else:
        print("- mean accuracy over the wide sets: not measured")
    per_set_target("aeon fit / rotation forest fit >= 10 on the data sets of at most 250 "
                   "features", [r for r in results if r["features"] <= 250], "aeon",
                   "rotation", lambda v: v >= 10)

    print("\n## Totals\n")
    print(table_head(["model", "data sets", "count", "fit total (s)", "predict total (s)",
                      "mean accuracy"], "llrrrr"))
    groups = [("real", [r for r in results if not r["synthetic"]]),
              ("synthetic", [r for r in results if r["synthetic"]])]
    if all(rows for _, rows in groups):
        groups.append(("all", results))
    for key, (label, _) in models.items():
        for group, rows in groups:
            cells = [r["scores"][key] for r in rows if isinstance(r["scores"][key], tuple)]
            if cells:
                fit, pred, acc = np.array(cells).T
                print(f"| {label} | {group} | {len(cells)} | {fit.sum():.2f} | "
                      f"{pred.sum():.3f} | {acc.mean():.4f} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.path.join(REPO, "..", "shared", "datasets"),
                        help="folder of NAME.npz data sets (default: ../shared/datasets "
                        "beside the repository)")
    parser.add_argument("--min-features", type=int, default=30)
    parser.add_argument("--datasets", nargs="+", metavar="NAME",
                        help="only these data sets of the folder")
    parser.add_argument("--max-rows", type=int, default=10_000)
    parser.add_argument("--synthetic", type=int, nargs="*", default=[500, 2000, 10_000],
                        metavar="FEATURES", help="synthetic data sets by feature count "
                        "(none with the option alone)")
    parser.add_argument("--synthetic-rows", type=int, default=2000)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--folds", type=int, help="stratified K-fold (default: one "
                        "stratified 2/3-1/3 split)")
    parser.add_argument("--models", help="comma-separated keys among " + ", ".join(MODELS)
                        + " (default: all installed but " + " and ".join(OPTIONAL) + ")")
    parser.add_argument("--skip-aeon", action="store_true")
    parser.add_argument("--aeon-max-features", type=int, default=250,
                        help="aeon runs only on data sets with at most this many features")
    args = parser.parse_args(argv)

    available = available_models(args.n_estimators, args.n_jobs)
    keys = (args.models.split(",") if args.models else   # variants only on request
            [k for k in MODELS if k in available and k not in OPTIONAL])
    unknown = [k for k in keys if k not in MODELS or k not in available]
    if unknown:
        parser.error(f"unknown or unavailable models: {unknown}; available: "
                     f"{[k for k in MODELS if k in available]}")
    models = {k: available[k] for k in keys if not (args.skip_aeon and k == "aeon")}
    ratios = [r for r in RATIOS if r[1] in models and r[2] in models]

    print(header("bench_wide"))
    split = f"stratified {args.folds}-fold CV" if args.folds else "one stratified 2/3-1/3 split"
    print(f"# {args.n_estimators} trees, n_jobs={args.n_jobs}; {split} (seed 0); at most "
          f"{args.max_rows:,} rows; aeon up to {args.aeon_max_features} features")

    data = []
    if not os.path.isdir(args.data):
        print(f"\nno data folder at {args.data}: real data sets skipped")
    else:
        missing = sorted(set(args.datasets or []) - set(dataset_names(args.data)))
        if missing:
            print(f"\nnot in {args.data}: {', '.join(missing)}")
        for name, X, y in iter_folder(args.data, args.datasets):
            if X.shape[1] < args.min_features:
                if args.datasets:
                    print(f"\n{name} skipped: {X.shape[1]} features < {args.min_features}")
                continue
            # every class needs 3 rows, and one in every fold
            X, y = prepared(X, y, args.max_rows, max(3, args.folds or 3),
                            np.random.default_rng(0), stratify=True)
            data.append((name, X, y, False))
    for n_features in args.synthetic:
        X, y = synthetic(n_features, min(args.synthetic_rows, args.max_rows))
        data.append((f"synthetic_{n_features}", X, y, True))

    print(f"\n## Fit s / predict s / accuracy per model, then ratios ({len(data)} data "
          "sets)\n")
    warm_up(models)
    table_header(models, ratios)
    results = []
    for name, X, y, is_synthetic in data:
        scores = evaluate(models, X, y, args.folds,
                          X.shape[1] <= args.aeon_max_features, name)
        results.append(dict(name=name, rows=len(y), features=X.shape[1],
                            classes=len(np.unique(y)), synthetic=is_synthetic,
                            scores=scores))
        table_row(results[-1], models, ratios)
    summary(results, models)


if __name__ == "__main__":
    main()
