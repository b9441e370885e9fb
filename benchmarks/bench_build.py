"""What the build costs and what its compiler options buy: the compile time of each
extension module under several options, and the speed of two builds of the package
side by side (each module's own work, the builds in turns).

    python benchmarks/bench_build.py --compile build/cp311
    python benchmarks/bench_build.py --speed DIR_A DIR_B [--rounds 5]

``--compile`` reruns the compile commands of a meson build directory (its
``compile_commands.json``, e.g. the editable install's ``build/cp311``) one at a time,
each at -O3 and -O2, with and without GCC's raised inlining limits, and prints the
seconds of each (one core busy: run it on a quiet machine).

``--speed`` takes two folders that each hold an installed ``rotforest`` (a wheel
unpacked: ``python -m zipfile -e rotforest-*.whl DIR``) and times, in a fresh process
per build and round, the work each extension module does: exact fits (``_builder``: a
deep regression tree, a random forest of 30 trees), binned fits (``_hist``: a forest of
10 trees on 400,000 rows), predictions (``_tree``: ``predict_proba`` and ``apply`` of
100 trees on 200,000 rows), SHAP values (``_explain``) and quantiles (``_quantile``).
Each round runs A then B or B then A (alternating); the table gives each build's median
and the median of the rounds' ratios B / A.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import header, markdown_table  # noqa: E402

# the inlining limits that meson.build gives the extensions that need them (GCC's)
INLINE = ["--param=max-inline-insns-single=3000", "--param=large-function-growth=1000"]


def _base(args):
    """A compile command without its optimisation level and inlining limits."""
    return [a for a in args if a not in ("-O2", "-O3") and not a.startswith("--param")]


VARIANTS = {
    "-O3, inlining limits": lambda a: _base(a) + ["-O3"] + INLINE,
    "-O3": lambda a: _base(a) + ["-O3"],
    "-O2, inlining limits": lambda a: _base(a) + ["-O2"] + INLINE,
    "-O2": lambda a: _base(a) + ["-O2"],
}


def compile_times(build_dir):
    """Seconds to compile each extension's C file under each variant of its command."""
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        commands = [c for c in json.load(f) if c["output"].endswith(".o")]
    rows = []
    with tempfile.TemporaryDirectory() as out:
        for c in commands:
            name = c["output"].split("__")[-1].split(".")[0]
            args = shlex.split(c["command"])
            row = [name]
            for variant, change in VARIANTS.items():
                a = change(list(args))
                a[a.index("-o") + 1] = os.path.join(out, f"{name}.o")
                start = time.perf_counter()
                subprocess.run(a, check=True, cwd=c["directory"],
                               stderr=subprocess.DEVNULL)
                row.append(f"{time.perf_counter() - start:.1f} s")
            rows.append(row)
            print(row, file=sys.stderr, flush=True)
    return rows


# the work of each module, timed in a child process (its own build on sys.path)
WORK = r'''
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
import rotforest
assert rotforest.__file__.startswith(sys.argv[1]), rotforest.__file__
from rotforest import (DecisionTreeRegressor, RandomForestClassifier,
                       RandomForestQuantileRegressor, explain)
rng = np.random.default_rng(0)
def data(n, p=20, classes=True):
    X = rng.normal(size=(n, p))
    z = X[:, 0] + X[:, 1] * X[:, 2] + np.sin(3 * X[:, 3]) + rng.normal(size=n)
    return X, ((z > 0).astype(int) if classes else z)
def timed(f):
    start = time.perf_counter(); f(); return time.perf_counter() - start
out = {}
X, y = data(100_000, classes=False)
out["_builder: deep regression tree, 100k x 20"] = timed(
    lambda: DecisionTreeRegressor(random_state=0).fit(X, y))
X, y = data(50_000)
out["_builder: forest of 30 trees, 50k x 20"] = timed(
    lambda: RandomForestClassifier(30, max_bins=None, random_state=0, n_jobs=1).fit(X, y))
X, y = data(400_000)
forest = RandomForestClassifier(10, max_bins=255, max_depth=14, random_state=0, n_jobs=1)
out["_hist: forest of 10 trees, 400k x 20"] = timed(lambda: forest.fit(X, y))
X, y = data(50_000)
forest = RandomForestClassifier(100, max_depth=12, random_state=0, n_jobs=1).fit(X, y)
Xt, _ = data(200_000)
out["_tree: predict_proba, 100 trees, 200k rows"] = timed(lambda: forest.predict_proba(Xt))
out["_tree: apply, 100 trees, 200k rows"] = timed(lambda: forest.apply(Xt))
small = RandomForestClassifier(20, max_depth=8, random_state=0, n_jobs=1).fit(X, y)
out["_explain: SHAP of 20 trees, 2,000 rows"] = timed(lambda: explain(small, Xt[:2000]))
X, y = data(20_000, classes=False)
qrf = RandomForestQuantileRegressor(50, random_state=0, n_jobs=1).fit(X, y)
out["_quantile: 3 quantiles, 50 trees, 20k rows"] = timed(
    lambda: qrf.predict(Xt[:20_000], quantiles=[0.1, 0.5, 0.9]))
print(json.dumps(out))
'''


def speed(dirs, rounds):
    """Each build's seconds per task, round by round (the builds in alternating turns)."""
    times = {d: [] for d in dirs}
    for r in range(rounds):
        for d in (dirs if r % 2 == 0 else dirs[::-1]):
            result = subprocess.run([sys.executable, "-c", WORK, os.path.abspath(d)],
                                    check=True, capture_output=True, text=True,
                                    cwd=tempfile.gettempdir())
            times[d].append(json.loads(result.stdout.strip().splitlines()[-1]))
            print(d, times[d][-1], file=sys.stderr, flush=True)
    a, b = dirs
    rows = []
    for task in times[a][0]:
        ta = np.array([t[task] for t in times[a]])
        tb = np.array([t[task] for t in times[b]])
        rows.append([task, f"{np.median(ta):.3f} s", f"{np.median(tb):.3f} s",
                     f"{np.median(tb / ta):.3f}"])
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile", metavar="BUILD_DIR")
    parser.add_argument("--speed", nargs=2, metavar=("DIR_A", "DIR_B"))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    print(header("bench_build.py"))
    if args.compile:
        print(markdown_table(["module"] + list(VARIANTS), compile_times(args.compile)))
    if args.speed:
        print(f"A: {args.speed[0]}\nB: {args.speed[1]}\n{args.rounds} rounds in turns\n")
        print(markdown_table(["work", "A (median)", "B (median)", "B / A (median of rounds)"],
                             speed(args.speed, args.rounds)))


if __name__ == "__main__":
    main()
