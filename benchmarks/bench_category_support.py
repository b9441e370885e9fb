"""The forests' ``min_category_samples``: 10 (the default) against 5 and 3, paired on
the same folds.

In a node, a categorical level with fewer than ``min_category_samples`` samples is rare;
the rare levels are pooled into one level that goes to one side as a whole.  With many
levels (a 2,000-level Zipf column) most levels are rare in most nodes at 10.  This
benchmark measures a lower default for the forests, through the public parameter itself
(no private switch): rotforest's RandomForestClassifier / RandomForestRegressor
(--n-estimators trees, n_jobs=1, defaults otherwise: categorical_set_fraction 0.5) with
``min_category_samples`` = 10, 5 and 3.  Every setting is fitted on the same repeated
(stratified) K-fold splits (bench_accuracy's ``cross_validate_one``, --repeats x
--folds) with the same random_state; the paired differences 5 - 10 and 3 - 10
(accuracy, or R^2, in points) carry the Nadeau-Bengio corrected standard error of their
folds.

Data (bench_category_rare's, imported from it):

(a) ``shared-clf`` / ``shared-reg``: every shared data set whose ``categorical`` array
    marks a column (at most --max-rows rows), read by bench_categorical's ``load``;
    skipped when the folders are absent.
(b) bench_category_rare's synthetic families (zipf-clf, zipf-reg, uniform500, few-clf,
    few-reg, noise-clf, noise-reg, rare-tail, multi300), --seeds seeds at the sizes
    chosen by --sizes (small: the smaller of each family's two sizes, large, or both).

Printed: the header, one progress line per data set, then a table per data set (the
synthetic ones per family and size, the seeds pooled: mean over seeds, standard error
sqrt(sum se^2) / seeds) with each setting's mean score, the differences 5 - 10 and
3 - 10 in points ± their corrected standard error, the number of data sets better /
worse by more than 2 standard errors and the mean fit time (s) of each setting; then
per family the average differences (the same pooled standard error).

    python benchmarks/bench_category_support.py --repeats 2 --folds 3 --seeds 2 \\
        --n-estimators 100 --sizes small
"""
import argparse
import os
import sys
import time


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import corrected_se, cross_validate_one  # noqa: E402
from bench_category_rare import FAMILIES, data_arguments, pooled, shared_sets  # noqa: E402
from common import header, markdown_table  # noqa: E402

from rotforest import RandomForestClassifier, RandomForestRegressor  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = 10                     # the forests' current default
DEFAULT_SETTINGS = (10, 5, 3)


def makers(mask, regression, settings, n_estimators, seed=0):
    """setting -> a maker of a fresh forest with min_category_samples=setting."""
    cls = RandomForestRegressor if regression else RandomForestClassifier

    def maker(m):
        return lambda: cls(n_estimators=n_estimators, n_jobs=1, random_state=seed,
                           categorical_features=mask, min_category_samples=m)
    return {m: maker(m) for m in settings}


def evaluate(X, y, mask, regression, args):
    """Per alternative setting m: the paired entry (s0, s1, d, se, t0, t1) of m
    against the base setting, as bench_category_rare's ``pooled`` reads it."""
    res = cross_validate_one(makers(mask, regression, args.settings, args.n_estimators),
                             X, y, args.folds, args.repeats, 0,
                             "regression" if regression else "classification")
    base = res["score"][args.base]
    out = {}
    for m in args.settings:
        if m == args.base:
            continue
        delta = res["score"][m] - base
        out[m] = dict(s0=base.mean(), s1=res["score"][m].mean(), d=delta.mean(),
                      se=corrected_se(delta, res["n_train"], res["n_test"]),
                      t0=res["fit"][args.base].mean(), t1=res["fit"][m].mean())
    return out


def _row(label, results, alternatives):
    """One table row: label, sets, scores, per alternative the difference and
    better / worse, then fit times."""
    p = {m: pooled([r[m] for r in results]) for m in alternatives}
    first = p[alternatives[0]]
    return [*label, first["k"], f"{first['s0']:.4f}",
            *(f"{p[m]['s1']:.4f}" for m in alternatives),
            *(x for m in alternatives
              for x in (f"{100 * p[m]['d']:+.2f} ± {100 * p[m]['se']:.2f}",
                        f"{p[m]['better']} / {p[m]['worse']}")),
            f"{first['t0']:.3f}", *(f"{p[m]['t1']:.3f}" for m in alternatives)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    data_arguments(parser, 2)
    parser.add_argument("--sizes", default="small", choices=("small", "large", "both"),
                        help="which of each synthetic family's two sizes")
    parser.add_argument("--settings", default=",".join(map(str, DEFAULT_SETTINGS)),
                        help="comma-separated min_category_samples; the first is the "
                             "base the others are compared with")
    parser.add_argument("--families", default="shared," + ",".join(FAMILIES),
                        help="comma-separated among shared and " + ", ".join(FAMILIES))
    parser.add_argument("--only", default=None, help="comma-separated shared set names")
    args = parser.parse_args(argv)
    args.settings = [int(s) for s in args.settings.split(",")]
    args.base = args.settings[0]
    alternatives = [m for m in args.settings if m != args.base]
    families = args.families.split(",")
    only = None if args.only is None else set(args.only.split(","))
    pick = {"small": slice(0, 1), "large": slice(1, 2), "both": slice(0, 2)}[args.sizes]
    print(header("bench_category_support.py"))
    print(f"# min_category_samples {', '.join(map(str, alternatives))} vs {args.base}: "
          f"{args.repeats} x {args.folds}-fold, {args.n_estimators} trees, n_jobs=1, "
          f"shared sets at most {args.max_rows} rows, {args.seeds} seeds a synthetic "
          f"family and size ({args.sizes})\n")

    def progress(label, res, seconds):
        print(f"{label}: {res[alternatives[0]]['s0']:.4f}; " + ", ".join(
            f"{m} - {args.base} {100 * r['d']:+.2f} ± {100 * r['se']:.2f}"
            for m, r in res.items()) + f" ({seconds:.0f} s)", flush=True)

    rows = {}          # (family, data set label, rows) -> [result, ...]
    if "shared" in families:
        for folder, regression, family in ((args.data, False, "shared-clf"),
                                           (args.data_regression, True, "shared-reg")):
            for name, X, y, mask in shared_sets(folder, regression, args.max_rows, only):
                start = time.perf_counter()
                res = evaluate(X, y, mask, regression, args)
                rows[family, name, len(y)] = [res]
                progress(f"{family} {name} {X.shape} {int(mask.sum())} categorical", res,
                         time.perf_counter() - start)
    for family in FAMILIES:
        if family not in families:
            continue
        generate, regression, sizes = FAMILIES[family]
        for n in sizes[pick]:
            for seed in range(args.seeds):
                X, mask, y = generate(n, seed)
                start = time.perf_counter()
                res = evaluate(X, y, mask, regression, args)
                rows.setdefault((family, f"n={n}", n), []).append(res)
                progress(f"{family} n={n} seed {seed}", res, time.perf_counter() - start)
    if not rows:
        raise SystemExit("nothing measured")

    diffs = [x for m in alternatives
             for x in (f"{m} - {args.base} (points)", f"b / w {m} (2 SE)")]
    scores = [f"score {args.base}", *(f"score {m}" for m in alternatives)]
    fits = [f"fit {args.base} (s)", *(f"fit {m} (s)" for m in alternatives)]
    columns = ["family", "data set", "rows", "sets", *scores, *diffs, *fits]
    table = [_row(key, results, alternatives) for key, results in rows.items()]
    summary = []
    for family in dict.fromkeys(f for f, _, _ in rows):
        entries = [r for (f, _, _), results in rows.items() if f == family
                   for r in results]
        summary.append(_row((family,), entries, alternatives))
    right = "r" * (len(columns) - 3)
    print("\n## Per data set (synthetic: per family and size, seeds pooled)\n")
    print(markdown_table(columns, table, align="lll" + right))
    print("\n## Per family (every data set of the family)\n")
    print(markdown_table([columns[0], *columns[3:]], summary, align="l" + right))
    return rows


if __name__ == "__main__":
    main()
