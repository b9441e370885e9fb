"""The comparison and scaling scripts in benchmarks/ run end to end on tiny settings and
produce the tables (and figures) the README and the docs show."""
import importlib.util
import os
import sys

import numpy as np
import pytest

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "benchmarks")


def _load(name):
    if BENCHMARKS not in sys.path:
        sys.path.insert(0, BENCHMARKS)       # scaling.py imports compare.py
    spec = importlib.util.spec_from_file_location(f"_bench_{name}",
                                                  os.path.join(BENCHMARKS, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def compare():
    return _load("compare")


def test_test_function_has_the_stated_noise(compare):
    X, y = compare.circles_sine_line(20_000, noise=0.0, random_state=0)
    _, noisy = compare.circles_sine_line(20_000, noise=0.1, random_state=0)
    assert X.shape == (20_000, 2) and X.min() >= 0 and X.max() <= 1
    assert 0.25 < y.mean() < 0.5                    # both classes well represented
    assert np.mean(noisy != y) == pytest.approx(0.1, abs=0.01)


def test_default_data_sets_need_no_download(compare):
    data = compare.default_datasets()
    assert {"iris", "wine", "breast_cancer", "digits", "circles_sine_line"} <= set(data)
    for X, y in data.values():
        assert X.dtype == np.float64 and y.dtype == np.int64 and len(X) == len(y)


def test_compare_runs_on_a_folder_and_prints_the_tables(compare, tmp_path, capsys):
    data = compare.default_datasets()
    folder = tmp_path / "data"
    compare.save_datasets({k: data[k] for k in ("iris", "wine")}, str(folder))
    # the saved files read back as the shared data sets do: X, y, names, no pickle
    with np.load(folder / "iris.npz", allow_pickle=False) as saved:
        assert set(saved.files) == {"X", "y", "feature_names", "class_names"}
    X = np.load(folder / "wine.npz")["X"].copy()
    X[::7, 0] = np.nan                               # missing cells are imputed
    np.savez(folder / "wine.npz", X=X, y=np.load(folder / "wine.npz")["y"])
    figure = tmp_path / "compare.png"
    saved = tmp_path / "results.npz"
    compare.main(["--data", str(folder), "--models", "tree,sk-tree,forest",
                  "--n-estimators", "5", "--cv", "3", "--plot", str(figure),
                  "--machine", "test machine", "--quiet", "--save-results", str(saved)])
    out = capsys.readouterr().out
    compare.main(["--from-results", str(saved), "--plot", "none"])
    # (the first run's word on its figure, saved or not drawn, is not repeated)
    assert capsys.readouterr().out == out.replace(f"\nfigure saved to {figure}\n", "").replace(
        "\n(matplotlib is not installed: no figure)\n", "")
    assert "test machine" in out
    assert "| iris | 150 x 4, 3 |" in out and "| wine | 178 x 13, 3 |" in out
    assert "| model | mean accuracy |" in out
    for label in ("rotforest tree", "sklearn tree", "rotforest random forest"):
        assert f"| {label} | 0." in out
    pytest.importorskip("matplotlib")
    assert figure.stat().st_size > 10_000


def test_compare_regression_task(compare, tmp_path, capsys):
    """--task regression: regressors scored by R^2 on K-fold splits of a folder of data
    sets with a float y; the saved results redraw the same tables."""
    data = compare.default_regression_datasets()
    assert all(y.dtype == np.float64 for _, y in data.values())
    folder = tmp_path / "data"
    compare.save_datasets({k: data[k] for k in ("diabetes", "friedman2")}, str(folder))
    saved = tmp_path / "results.npz"
    compare.main(["--task", "regression", "--data", str(folder), "--models",
                  "tree,sk-tree,forest,rotation", "--n-estimators", "5", "--cv", "3",
                  "--plot", "none", "--quiet", "--save-results", str(saved)])
    out = capsys.readouterr().out
    compare.main(["--from-results", str(saved), "--plot", "none"])
    assert capsys.readouterr().out == out
    assert "| diabetes | 442 x 10 |" in out and "| friedman2 | 2000 x 4 |" in out
    assert "| model | mean R^2 |" in out and "KFold" not in out
    for label in ("rotforest tree", "sklearn tree", "rotforest rotation forest"):
        assert f"| {label} | 0." in out


def test_compare_passes_nan_to_the_models_that_take_it(compare, tmp_path, capsys):
    X, y = compare.default_datasets()["wine"]
    X = X.copy()
    X[::5, 1] = np.nan
    np.savez(tmp_path / "wine_nan.npz", X=X, y=y)
    compare.main(["--data", str(tmp_path), "--models", "tree,rotation", "--n-estimators",
                  "5", "--cv", "3", "--nan", "native", "--plot", "none", "--quiet"])
    out = capsys.readouterr().out
    assert "missing cells: native" in out and "| wine_nan | 178 x 13, 3 |" in out


def test_compare_rejects_unknown_models(compare):
    with pytest.raises(SystemExit):
        compare.main(["--models", "tree,no-such-model", "--plot", "none"])


def test_scaling_sizes_and_slope():
    scaling = _load("scaling")
    assert scaling.sizes_up_to(1_000_000) == [10_000, 30_000, 100_000, 300_000, 1_000_000]
    assert scaling.sizes_up_to(50_000) == [10_000, 30_000, 50_000]
    ns = np.array([1e4, 1e5, 1e6])
    assert scaling.fitted_slope(ns, 3e-7 * ns ** 1.2) == pytest.approx(1.2)
    assert np.isnan(scaling.fitted_slope(ns, np.array([1.0, np.nan, np.nan])))


def test_scaling_runs(tmp_path, capsys):
    scaling = _load("scaling")
    saved = tmp_path / "scaling.npz"
    scaling.main(["--max-n", "12000", "--n-estimators", "2", "--plot", "none",
                  "--machine", "test machine", "--save-results", str(saved)])
    out = capsys.readouterr().out
    assert "| 12,000 |" in out and "| **slope** |" in out
    scaling.main(["--from-results", str(saved), "--plot", "none"])
    again = capsys.readouterr().out
    assert again.split("| n |", 1)[1] == out.split("| n |", 1)[1]     # same table


def test_coded_missing_cells_become_nan():
    bench = _load("bench_forest")
    X = np.array([[0.0, 0.0, 5.0, 0.0, 7.0, 0.0, 0.0, 0.0],
                  [1.0, 2.0, 0.0, 3.0, 0.0, 4.0, 0.0, 1.0]])
    out = bench.decode_missing("pima", X)
    expected = X.copy()
    for j in (1, 2, 3, 4, 5):                       # pregnancies (0) and the rest keep 0
        expected[X[:, j] == 0, j] = np.nan
    np.testing.assert_array_equal(out, expected)
    assert not np.isnan(X).any()                     # the caller's array is left alone
    adult = np.zeros((2, 14))
    adult[1] = 1.0
    decoded = bench.decode_missing("adult", adult)
    assert np.isnan(decoded).sum() == 3 and np.isnan(decoded[0, [1, 6, 13]]).all()
    assert bench.decode_missing("iris", X) is X


def test_rotation_benchmark_prints_the_hindsight_best(capsys):
    from sklearn.datasets import load_iris, load_wine
    from sklearn.dummy import DummyClassifier
    from sklearn.tree import DecisionTreeClassifier

    bench = _load("bench_rotation")
    make = {"dummy": lambda: DummyClassifier(), "tree": lambda: DecisionTreeClassifier(
        random_state=0), "stump": lambda: DecisionTreeClassifier(max_depth=1)}
    bench.accuracy(make, [("iris", load_iris(return_X_y=True)),
                          ("wine", load_wine(return_X_y=True))])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("| iris", "| wine"))]
    table = np.array([[float(v) for v in r.strip("| ").split(" | ")[1:]] for r in rows])
    best = table.max(axis=1).mean()
    assert f"mean accuracy {best:.4f}" in out
    for name, m in zip(make, table.mean(axis=0)):
        assert f"{100 * (best - m):.2f} points above {name}" in out


def test_forest_benchmark_scores_native_against_imputed(tmp_path, capsys):
    from sklearn.datasets import load_iris, load_wine

    bench = _load("bench_forest")
    X, y = load_wine(return_X_y=True)
    X = X[:, :8].copy()
    X[::9, 2] = np.nan                                # missing cells stored as NaN
    np.savez(tmp_path / "wine_nan.npz", X=X, y=y)
    Xp = np.abs(X[:, :8]).round(1)
    Xp[np.isnan(Xp)] = 0.0
    Xp[::4, 3] = 0.0                                  # coded as zeros, as in pima
    np.savez(tmp_path / "pima.npz", X=Xp, y=y)
    np.savez(tmp_path / "iris.npz", X=load_iris().data, y=load_iris().target)
    bench.main(["--missing", "--skip-missing-times", "--skip-synthetic", "--data",
                str(tmp_path), "--n-estimators", "3", "--n-jobs", "1", "--cv-repeats", "1",
                "--inject", "iris"])
    out = capsys.readouterr().out
    lines = {}                                        # first table: accuracies
    for line in out.splitlines():
        if line.startswith("| "):
            lines.setdefault(line.split(" | ")[0], line)
    assert "| pima (coded missing cells as NaN)" in lines
    assert "| wine_nan" in lines and "| iris (10% injected)" in lines
    share = float(lines["| pima (coded missing cells as NaN)"].split(" | ")[2].rstrip("%"))
    assert share == pytest.approx(100 * np.mean(np.isnan(bench.decode_missing("pima", Xp))),
                                  abs=0.06)
    assert out.count("| **mean of the 2 with real missing cells** |") == 2


def test_wide_benchmark_prints_models_ratios_and_targets(tmp_path, capsys):
    from sklearn.datasets import load_digits, load_iris

    bench = _load("bench_wide")
    X, y = load_digits(return_X_y=True)
    X = X.astype(np.float64)
    X[::6, 20] = np.nan                               # passed on or imputed, per model
    np.savez(tmp_path / "wide_digits.npz", X=X, y=y)
    np.savez(tmp_path / "narrow.npz", X=load_iris().data, y=load_iris().target)
    bench.main(["--data", str(tmp_path), "--max-rows", "150", "--synthetic", "50",
                "--n-estimators", "3", "--n-jobs", "1", "--skip-aeon",
                "--models", "forest,rotation,sk-forest,sk-extra"])
    out = capsys.readouterr().out
    assert out.startswith("# bench_wide: ") and "3 trees, n_jobs=1" in out
    header = next(line for line in out.splitlines() if line.startswith("| data set |"))
    for column in ("rotforest random forest", "rotforest rotation forest",
                   "sklearn random forest", "sklearn extra trees", "RF / skRF fit",
                   "RF - skRF accuracy (points)", "RoF / skRF fit"):
        assert f"| {column} |" in header
    assert "aeon" not in header and "narrow" not in out      # below --min-features
    rows = {line.split(" | ")[0][2:]: line.strip("| ").split(" | ")
            for line in out.splitlines() if line.startswith(("| wide_digits", "| synth"))}
    assert set(rows) == {"wide_digits", "synthetic_50"}
    assert rows["synthetic_50"][1:4] == ["150", "50", "3"]   # rows capped by --max-rows
    digits = rows["wide_digits"]
    assert abs(int(digits[1]) - 150) <= 5 and digits[2:4] == ["64", "10"]
    acc = [float(cell.split(" / ")[2]) for cell in digits[4:8]]
    assert all(0.3 < a <= 1 for a in acc)
    assert float(digits[9]) == pytest.approx(100 * (acc[0] - acc[2]), abs=0.011)
    targets = out.split("## Targets")[1]
    assert "fit / sklearn RF fit <= 0.5 on every data set: " in targets
    assert "no more than 0.5 points below sklearn RF (mean over 2 data sets)" in targets
    assert "mean accuracy over the wide sets: not measured" in targets   # none named
    assert "aeon fit / rotation forest fit >= 10" in targets and "not measured" in targets
    assert "| rotforest rotation forest | real | 1 |" in out
    assert "| sklearn extra trees | all | 2 |" in out


def test_wide_benchmark_checks_the_targets(tmp_path, capsys):
    bench = _load("bench_wide")

    def result(name, features, **fits):
        scores = {k: (fit, 0.01, 0.9) for k, fit in fits.items()}
        return dict(name=name, rows=100, features=features, classes=2,
                    synthetic=name.startswith("synthetic"), scores=scores)

    results = [result("cnae9", 856, forest=0.4, rotation=0.9, **{"sk-forest": 1.0}),
               result("digits", 64, forest=0.6, rotation=0.2, aeon=3.0,
                      **{"sk-forest": 1.0}),
               result("synthetic_2000", 2000, forest=0.4, rotation=1.6,
                      **{"sk-forest": 2.0})]
    bench.summary(results, {k: (k, None) for k in ("forest", "rotation", "sk-forest")})
    out = capsys.readouterr().out
    assert ("<= 0.5 on every data set: does NOT hold (2 of 3 data sets; misses: digits "
            "0.600); ratio of the total fit times 0.350") in out
    assert "(mean over 3 data sets): holds (mean difference +0.00 points" in out
    assert ("2,000 synthetic features: holds (2 of 2 data sets); ratio of the total fit "
            "times 0.833") in out
    assert "wide sets run (1): rotation forest 0.9000, sklearn RF 0.9000" in out
    assert ("250 features: holds (1 of 1 data sets); ratio of the total fit times "
            "15.000") in out
    assert "| forest | synthetic | 1 | 0.40 |" in out and "| sk-forest | all | 3 | 4.00 |" in out
    # no data folder: said so, and the synthetic part runs; K-fold on request
    bench.main(["--data", str(tmp_path / "none"), "--synthetic", "40", "--max-rows", "90",
                "--n-estimators", "2", "--n-jobs", "1", "--folds", "2",
                "--models", "forest,sk-forest"])
    out = capsys.readouterr().out
    assert "real data sets skipped" in out and "stratified 2-fold CV" in out
    assert "| synthetic_40 | 90 | 40 | 3 |" in out
    with pytest.raises(SystemExit):
        bench.main(["--models", "forest,no-such-model", "--synthetic"])


def test_wide_benchmark_imputes_for_models_without_nan_support():
    from sklearn.linear_model import LogisticRegression

    bench = _load("bench_wide")
    X, y = np.random.default_rng(0).normal(size=(60, 5)), np.arange(60) % 2
    X[::4, 1] = np.nan
    scores = bench.evaluate({"logistic": ("logistic", lambda: LogisticRegression()),
                             "aeon": ("aeon", None)}, X, y, None, False, "nan case")
    assert isinstance(scores["logistic"], tuple) and scores["aeon"] == "skipped"


def test_corrected_standard_error_by_hand():
    bench = _load("bench_accuracy")
    diffs = [0.01, 0.03, -0.01, 0.02]               # variance (ddof=1) 0.0002916...
    var = np.var(diffs, ddof=1)
    expected = np.sqrt((1 / 4 + 20 / 80) * var)      # 4 folds, 80 train / 20 test rows
    assert bench.corrected_se(diffs, 80, 20) == pytest.approx(expected)
    assert bench.corrected_se(diffs, 80, 20) > np.sqrt(var / 4)   # wider than naive
    assert np.isnan(bench.corrected_se([0.01], 80, 20))


def test_accuracy_benchmark_runs_paired_and_ranked(tmp_path, capsys):
    bench = _load("bench_accuracy")
    rng = np.random.default_rng(0)
    for name, shift in (("easy", 3.0), ("hard", 0.3)):
        X = rng.normal(size=(120, 5))
        y = (X[:, 0] + rng.normal(scale=1 / shift, size=120) > 0).astype(int)
        np.savez(tmp_path / f"{name}.npz", X=X, y=y)
    bench.main(["--data", str(tmp_path), "--models", "forest,sk-forest,tree",
                "--folds", "3", "--repeats", "2", "--n-estimators", "5", "--n-jobs", "1"])
    out = capsys.readouterr().out
    assert "3-fold stratified CV x 2 repeats" in out
    rows = [line for line in out.splitlines() if line.startswith(("| easy", "| hard"))]
    assert len(rows) == 2 and all(line.count("±") == 2 for line in rows)
    summary = out[out.index("## Summary over 2 data sets"):]
    ref = [line for line in summary.splitlines() if line.startswith("| sklearn random forest")]
    assert ref and "+0.00 ± 0.00 | 0 / 0" in ref[0]        # the reference against itself
    ranks = [float(line.split("|")[5]) for line in summary.splitlines()
             if line.startswith(("| rotforest", "| sklearn"))]
    assert len(ranks) == 3 and sum(ranks) == pytest.approx(6.0)   # ranks 1..3 per set
    assert "hindsight oracle" in summary
    with pytest.raises(SystemExit, match="unknown model keys"):
        bench.main(["--data", str(tmp_path), "--models", "forest,nope"])


def test_bench_regression_runs_every_part(tmp_path, capsys):
    bench = _load("bench_regression")
    rng = np.random.default_rng(0)
    for name in ("one", "two"):
        X = rng.normal(size=(120, 4))
        X[::9, 1] = np.nan                          # missing cells: imputed where needed
        np.savez(tmp_path / f"{name}.npz", X=X, y=X[:, 0] * 3 + rng.normal(size=120))
    bench.main(["--parts", "tree,forest,suite", "--sizes", "400", "--repeat", "1",
                "--forest-sizes", "300", "--n-estimators", "3", "--n-jobs", "1",
                "--data", str(tmp_path), "--folds", "2", "--repeats", "1"])
    out = capsys.readouterr().out
    assert "| 400 | squared_error |" in out and "| 400 | poisson |" in out
    assert "| 300 |" in out
    assert "| one | 120 | 4 |" in out and "| two | 120 | 4 |" in out
    assert "| rotforest RF - sklearn RF |" in out and "| rotforest RoF - sklearn ET |" in out


def test_bench_categorical_prints_native_against_encodings(tmp_path, capsys):
    """The categorical benchmark runs on a folder of data sets with a `categorical`
    array (classification and regression) and prints the comparison."""
    bench = _load("bench_categorical")
    rng = np.random.RandomState(0)
    for task, folder in (("cls", "datasets"), ("reg", "datasets_regression")):
        (tmp_path / folder).mkdir()
        X = np.column_stack([rng.randint(0, 6, 120), rng.randn(120)]).astype(float)
        X[::9, 0] = np.nan
        y = (X[:, 1] > 0).astype(int) if task == "cls" else X[:, 1] + np.nan_to_num(X[:, 0])
        np.savez(tmp_path / folder / f"toy_{task}.npz", X=X, y=y,
                 categorical=np.array([True, False]))
    results = bench.main(["--data", str(tmp_path / "datasets"), "--data-regression",
                          str(tmp_path / "datasets_regression"), "--n-estimators", "3",
                          "--repeats", "1", "--folds", "2", "--n-jobs", "1",
                          "--models", "ours-rf,ours-rof,sk-rf,sk-hgb"])
    out = capsys.readouterr().out
    assert set(results) == {"toy_cls", "toy_reg"}
    assert "| ours-rf |" in out and "| ours-rof |" in out and "fit native / one-hot" in out


def test_bench_methods_times_every_method(capsys):
    """bench_methods fits with each node method forced and with the builder's choice."""
    bench = _load("bench_methods")
    bench.main(["--only", "tree", "--repeat", "1", "--n-jobs", "1"])
    out = capsys.readouterr().out
    row = [line for line in out.splitlines() if line.startswith("| tree, all features")]
    assert len(row) == 1
    cells = [c.strip() for c in row[0].strip("|").split("|")]
    assert cells[1] == "rounded" and all(float(c) > 0 for c in cells[2:])


def test_wide_families_are_reproducible_and_of_their_kind():
    families = _load("wide_families")
    for family, _, _ in families.GRID:
        X, y = families.make(family, 120, 300, seed=1)
        X2, y2 = families.make(family, 120, 300, seed=1)
        np.testing.assert_array_equal(X, X2)
        np.testing.assert_array_equal(y, y2)
        assert X.dtype == np.float64 and len(y) == 120 and np.unique(y).size >= 2
        side = int(np.sqrt(300))
        assert X.shape[1] == (side * side if family == "images" else 300)
    counts, _ = families.make("counts", 200, 2000)
    assert np.all(counts == np.round(counts)) and np.mean(counts == 0) > 0.9
    binary, _ = families.make("binary", 200, 500)
    assert set(np.unique(binary)) == {0.0, 1.0}
    images, _ = families.make("images", 50, 256)
    assert images.min() == 0.0 and np.mean(images > 0) > 0.3
    for family, _, _ in families.REGRESSION_GRID:
        X, y = families.make(family, 80, 200, task="regression")
        assert X.shape == (80, 200) and y.dtype == np.float64
    with pytest.raises(ValueError, match="unknown classification family 'text'"):
        families.make("text", 10, 10)


def test_wide_default_benchmark_prints_the_targets(tmp_path, capsys):
    bench = _load("bench_wide_default")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 130))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    np.savez(tmp_path / "semeion.npz", X=X, y=y)           # a stand-in, by name
    results = bench.main(["--data", str(tmp_path), "--families", "signal",
                          "--max-rows", "90", "--folds", "3", "--repeats", "1",
                          "--n-estimators", "3", "--n-jobs", "1"])
    out = capsys.readouterr().out
    assert out.startswith("# bench_wide_default: classification")
    names = [r["name"] for r in results]
    assert names == ["semeion", "signal 90x200", "signal 90x1000", "signal 90x10000"]
    row = next(line for line in out.splitlines() if line.startswith("| semeion |"))
    cells = row.strip("| ").split(" | ")
    acc = [float(c) for c in cells[2:6]]          # the first four models
    assert acc == pytest.approx([results[0]["score"][k].mean() for k in bench.MODELS[:4]],
                                abs=5e-5)
    # the difference from the fold scores, the accuracies rounded to 4 places
    assert float(cells[9].split(" ± ")[0]) == pytest.approx(100 * (acc[0] - acc[2]),
                                                            abs=0.011)
    assert "default minus all axes: mean" in out and "median fit ratio" in out
    assert "| shared | 1 |" in out and "| signal | 3 |" in out


def test_wide_default_benchmark_checks_the_targets(capsys):
    bench = _load("bench_wide_default")

    def result(name, kind, scores, fits):
        return dict(name=name, kind=kind,
                    score={k: np.array([v]) for k, v in scores.items()},
                    fit={k: np.array([v]) for k, v in fits.items()})

    keys = ["rotation", "rotation-all", "sk-forest"]
    results = [result("a", "shared", dict(zip(keys, [0.90, 0.91, 0.88])), dict(zip(keys, [1, 5, 2]))),
               result("b", "signal", dict(zip(keys, [0.80, 0.79, 0.70])), dict(zip(keys, [4, 9, 1])))]
    checks = bench.summarize(results, keys, "classification")
    out = capsys.readouterr().out
    assert checks["mean vs all axes"][0] == pytest.approx(0.0)        # (-1 + 1) / 2
    assert checks["worst vs all axes"] == (pytest.approx(-1.0), True)
    assert checks["mean vs sk-forest"] == (pytest.approx(6.0), True)
    assert checks["median fit ratio"] == (pytest.approx(2.25), False)   # 0.5 and 4
    assert checks["largest fit ratio"] == (pytest.approx(4.0), False)
    assert "largest 4.00 on b" in out
    with pytest.raises(SystemExit):
        bench.main(["--models", "rotation-all,sk-forest"])          # no default


def test_shared_cv_matches_cross_val_score():
    """bench_accuracy.cross_validate_models, the benchmarks' one CV function, fits on the
    folds of scikit-learn's splitters and gives cross_val_score's scores, fold by fold;
    "native" imputes only for the models that do not take NaN, "impute" for all."""
    from sklearn.datasets import load_diabetes, load_wine
    from sklearn.impute import SimpleImputer
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.model_selection import (KFold, RepeatedStratifiedKFold, StratifiedKFold,
                                         cross_val_score)
    from sklearn.pipeline import make_pipeline
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    bench = _load("bench_accuracy")
    X, y = load_wine(return_X_y=True)
    X = X.copy()
    X[::7, 3] = np.nan
    models = {"tree": ("a tree", lambda: DecisionTreeClassifier(max_depth=3,
                                                                random_state=0)),
              "knn": lambda: KNeighborsClassifier()}
    res = bench.cross_validate_models({"wine": (X, y)}, models, folds=4, repeats=1)["wine"]
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    np.testing.assert_allclose(res["score"]["tree"], cross_val_score(
        DecisionTreeClassifier(max_depth=3, random_state=0), X, y, cv=cv))
    imputed = make_pipeline(SimpleImputer(strategy="median"), KNeighborsClassifier())
    np.testing.assert_allclose(res["score"]["knn"], cross_val_score(imputed, X, y, cv=cv))
    assert res["rows"] == 178 and res["classes"] == 3 and res["n_test"] == 44.5
    assert res["fit"]["tree"].shape == res["predict"]["tree"].shape == (4,)
    # the same folds, given back by splits(); repeats follow RepeatedStratifiedKFold
    ours = bench.splits(y, 3, repeats=2, seed=5)
    theirs = list(RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=5).split(X, y))
    assert len(ours) == 6
    for (a, b), (c, d) in zip(ours, theirs):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    # "impute" imputes for the tree as well: a different score where the NaN column counts
    both = bench.cross_validate_one({"tree": models["tree"]}, X, y, 4, nan="impute")
    np.testing.assert_allclose(both["score"]["tree"], cross_val_score(make_pipeline(
        SimpleImputer(strategy="median"), DecisionTreeClassifier(max_depth=3, random_state=0)),
        X, y, cv=cv))
    # regression: K-fold, R^2
    Xr, yr = load_diabetes(return_X_y=True)
    reg = bench.cross_validate_models([("diabetes", (Xr, yr))], {"tree": lambda: (
        DecisionTreeRegressor(max_depth=4, random_state=0))}, 3, task="regression")
    np.testing.assert_allclose(reg["diabetes"]["score"]["tree"], cross_val_score(
        DecisionTreeRegressor(max_depth=4, random_state=0), Xr, yr,
        cv=KFold(3, shuffle=True, random_state=0)))
    assert reg["diabetes"]["classes"] == 0


def test_shared_cv_paired_differences_and_errors():
    bench = _load("bench_accuracy")
    from sklearn.dummy import DummyClassifier
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    y = (X[:, 0] > 0).astype(int)

    def broken():
        raise RuntimeError("no")

    models = {"tree": lambda: DecisionTreeClassifier(random_state=0),
              "dummy": lambda: DummyClassifier(), "broken": broken}
    with pytest.raises(RuntimeError):
        bench.cross_validate_one(models, X, y, 3)
    seen = []
    res = bench.cross_validate_models(
        {"a": (X, y), "b": (X[:60], y[:60])}, models, 3, repeats=2, on_error="record",
        report=lambda name, r: seen.append(name),
        measure=lambda m: getattr(m, "tree_", None) is not None)
    assert seen == ["a", "b"] and "RuntimeError" in res["a"]["errors"]["broken"]
    assert "broken" not in res["a"]["score"] and res["a"]["measure"]["tree"].all()
    delta, mean, se = bench.paired(res["a"], "tree", "dummy")
    assert len(delta) == 6 and mean == pytest.approx(delta.mean())
    assert se == pytest.approx(bench.corrected_se(delta, 60, 30))
    v = bench.versus(res, "tree", "dummy")
    assert v["better"] == 2 and v["worse"] == 0 and len(v["means"]) == 2
    ranks, table = bench.mean_ranks(res, ["tree", "dummy"])
    assert list(ranks) == [1.0, 2.0] and table.shape == (2, 2)
    # max_rows: per-class sample, seed 0 afresh for every data set
    small = bench.cross_validate_models({"a": (X, y)}, {"tree": models["tree"]}, 3,
                                        max_rows=45)
    assert abs(small["a"]["rows"] - 45) <= 1      # per-class rounding


def test_common_tables_registry_and_loading(tmp_path):
    common = _load("common")
    assert common.markdown_table(["a", "bb"], [["x", 1.5], ["yyy", 22]]) == (
        "| a | bb |\n|---|---:|\n| x | 1.5 |\n| yyy | 22 |")
    assert common.markdown_table(["a", "bb"], [["x", 1.5]], align="ll", pad=True) == (
        "| a   | bb  |\n|-----|-----|\n| x   | 1.5 |")
    with pytest.raises(ValueError):
        common.table_head(["a", "b"], "l")
    for task in ("classification", "regression"):
        models = common.available_models(3, 1, task)
        assert {"tree", "sk-tree", "forest", "sk-forest", "sk-extra", "rotation",
                "sk-hgb"} <= set(models)
        label, make = models["sk-hgb"]
        assert type(make()).__name__ == ("HistGradientBoostingClassifier"
                                          if task == "classification"
                                          else "HistGradientBoostingRegressor")
    assert list(common.select_models(["rotation", "tree"], 3, 1)) == ["rotation", "tree"]
    with pytest.raises(SystemExit, match="unknown model keys"):
        common.select_models(["tree", "nope"], 3, 1)
    rng = np.random.default_rng(0)
    for name in ("b", "a"):
        np.savez(tmp_path / f"{name}.npz", X=rng.normal(size=(40, 2)),
                 y=np.r_[np.zeros(30), np.ones(8), np.full(2, 2)].astype(int))
    assert [n for n, _, _ in common.iter_folder(str(tmp_path))] == ["a", "b"]
    assert list(common.load_folder(str(tmp_path), ["b"])) == ["b"]
    X, y = common.load_folder(str(tmp_path))["a"]
    Xs, ys = common.prepared(X, y, 20, 3, np.random.default_rng(0), stratify=True)
    # 15 of class 0, 4 of class 1, and class 2 (2 rows, fewer than 3 folds) dropped
    assert np.bincount(ys).tolist() == [15, 4] and len(Xs) == 19
    assert common.header("x", "a machine").startswith("# x: ")


def test_bench_multioutput_quick_run(capsys):
    """bench_multioutput.py --quick: every part, both libraries, a row per model with
    its ratios and held-out scores; --sides times one library alone."""
    bench = _load("bench_multioutput")
    X, y = bench.classification_data(300, seed=1)
    assert X.shape == (300, 20) and y.shape == (300, 3)
    assert [np.unique(y[:, k]).size for k in range(3)] == [3, 4, 2]
    rows = bench.main(["--quick", "--n-jobs", "1"])
    out = capsys.readouterr().out
    assert out.startswith("# bench_multioutput: ")
    assert "## Multi-output targets: best of 1 fits" in out
    labels = [row[0] for row in rows]
    assert labels == ["RandomForestRegressor (10 trees, n_jobs=1)",
                      "RandomForestClassifier (10 trees, n_jobs=1)",
                      "DecisionTreeRegressor", "DecisionTreeClassifier"]
    for row in rows:
        assert f"| {row[0]} | 4,000 x 20 x 3 |" in out
        assert float(row[2]) > 0 and float(row[3]) > 0 and float(row[4]) > 0
        ours, theirs = (float(v) for v in row[8].split(": ")[1].split(" / "))
        assert abs(ours - theirs) < 0.1          # the same kind of model, seeded
        assert ours > (0.3 if "Classifier" in row[0] else 0.0)
    alone = bench.main(["--quick", "--parts", "trees", "--sides", "ours", "--n-jobs", "1"])
    capsys.readouterr()
    assert len(alone) == 2 and all(row[3] == "-" and row[4] == "-" for row in alone)
    with pytest.raises(SystemExit):
        bench.main(["--parts", "trees,no-such-part"])


def test_bench_extra_quick_run(capsys, tmp_path):
    """bench_extra.py on tiny settings: the speed part (both tasks, a ratio each, the
    same kind of model scoring alike) and the wide part on synthetic data; the
    accuracy part skips a missing folder."""
    bench = _load("bench_extra")
    bench.main(["--parts", "speed", "wide", "accuracy", "--rows", "3000",
                "--n-estimators", "5", "--n-jobs", "1", "--repeat", "1",
                "--synthetic-features", "100", "--data", str(tmp_path / "none"),
                "--regression-data", str(tmp_path / "none")])
    out = capsys.readouterr().out
    assert out.startswith("# bench_extra: ")
    lines = [line for line in out.splitlines() if line.startswith("| ")]
    speed = [line for line in lines if line.startswith(("| classification", "| regression"))]
    assert len(speed) == 2
    for line in speed:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert float(cells[4].strip("*")) > 0
        ours, theirs = float(cells[5]), float(cells[6])
        assert abs(ours - theirs) < 0.15 and ours > 0.3
    assert any(line.startswith("| synthetic 100 features | 2,000 x 100 |") for line in lines)
    assert "no classification sets" in out and "no regression sets" in out


def test_bench_quantile_runs_on_a_folder(tmp_path, capsys):
    """bench_quantile.py on two tiny sets: a row per set, the summary with a row per
    model (quantile-forest's when installed, with ratios), the memory table."""
    bench = _load("bench_quantile")
    rng = np.random.default_rng(0)
    for name in ("one", "two"):
        X = rng.normal(size=(160, 3))
        X[::9, 1] = np.nan                          # imputed for quantile-forest only
        np.savez(tmp_path / f"{name}.npz", X=X, y=X[:, 0] * 3 + rng.normal(size=160))
    results = bench.main(["--quick", "--data", str(tmp_path), "--datasets", "one,two",
                          "--n-jobs", "1", "--variants", "rot2:RotationForestQuantileRegressor:"
                          "min_samples_leaf=2,bootstrap=True", "--machine", "test machine"])
    out = capsys.readouterr().out
    assert out.startswith("# bench_quantile: ") and "test machine" in out
    assert set(results) == {"one", "two"}
    assert "| one | 160 |" in out and "| two | 160 |" in out
    for key in ("rf", "rot", "rot2"):
        assert f"\n| {key} | " in out
        for split in results["one"][key]:
            assert 0 <= split["raw"][0] <= 1 and 0 <= split["calibrated"][0] <= 1
            assert split["pinball"] > 0
    if importlib.util.find_spec("quantile_forest") is not None:
        assert "\n| qf | 1.000 |" in out
    assert "bytes per training row per tree" in out


def test_bench_quantile_defaults_quick_run(capsys):
    """bench_quantile_defaults.py --quick: a row per synthetic family, each with a paired
    difference, a positive corrected standard error and a verdict."""
    bench = _load("bench_quantile_defaults")
    rows = bench.main(["--quick"])
    out = capsys.readouterr().out
    assert out.startswith("# bench_quantile_defaults: ")
    assert [row[0] for row in rows] == list(bench.FAMILIES)
    for row in rows:
        assert row[2].endswith("%") and float(row[3].rstrip("%")) >= 0
        assert row[4] in ("better", "worse", "noise")
        assert f"| {row[0]} | {row[1]} |" in out


def test_bench_sparse_data_and_quick_run(capsys):
    """bench_sparse.py: its generated data are what the docstring says (a one-hot
    pipeline of 2,330 sparse columns, counts at the density asked for), and --quick runs
    every part in fork-server children: rows with times, memory and accuracy, the
    255-level refusal reported in the table, ratios, and a child over --memory-limit
    stopped and reported."""
    pytest.importorskip("pandas", reason="bench_sparse's data are a pandas DataFrame")
    bench = _load("bench_sparse")
    frame, y = bench.categorical_frame(300, seed=1)
    assert list(frame.columns) == bench.NUMERIC + bench.CATEGORICAL
    assert [len(frame[c].cat.categories) for c in bench.CATEGORICAL] == [2000, 300, 20]
    assert 0.3 < y.mean() < 0.7
    args = bench.parse([])
    encoder = bench.make_model("onehot", "sklearn", args, frame).steps[0][1]
    encoded = encoder.fit_transform(frame)
    assert encoded.format == "csr" and encoded.shape == (300, 2330)
    X, y, _ = bench.word_counts(400, 1000, 0.01, seed=1)
    assert X.format == "csr" and X.shape == (400, 1000)
    assert X.nnz / 400_000 == pytest.approx(0.01, rel=0.1)
    assert np.all(X.data == np.round(X.data)) and X.data.min() >= 1 and y.mean() == 0.5
    assert X.getnnz(axis=0)[0] > X.getnnz(axis=0)[-100:].max()      # Zipf: term 0 first

    results = bench.main(["--quick", "--n-jobs", "1", "--parts", "onehot,native,words",
                          "--large"])
    out = capsys.readouterr().out
    assert out.startswith("# bench_sparse: ")
    assert "# command: python benchmarks/bench_sparse.py --quick --n-jobs 1" in out
    assert list(results) == ["onehot", "native", "words", "large"]
    for part, models in results.items():
        assert list(models) == list(bench.MODELS[part])
        for key, r in models.items():
            if part == "native" and key == "ours" and "refused" in r:
                continue                  # today: at most 255 levels (city has 300)
            assert r["fit_s"] > 0 and 0.3 < r["accuracy"] <= 1, (part, key, r)
            assert r["peak_kb"] >= r["increment_kb"] >= 0 and r["peak_kb"] > 10_000
            assert f"| {bench.LABELS[part][key]} | {r['fit_s']:.2f} |" in out
    native = results["native"]["ours"]
    if "refused" in native:               # the error's first line in the table
        assert native["refused"].startswith("ValueError: categorical feature 'city'")
        assert f"| rotforest RF, native categories | refused: {native['refused']} |" in out
        assert "| ours / hgb | - |" in out
    assert bench._row("x", {"refused": "ValueError: boom", "load": 1.5}) == [
        "x", "refused: ValueError: boom", "-", "-", "-", "-", "-", "1.50"]
    assert out.count("| ours / sklearn | **") == 3
    assert "| ours-codes / hgb-codes | **" in out      # city (300 levels) as codes
    assert "Target, ours fits with a peak under 4 GB: fits" in out
    assert "| words | ours / sklearn |" in out

    stopped = bench.main(["--quick", "--n-jobs", "1", "--parts", "words",
                          "--memory-limit", "0.02"])
    capsys.readouterr()
    assert stopped["words"]["ours"] == {"refused": "stopped: RSS passed the 0.02 GB limit"}


SHARED_SETS = os.path.join(os.path.dirname(BENCHMARKS), "..", "shared", "datasets")


def test_category_orders_benchmark_quick(capsys):
    """bench_category_orders compares the three orders of more classes on paired folds
    (and resets the switch to the default afterwards)."""
    from rotforest import _builder
    bench = _load("bench_category_orders")
    before = _builder._set_category_orders(1)
    _builder._set_category_orders(before)
    bench.main(["--quick", "--data", "/nonexistent"])
    out = capsys.readouterr().out
    assert out.startswith("# bench_category_orders.py") and "1 - 0" in out
    assert _builder._set_category_orders(before) == before


@pytest.mark.parametrize("name, args", [
    ("bench_category_rare", ["--models", "rf"]),
    ("bench_category_support", []),
])
def test_category_benchmarks_on_a_shared_set(name, args, capsys):
    if not os.path.isdir(SHARED_SETS):
        pytest.skip("needs ../shared")
    bench = _load(name)
    bench.main(["--families", "shared", "--only", "australian", "--n-estimators", "3",
                "--repeats", "1", "--folds", "2", *args])
    out = capsys.readouterr().out
    assert "australian" in out and "shared-clf" in out and "±" in out


def test_native_against_one_hot_benchmark(capsys):
    pytest.importorskip("pandas", reason="the benchmark's data are a pandas DataFrame")
    bench = _load("bench_native_onehot")
    scores = bench.main(["--seeds", "1,2", "--rows", "2000", "--trees", "3", "--n-jobs", "1"])
    assert scores.shape == (2, 3) and np.all((scores > 30) & (scores <= 100))
    out = capsys.readouterr().out
    assert "native - one-hot:" in out and "sets - one-hot:" in out


def test_bench_large_quick_times_ours_beside_the_installed_peers(capsys):
    """bench_large.py --quick: a table row per model that is installed (rotforest
    always; XGBoost's and LightGBM's random forests when present, with the ratio to the
    faster of them), each from its own process, with a held-out accuracy."""
    bench = _load("bench_large")
    bench.main(["--quick", "--models", "rotforest", "xgboost", "lightgbm"])
    out = capsys.readouterr().out
    assert out.startswith("# bench_large.py: ") and "5,000 rows" in out
    rows = {line.split("|")[1].strip(): line for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| model")}
    assert "rotforest" in rows
    accuracy = float(rows["rotforest"].split("|")[5])
    assert 0.7 < accuracy <= 1.0
    peers = [p for p in ("xgboost", "lightgbm")
             if importlib.util.find_spec(p) is not None]
    assert sorted(set(rows) - {"rotforest"}) == sorted(peers)
    if not peers:
        assert "not installed, left out: lightgbm, xgboost" in out


def test_bench_binned_quick_times_both_builders_and_pairs_their_scores(capsys):
    """bench_binned.py --quick: the crossover table (both builders' fit times and their
    ratio, per task), the accuracy table of the synthetic families (the exact
    forest's score, the binned ones' paired differences, a mean row), the monotonic
    table (no step against a constraint), the categorical, Poisson, several-output,
    wide, forks', single trees' and rotation forests' ones."""
    bench = _load("bench_binned")
    bench.main(["--quick"])
    out = capsys.readouterr().out
    assert out.startswith("# bench_binned.py: ")
    tasks = [[c.strip() for c in line.split("|")[1:-1]] for line in out.splitlines()
             if line.startswith("| classification") or line.startswith("| regression")]
    crossover = ["|" + "|".join(cells) + "|" for cells in tasks if len(cells) == 5]
    assert len(crossover) == 2
    # the monotonic table: both builders per task, no step against a constraint
    constrained = [cells for cells in tasks if len(cells) == 7]
    assert [c[2] for c in constrained] == ["exact (max_bins=None)", "binned (255)"] * 2
    assert all(c[6] == "0" and c[3].endswith(" s") for c in constrained)
    # the categorical table: both builders per task, a score each
    sets = [cells for cells in tasks if len(cells) == 6 and "outputs" not in cells[0]]
    assert [c[2] for c in sets] == ["exact (max_bins=None)", "binned (255)"] * 2
    assert all(c[1] == "600" and -1.0 < float(c[5]) <= 1.0 for c in sets)
    counts = [[c.strip() for c in line.split("|")[1:-1]] for line in out.splitlines()
              if line.startswith("| poisson")]
    assert [c[2] for c in counts] == ["exact (max_bins=None)", "binned (255)"]
    assert all(float(c[6]) >= 0.0 for c in counts)
    several = [[c.strip() for c in line.split("|")[1:-1]] for line in out.splitlines()
               if " outputs |" in line]
    assert [c[0] for c in several] == ["classification, 2 outputs"] * 2 + [
        "regression, 3 outputs"] * 2
    assert "| 70 | 600 |" in out and "| exact |" in out
    # the forks' table: one row, its times and two ratios; the rotation forests' table:
    # one row, both builders' times and accuracies and their ratio
    rows600 = [[c.strip() for c in line.split("|")[1:-1]] for line in out.splitlines()
               if line.startswith("| 600 |")]
    forks = [cells for cells in rows600 if len(cells) == 7]
    rotation = [cells for cells in rows600 if len(cells) == 6]
    assert len(rotation) == 1 and rotation[0][1].endswith(" s")
    assert 0.0 <= float(rotation[0][2]) <= 1.0 and float(rotation[0][5]) > 0
    # the single trees' table: both tasks, both builders' scores, a ratio
    trees = [cells for cells in tasks if len(cells) == 8]
    assert [(c[0], c[2]) for c in trees] == [("classification", "full"),
                                             ("regression", "full")]
    assert all(c[3].endswith(" s") and float(c[7]) > 0 for c in trees)
    assert len(forks) == 1 and len(forks[0]) == 7
    assert all(forks[0][i].endswith(" s") for i in (1, 2, 4, 5))
    assert float(forks[0][3]) > 0 and float(forks[0][6]) > 0
    from rotforest import _hist, tree
    assert tree._FORK_ROWS == _hist.FORK_ROWS       # (the quick run's setting undone)
    for line in crossover:
        cells = [c.strip() for c in line.split("|")[1:-1]]
        assert cells[1] == "600" and cells[2].endswith(" s") and cells[3].endswith(" s")
        assert float(cells[4]) > 0     # (times of tiny fits: their rounding, no ratio)
    assert "| fine-periodic |" in out and "| rare-threshold |" in out
    assert "| mean over 2 |" in out
