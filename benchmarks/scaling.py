"""How fit time grows with the number of rows: rotforest against scikit-learn.

Fits rotforest's DecisionTreeClassifier, RandomForestClassifier and
RotationForestClassifier and scikit-learn's DecisionTreeClassifier,
RandomForestClassifier and ExtraTreesClassifier on the first n rows of one
make_classification data set (20 features, 10 informative, 4 redundant) for n from 10,000
to ``--max-n`` (1,000,000), prints the fit times as a markdown table with the slope of
log(time) against log(n) fitted per model (1 is linear; n log n shows as slightly above
1), and saves a log-log plot whose title states the machine and the date when matplotlib
is installed.

Trees are fully grown with each library's defaults (the single trees consider every
feature at each node). Forests have ``--n-estimators`` trees (10 by default, to keep the
full run to a few minutes: scikit-learn's single tree alone takes over a minute at 1M
rows on a 2-core machine) and use ``--n-jobs`` threads (2). A model whose fit takes longer
than ``--max-seconds`` is not run at larger n.

    python benchmarks/scaling.py                     # 10k to 1M, about 5 minutes on 2 cores
    python benchmarks/scaling.py --max-n 100000      # a quick look
"""
import argparse
import os
import sys
from datetime import date

import numpy as np
from sklearn.datasets import make_classification

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (best_time, header, installed, machine_description,  # noqa: E402
                    select_models, table_head, table_row)

KEYS = ("tree", "sk-tree", "forest", "sk-forest", "sk-extra", "rotation")


def models(n_estimators, n_jobs):
    """label -> factory of the models timed: common.py's registry entries KEYS."""
    return {label: make for label, make in
            select_models(KEYS, n_estimators, n_jobs).values()}


def sizes_up_to(max_n, min_n=10_000):
    """10k, 30k, 100k, 300k, 1M, ... up to max_n (max_n itself included)."""
    out, n = [], min_n
    while n <= max_n:
        out.append(n)
        n = n * 3 if str(n).startswith("1") else n * 10 // 3
    if not out or out[-1] != max_n:
        out.append(max_n)
    return out


def fitted_slope(ns, times):
    """Least-squares slope of log(time) against log(n) over the sizes that ran."""
    ok = np.isfinite(times)
    if ok.sum() < 2:
        return np.nan
    return float(np.polyfit(np.log(np.asarray(ns)[ok]), np.log(times[ok]), 1)[0])


def plot(path, ns, names, times, slopes, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.5))
    colors = plt.get_cmap("tab10")
    for m, name in enumerate(names):
        style = "-" if name.startswith("rotforest") else "--"
        ax.loglog(ns, times[:, m], style, marker="o", color=colors(m),
                  label=f"{name} (slope {slopes[m]:.2f})")
    ax.set_xlabel("training rows n (20 features)")
    ax.set_ylabel("fit time (s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=1_000_000)
    parser.add_argument("--n-estimators", type=int, default=10)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=300.0,
                        help="do not run a model at larger n once a fit took this long")
    parser.add_argument("--plot", default="scaling.png",
                        help="figure path (needs matplotlib; 'none' to skip)")
    parser.add_argument("--machine", help="machine description (default: detected)")
    parser.add_argument("--save-results", metavar="FILE.npz",
                        help="save the times, to redraw the table and figure later")
    parser.add_argument("--from-results", metavar="FILE.npz",
                        help="redraw the table and figure of a saved run (no fitting)")
    args = parser.parse_args(argv)

    if args.from_results:
        with np.load(args.from_results, allow_pickle=False) as saved:
            ns, names, times = list(saved["ns"]), [str(n) for n in saved["names"]], \
                saved["times"]
            head, title = [str(h) for h in saved["header"]], str(saved["title"])
        print("\n".join(head))
    else:
        ns, names, times, head, title = run_scaling(args)
        if args.save_results:
            np.savez(args.save_results, ns=np.array(ns), names=np.array(names),
                     times=times, header=np.array(head), title=np.array(title))
    slopes = [fitted_slope(ns, times[:, m]) for m in range(len(names))]

    print("\n" + table_head(["n", *names], "r" * (len(names) + 1)))
    for i, n in enumerate(ns):
        print(table_row([f"{n:,}", *("-" if np.isnan(t) else f"{t:.3f}" for t in times[i])]))
    print(table_row(["**slope**", *(f"{s:.2f}" for s in slopes)]))
    print("\nslope: least-squares fit of log(fit time) on log(n); fit times in seconds")

    if args.plot and args.plot.lower() != "none":
        if not installed("matplotlib"):
            print("(matplotlib is not installed: no figure)")
        else:
            plot(args.plot, ns, names, times, slopes, title)
            print(f"figure saved to {args.plot}")


def run_scaling(args):
    """Fit every model at every size; return the sizes, model names, times (sizes x
    models, NaN where not run), header lines and figure title."""
    ns = sizes_up_to(args.max_n)
    make = models(args.n_estimators, args.n_jobs)
    names = list(make)
    machine = args.machine or machine_description()
    today = date.today().isoformat()
    lines = [header("scaling", machine),
             f"# make_classification, 20 features; forests of {args.n_estimators} trees, "
             f"n_jobs={args.n_jobs}; one fit per cell"]
    print("\n".join(lines), flush=True)
    X, y = make_classification(n_samples=ns[-1], n_features=20, n_informative=10,
                               n_redundant=4, random_state=0)
    times = np.full((len(ns), len(names)), np.nan)
    stopped = set()
    for i, n in enumerate(ns):
        Xn, yn = np.ascontiguousarray(X[:n]), y[:n]
        for m, name in enumerate(names):
            if name in stopped:
                continue
            model = make[name]()
            times[i, m], _ = best_time(lambda: model.fit(Xn, yn))
            print(f"  n={n:>9,}  {name:<27} {times[i, m]:8.3f} s", flush=True)
            if times[i, m] > args.max_seconds:
                stopped.add(name)
    title = (f"Fit time against rows, log-log (make_classification, 20 features; "
             f"forests of {args.n_estimators} trees, n_jobs={args.n_jobs})\n"
             f"{machine}; {today}")
    return ns, names, times, lines, title


if __name__ == "__main__":
    main()
