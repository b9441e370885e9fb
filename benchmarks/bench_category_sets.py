"""Many-level categorical features split on sets in every tree (setting "rule") or, as
now, on sets with probability categorical_set_fraction else on thresholds of their
codes (setting "none"), paired on the same folds.

The forests' default categorical_set_fraction=0.5 makes each categorical feature, in
each tree, split on sets of its levels with probability 0.5, else on thresholds of its
integer codes.  The candidate rule: a feature of more than 255 distinct values (NaN
counted) takes sets in every tree whatever the fraction says; features of at most 255
levels are unchanged.  The switch is the private ``rotforest.forest._SETS_ABOVE``
(255: the rule, None: none), set before every fit and read when each tree is grown.

Models, at their defaults otherwise: rotforest's RandomForestClassifier /
RandomForestRegressor (--n-estimators trees, n_jobs=1).  Every model is fitted on the
same repeated (stratified) K-fold splits (bench_accuracy's ``cross_validate_one``,
--repeats x --folds), once with each setting, with the same random_state; the paired
difference rule - none (accuracy, or R^2, in points) carries the Nadeau-Bengio
corrected standard error of its folds.

Data: no shared data set has a categorical column of more than 255 levels (the largest
has 66), so the rule changes none of them; only synthetic families are run, each at two
sizes and --seeds seeds (seed s makes data set s; folds and models use seed 0).

(a) bench_category_rare's families that have a column of more than 255 levels, from its
    generators: ``zipf-clf``, ``zipf-reg``, ``uniform500``, ``noise-clf``, ``noise-reg``
    (2,000-, 300- and 500-level columns without effect), ``rare-tail``, ``multi300``
    (300 levels).  Its ``few-clf`` / ``few-reg`` (at most 20 levels) are not run: the
    rule does not touch them, which --check confirms on one few-clf data set (the
    predictions of both settings identical).

(b) ``ordered-clf`` / ``ordered-reg``: num (10 standard normal columns,
    score = num_0 - 0.8 num_1 + 0.6 num_2 num_3), a 2,000-level uniform column whose
    level effect is a smooth function of its code, 1.5 sin(2 pi code / 2000) plus
    N(0, 0.3^2) a level, and a 20-level uniform one with effects sd 0.6;
    y = score + effects + N(0, 0.5^2) (> 0 for ordered-clf).  ``ordered-zipf``: the same
    with Zipf(1) frequencies for the 2,000 levels (level k drawn with probability
    proportional to 1 / (k + 1)), classification.  The codes carry an order here:
    thresholds should help, this is where the rule can lose.

(c) ``ids``: num and a 5,000-level uniform column of pure noise;
    y = score + N(0, 0.5^2) > 0.

Printed: the header, one progress line per data set, then a table per family and size
(seeds pooled: mean over seeds, standard error sqrt(sum se^2) / seeds) with both
settings' mean score, the difference rule - none in points ± its corrected standard
error, the number of data sets better / worse by more than 2 standard errors and the
mean fit time (s) of each setting; then per family (both sizes pooled) and over all.

    python benchmarks/bench_category_sets.py --repeats 2 --folds 3 --seeds 2 \\
        --n-estimators 100
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_accuracy import corrected_se, cross_validate_one  # noqa: E402
from bench_category_rare import FAMILIES as RARE  # noqa: E402
from bench_category_rare import _join, _labelled, _numeric, pooled  # noqa: E402
from bench_sparse import _zipf  # noqa: E402
from common import header, markdown_table  # noqa: E402

import rotforest.forest as F  # noqa: E402
from rotforest import RandomForestClassifier, RandomForestRegressor  # noqa: E402

MODELS = (RandomForestClassifier, RandomForestRegressor)
SETTINGS = {"none": None, "rule": 255}


# ------------------------------------------------------------------------------ models


def _maker(cls, params, above):
    def make():
        F._SETS_ABOVE = above                 # read when each tree is grown
        return cls(**params)
    return make


def makers(mask, regression, n_estimators, seed=0):
    """setting -> a maker that sets the switch and returns a fresh forest."""
    params = dict(categorical_features=mask, random_state=seed,
                  n_estimators=n_estimators, n_jobs=1)
    return {name: _maker(MODELS[regression], params, above)
            for name, above in SETTINGS.items()}


# ------------------------------------------------------------------------------ data


def ordered(n, seed, regression, exponent=0.0, levels=2000):
    """A many-level column whose level effect is a smooth function of its code."""
    rng = np.random.default_rng(seed)
    num, score = _numeric(rng, n)
    code = rng.choice(levels, size=n, p=_zipf(levels, exponent))
    smooth = (1.5 * np.sin(2 * np.pi * np.arange(levels) / levels)
              + rng.normal(scale=0.3, size=levels))
    plan = rng.integers(0, 20, size=n)
    plan_effect = rng.normal(scale=0.6, size=20)
    X, mask = _join(num, np.column_stack([code, plan]).astype(float))
    return X, mask, _labelled(rng, score + smooth[code] + plan_effect[plan], regression)


def ids(n, seed, levels=5000):
    """num and a many-level column of pure noise (an identifier)."""
    rng = np.random.default_rng(seed)
    num, score = _numeric(rng, n)
    code = rng.integers(0, levels, size=n).astype(float)
    X, mask = _join(num, code[:, None])
    return X, mask, _labelled(rng, score, False)


# name -> (generator(n, seed) -> (X, mask, y), regression, sizes)
FAMILIES = {name: RARE[name] for name in ("zipf-clf", "zipf-reg", "uniform500",
                                          "noise-clf", "noise-reg", "rare-tail",
                                          "multi300")}
FAMILIES.update({
    "ordered-clf": (lambda n, s: ordered(n, s, False), False, (5_000, 20_000)),
    "ordered-reg": (lambda n, s: ordered(n, s, True), True, (5_000, 20_000)),
    "ordered-zipf": (lambda n, s: ordered(n, s, False, exponent=1.0), False,
                     (5_000, 20_000)),
    "ids": (ids, False, (5_000, 20_000)),
})


# ------------------------------------------------------------------------------ runs


def check_unchanged(n_estimators):
    """On a few-clf data set (at most 20 levels) both settings predict the same."""
    generate, regression, sizes = RARE["few-clf"]
    X, mask, y = generate(sizes[0], 0)
    half = len(y) // 2
    made = makers(mask, regression, n_estimators)
    preds = {}
    for name, make in made.items():
        model = make().fit(X[:half], y[:half])
        preds[name] = model.predict_proba(X[half:])
    same = np.array_equal(preds["none"], preds["rule"])
    print(f"# check: few-clf n={sizes[0]} (levels <= 20), predicted probabilities of "
          f"rule and none {'identical' if same else 'DIFFERENT'}")
    return same


def evaluate(X, y, mask, regression, args):
    """The mean score of each setting, the paired difference, its corrected SE and the
    mean fit time of each setting."""
    res = cross_validate_one(makers(mask, regression, args.n_estimators), X, y,
                             args.folds, args.repeats, 0,
                             "regression" if regression else "classification")
    s0, s1 = res["score"]["none"], res["score"]["rule"]
    delta = s1 - s0
    return dict(s0=s0.mean(), s1=s1.mean(), d=delta.mean(),
                se=corrected_se(delta, res["n_train"], res["n_test"]),
                t0=res["fit"]["none"].mean(), t1=res["fit"]["rule"].mean())


def _row(label, p):
    return [*label, p["k"], f"{p['s0']:.4f}", f"{p['s1']:.4f}",
            f"{100 * p['d']:+.2f} ± {100 * p['se']:.2f}", f"{p['better']} / {p['worse']}",
            f"{p['t0']:.3f}", f"{p['t1']:.3f}"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=2, help="data sets a family and size")
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--families", default=",".join(FAMILIES),
                        help="comma-separated among " + ", ".join(FAMILIES))
    parser.add_argument("--sizes", default="all", help="all, small or large")
    parser.add_argument("--no-check", action="store_true",
                        help="skip the few-clf check that the rule changes nothing there")
    args = parser.parse_args(argv)
    families = args.families.split(",")
    unknown = set(families) - set(FAMILIES)
    if unknown:
        parser.error(f"unknown families: {', '.join(sorted(unknown))}")
    print(header("bench_category_sets.py"))
    print(f"# rule (_SETS_ABOVE=255: features of > 255 levels take sets in every tree) vs "
          f"none (categorical_set_fraction alone, 0.5): {args.repeats} x {args.folds}"
          f"-fold, {args.n_estimators} trees, n_jobs=1, {args.seeds} seeds a family "
          f"and size\n")
    previous = F._SETS_ABOVE
    rows = {}          # (family, size label, n) -> [result per seed]
    try:
        if not args.no_check:
            check_unchanged(args.n_estimators)
        for family in families:
            generate, regression, sizes = FAMILIES[family]
            if args.sizes != "all":
                sizes = sizes[:1] if args.sizes == "small" else sizes[1:]
            for n in sizes:
                for seed in range(args.seeds):
                    X, mask, y = generate(n, seed)
                    levels = [len(np.unique(X[:, j])) for j in np.flatnonzero(mask)]
                    r = evaluate(X, y, mask, regression, args)
                    rows.setdefault((family, f"n={n}", n), []).append(r)
                    print(f"{family} n={n} seed {seed} levels {levels}: none "
                          f"{r['s0']:.4f} -> rule {r['s1']:.4f} ({100 * r['d']:+.2f} ± "
                          f"{100 * r['se']:.2f}), fit {r['t0']:.2f} / {r['t1']:.2f} s",
                          flush=True)
    finally:
        F._SETS_ABOVE = previous
    if not rows:
        raise SystemExit("nothing measured")

    columns = ["family", "data set", "rows", "sets", "score none", "score rule",
               "rule - none (points)", "better / worse (2 SE)", "fit none (s)",
               "fit rule (s)"]
    table = [_row(key, pooled(results)) for key, results in rows.items()]
    summary = []
    for family in dict.fromkeys(f for f, _, _ in rows):
        entries = [r for (f, _, _), results in rows.items() if f == family
                   for r in results]
        summary.append(_row((family,), pooled(entries)))
    summary.append(_row(("all",), pooled([r for results in rows.values()
                                           for r in results])))
    print("\n## Per data set (per family and size, seeds pooled)\n")
    print(markdown_table(columns, table, align="lllrrrrrrr"))
    print("\n## Per family (both sizes and all seeds pooled)\n")
    print(markdown_table([columns[0], *columns[3:]], summary, align="lrrrrrrr"))
    return rows


if __name__ == "__main__":
    main()
