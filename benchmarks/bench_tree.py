"""Time rotforest's DecisionTreeClassifier against scikit-learn's, side by side in one run.

For make_classification data with 20 features (and a tie-heavy variant whose features are
rounded to a few distinct values) it prints fit and predict times of both, their ratios
(ours / scikit-learn's: below 1 is faster), and the ratio of our fit time to the "argsort
floor": one np.argsort of every column, the least any presorted builder must spend.

    python benchmarks/bench_tree.py                      # n = 10k, 100k, 1M
    python benchmarks/bench_tree.py --sizes 10000 100000 --repeat 3
    python benchmarks/bench_tree.py --n-classes 5          # multiclass data
"""
import argparse
import os
import sys
from datetime import date

import numpy as np
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier as SkTree

from rotforest import DecisionTreeClassifier

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import best_time, machine_description, versions  # noqa: E402


def make_data(n, variant, seed=0, n_classes=2):
    X, y = make_classification(n_samples=n, n_features=20, n_informative=10,
                               n_redundant=4, n_classes=n_classes, random_state=seed)
    if variant == "ties":
        X = np.round(X)        # about 8 to 10 distinct values per feature
    return X, y


def run(n, variant, repeat, n_classes=2):
    X, y = make_data(n, variant, n_classes=n_classes)
    Xf = np.asfortranarray(X)
    floor, _ = best_time(lambda: [np.argsort(Xf[:, j]) for j in range(X.shape[1])], repeat)
    # scikit-learn at 1M takes minutes: time it once there
    sk_repeat = 1 if n >= 500_000 else repeat
    ours_fit, ours = best_time(lambda: DecisionTreeClassifier(random_state=0).fit(X, y), repeat)
    sk_fit, sk = best_time(lambda: SkTree(random_state=0).fit(X, y), sk_repeat)
    # predictions take milliseconds below 1M rows: the best of more runs there, so that
    # one slow run of a busy machine does not decide the ratio
    pred_repeat = repeat if n >= 500_000 else 10 * repeat
    ours_pred, p1 = best_time(lambda: ours.predict(X), pred_repeat)
    sk_pred, p2 = best_time(lambda: sk.predict(X), pred_repeat)
    return dict(
        n=n, variant=variant, ours_fit=ours_fit, sk_fit=sk_fit, fit_ratio=ours_fit / sk_fit,
        ours_pred=ours_pred, sk_pred=sk_pred, pred_ratio=ours_pred / sk_pred,
        floor=floor, floor_ratio=ours_fit / floor,
        ours_nodes=ours.tree_.node_count, sk_nodes=sk.tree_.node_count,
        agree=float(np.mean(p1 == p2)),
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--variants", nargs="+", default=["continuous", "ties"],
                        choices=["continuous", "ties"])
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument("--n-classes", type=int, default=2)
    args = parser.parse_args()

    print(f"# bench_tree: {date.today()}; {machine_description()}; {versions()}; "
          f"{args.n_classes} classes")
    print("| n | data | fit ours (s) | fit sklearn (s) | fit ratio | predict ours (s) "
          "| predict sklearn (s) | predict ratio | argsort floor (s) | fit / floor "
          "| nodes ours / sklearn | same predictions |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for variant in args.variants:
        for n in args.sizes:
            r = run(n, variant, args.repeat, args.n_classes)
            print(f"| {n:,} | {variant} | {r['ours_fit']:.3f} | {r['sk_fit']:.3f} "
                  f"| {r['fit_ratio']:.3f} | {r['ours_pred']:.4f} | {r['sk_pred']:.4f} "
                  f"| {r['pred_ratio']:.2f} | {r['floor']:.3f} | {r['floor_ratio']:.2f} "
                  f"| {r['ours_nodes']} / {r['sk_nodes']} | {r['agree']:.4f} |", flush=True)


if __name__ == "__main__":
    main()
