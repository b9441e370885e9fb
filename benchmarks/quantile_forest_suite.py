"""Runs quantile-forest's own test file on rotforest's quantile forests.

    python benchmarks/quantile_forest_suite.py            # needs quantile-forest installed

quantile-forest (``pip install quantile-forest``, the benchmark extra) ships its tests
in its wheel.  This copies its ``tests/test_quantile_forest.py`` into a temporary
folder beside a stand-in ``quantile_forest`` package whose two estimators are ours
(its compiled helpers, which its utility tests call, are its own), points the file's
scikit-learn ``RandomForestRegressor``/``ExtraTreesRegressor`` (which it fits with the
same ``random_state`` and compares mean predictions with) at ours, whose trees these
are, runs it with pytest and prints the failures by test and by reason.  The
documented differences are in docs/user_guide/quantile.md ("quantile-forest's
interface")."""
import argparse
import collections
import importlib.util
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

SHIM = '''from rotforest import ExtraTreesQuantileRegressor, RandomForestQuantileRegressor
__version__ = "rotforest"
'''
SKLEARN_IMPORT = "from sklearn.ensemble import ExtraTreesRegressor, RandomForestRegressor"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default=None, help="pytest -k expression")
    args = parser.parse_args(argv)
    spec = importlib.util.find_spec("quantile_forest")
    if spec is None:
        sys.exit("quantile-forest is not installed: pip install quantile-forest")
    source = pathlib.Path(spec.origin).parent
    tests = source / "tests" / "test_quantile_forest.py"
    if not tests.exists():
        sys.exit(f"{tests} not found: this quantile-forest ships no tests")
    with tempfile.TemporaryDirectory() as tmp:
        package = pathlib.Path(tmp) / "quantile_forest"
        shutil.copytree(source, package, ignore=shutil.ignore_patterns("tests"))
        (package / "__init__.py").write_text(SHIM)
        text = tests.read_text()
        if SKLEARN_IMPORT not in text:
            sys.exit("the test file's scikit-learn import changed; update this script")
        text = text.replace(SKLEARN_IMPORT,
                            "from rotforest import ExtraTreesRegressor, RandomForestRegressor")
        (pathlib.Path(tmp) / "test_qf.py").write_text(text)
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "--tb=line", "-rf", "test_qf.py"] + (["-k", args.k] if args.k else [])
        run = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
    out = run.stdout
    failed = collections.Counter(re.sub(r"\[.*", "", m)
                                 for m in re.findall(r"^FAILED test_qf.py::(\S+)", out, re.M))
    reasons = collections.Counter(line.strip()[:110] for line in out.splitlines()
                                  if line.startswith("E "))
    print(out.strip().splitlines()[-1] if out.strip() else run.stderr[-2000:])
    print("\nfailures by test:")
    for name, count in sorted(failed.items()):
        print(f"  {count:4d}  {name}")
    print("\nfailures by reason:")
    for reason, count in reasons.most_common(20):
        print(f"  {count:4d}  {reason}")


if __name__ == "__main__":
    main()
