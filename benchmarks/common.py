"""What the benchmark scripts share: the machine header that every table states (with
whether rotforest's AVX-512 kernels ran), the versions, a best-of-n timer, the shared
data sets' loading and row sampling, the registry of named models (``available_models``,
``select_models``) and a markdown table printer.  Import it from a script in this folder
(``from common import ...``); the scripts put this folder on the path.

Accuracy (or R^2) by cross-validation on the shared sets is measured in one place, by
``cross_validate_models`` in ``bench_accuracy.py``, which builds on this module."""
import glob
import importlib
import importlib.util
import os
import platform
import time
from datetime import date

import numpy as np
import sklearn
from sklearn.base import BaseEstimator
from sklearn.metrics import r2_score

import rotforest


def best_time(fn, repeat=1):
    """The best wall time of ``repeat`` calls of fn, and the last call's result."""
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def kernels():
    """Which of rotforest's split kernels run here: "AVX-512" or "portable" (no AVX-512
    on the processor, or ROTFOREST_NO_AVX512 set)."""
    from rotforest import _builder
    previous = _builder._set_simd(True)      # what the processor allows ...
    _builder._set_simd(previous)             # ... put back as the environment set it
    return "AVX-512" if previous else "portable"


def machine_description():
    """CPU model, cores, AVX-512 (and whether rotforest's kernels use it), memory and
    OS, as far as this platform tells."""
    cpu, avx512, mem = platform.processor() or platform.machine(), False, None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                elif line.startswith("flags"):
                    avx512 = "avx512f" in line.split()
                    break
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) / 2 ** 20      # kB -> GiB
    except OSError:
        pass
    parts = [cpu, f"{os.cpu_count()} cores"]
    if avx512:
        parts.append("AVX-512")
    parts.append(f"rotforest kernels: {kernels()}")
    if mem is not None:
        parts.append(f"{mem:.0f} GB")
    parts.append(f"{platform.system()} {platform.machine()}")
    return ", ".join(parts)


def versions():
    out = [f"Python {platform.python_version()}", f"rotforest {rotforest.__version__}",
           f"scikit-learn {sklearn.__version__}", f"numpy {np.__version__}"]
    try:
        import aeon
        out.append(f"aeon {aeon.__version__}")
    except ImportError:
        pass
    return ", ".join(out)


def installed(module):
    """Whether ``module`` can be imported here (found, not imported)."""
    return importlib.util.find_spec(module) is not None


def header(script, machine=None):
    """The first line of a script's output: its name, the date, the machine (detected
    unless given) and the versions."""
    return (f"# {script}: {date.today()}; {machine or machine_description()}; "
            f"{versions()}")


def status_kb(field):
    """A field of /proc/self/status in KB (VmRSS, VmHWM: the resident set and its peak)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def reset_peak():
    """Reset the peak RSS (VmHWM) to the current RSS; False where the kernel does not
    allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def dataset_names(folder):
    """The names of the NAME.npz files in ``folder``, sorted."""
    return [os.path.basename(p)[:-4]
            for p in sorted(glob.glob(os.path.join(folder, "*.npz")))]


def iter_folder(folder, names=None):
    """(name, X, y) of every NAME.npz in ``folder`` (or of those in ``names``), one at a
    time, in name order (read without pickle; X as float64)."""
    for name in dataset_names(folder):
        if names is not None and name not in names:
            continue
        with np.load(os.path.join(folder, name + ".npz"), allow_pickle=False) as data:
            X, y = data["X"].astype(np.float64), data["y"]
        yield name, X, y


def load_folder(folder, names=None):
    """name -> (X, y) for every NAME.npz in ``folder`` (or those in ``names``)."""
    out = {name: (X, y) for name, X, y in iter_folder(folder, names)}
    if not out:
        raise SystemExit(f"no .npz data sets in {folder!r}")
    return out


def prepared(X, y, max_rows, n_folds, rng, task="classification", stratify=False):
    """At most ``max_rows`` rows drawn at random; classes with fewer rows than folds
    dropped (stratified folds need one per fold).  ``stratify=True`` draws the same
    fraction of every class, at least 3 rows of each (classification only)."""
    if max_rows is not None and len(y) > max_rows:
        if stratify and task != "regression":
            keep = []
            for c in np.unique(y):
                idx = np.flatnonzero(y == c)
                k = max(min(3, len(idx)), int(round(len(idx) * max_rows / len(y))))
                keep.append(rng.choice(idx, size=k, replace=False))
            keep = np.sort(np.concatenate(keep))
        else:
            keep = np.sort(rng.choice(len(y), max_rows, replace=False))
        X, y = X[keep], y[keep]
    if task == "regression":
        return X, y.astype(np.float64)
    classes, counts = np.unique(y, return_counts=True)
    ok = np.isin(y, classes[counts >= (n_folds or 0)])
    return X[ok], y[ok]


# ------------------------------------------------------------------------------ tables


def table_head(columns, align=None):
    """The first two lines of a markdown table: the column names and the alignment row.
    ``align`` has one letter a column, "l" (left, written ``---``) or "r" (right,
    ``---:``); by default the first column is left-aligned and the others right."""
    align = align or "l" + "r" * (len(columns) - 1)
    if len(align) != len(columns):
        raise ValueError(f"{len(columns)} columns but alignment {align!r}")
    return ("| " + " | ".join(map(str, columns)) + " |\n|"
            + "".join("---:|" if a == "r" else "---|" for a in align))


def table_row(cells):
    """One markdown table row of the cells as given (already formatted)."""
    return "| " + " | ".join(map(str, cells)) + " |"


def markdown_table(columns, rows, align=None, pad=False):
    """A whole markdown table; ``pad=True`` pads every cell to its column's width (left-
    or right-justified by ``align``), for reading in a terminal."""
    align = align or "l" + "r" * (len(columns) - 1)
    if not pad:
        return "\n".join([table_head(columns, align)] + [table_row(r) for r in rows])
    text = [[str(c) for c in columns]] + [[str(c) for c in r] for r in rows]
    width = [max(3, *(len(r[j]) for r in text)) for j in range(len(columns))]

    def line(cells):
        return "| " + " | ".join(c.rjust(w) if a == "r" else c.ljust(w)
                                 for c, w, a in zip(cells, width, align)) + " |"

    rule = "|" + "|".join("-" * (w + 1) + ":" if a == "r" else "-" * (w + 2)
                          for w, a in zip(width, align)) + "|"
    return "\n".join([line(text[0]), rule] + [line(r) for r in text[1:]])


# ------------------------------------------------------------------------------ models


def accepts_nan(model):
    """Whether the estimator says (by scikit-learn's tags) that it handles NaN itself; a
    pipeline, whether its first step does (an imputer does)."""
    steps = getattr(model, "steps", None)
    if steps:
        return accepts_nan(steps[0][1])
    try:
        return bool(model.__sklearn_tags__().input_tags.allow_nan)
    except AttributeError:
        return False


class YdfForest(BaseEstimator):
    """Yggdrasil Decision Forests' random forest (the ``ydf`` package, an optional peer)
    behind scikit-learn's fit / predict / predict_proba, with ydf's defaults but the
    number of trees, the threads and the seed; ``oblique=True`` takes its sparse
    oblique splits (projections on a few random features a node), axis-aligned splits
    otherwise.  Missing values (NaN) are ydf's own business."""

    def __init__(self, n_estimators=100, oblique=False, task="classification", n_jobs=1,
                 random_state=0):
        self.n_estimators = n_estimators
        self.oblique = oblique
        self.task = task
        self.n_jobs = n_jobs
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.estimator_type = "classifier" if self.task == "classification" else "regressor"
        return tags

    @staticmethod
    def _columns(X):
        X = np.asarray(X, dtype=np.float64)
        return {f"f{j}": X[:, j] for j in range(X.shape[1])}

    def fit(self, X, y):
        import ydf
        data = self._columns(X)
        if self.task == "classification":
            self.classes_, codes = np.unique(y, return_inverse=True)
            data["label"] = codes.astype(np.int64)
            task = ydf.Task.CLASSIFICATION
        else:
            data["label"] = np.asarray(y, dtype=np.float64)
            task = ydf.Task.REGRESSION
        learner = ydf.RandomForestLearner(
            label="label", task=task, num_trees=self.n_estimators,
            split_axis="SPARSE_OBLIQUE" if self.oblique else "AXIS_ALIGNED",
            random_seed=self.random_state, num_threads=max(1, self.n_jobs),
            compute_oob_performances=False)
        self.model_ = learner.train(data, verbose=0)
        return self

    def predict_proba(self, X):
        p = np.asarray(self.model_.predict(self._columns(X)), dtype=np.float64)
        if p.ndim == 1:                  # two classes: the second label's probability
            p = np.column_stack([1.0 - p, p])
        # ydf's columns follow its label classes (the codes, as strings): back to codes
        order = np.array([int(c) for c in self.model_.label_classes()])
        out = np.zeros((p.shape[0], len(self.classes_)))
        out[:, order] = p
        return out

    def predict(self, X):
        if self.task == "classification":
            return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
        return np.asarray(self.model_.predict(self._columns(X)), dtype=np.float64)

    def score(self, X, y):
        if self.task == "classification":
            return float(np.mean(self.predict(X) == y))
        return r2_score(y, self.predict(X))


def _classes(task):
    """The estimator classes of a task: rotforest's tree, forest and rotation forest;
    scikit-learn's tree, forest, extra trees and histogram gradient boosting; the
    module aeon keeps its rotation forest in."""
    from sklearn import ensemble, tree
    if task == "classification":
        return (rotforest.DecisionTreeClassifier, rotforest.RandomForestClassifier,
                rotforest.RotationForestClassifier, tree.DecisionTreeClassifier,
                ensemble.RandomForestClassifier, ensemble.ExtraTreesClassifier,
                ensemble.HistGradientBoostingClassifier, "aeon.classification.sklearn")
    if task == "regression":
        return (rotforest.DecisionTreeRegressor, rotforest.RandomForestRegressor,
                rotforest.RotationForestRegressor, tree.DecisionTreeRegressor,
                ensemble.RandomForestRegressor, ensemble.ExtraTreesRegressor,
                ensemble.HistGradientBoostingRegressor, "aeon.regression.sklearn")
    raise ValueError(f"unknown task {task!r}")


# the rotation forest's settings that are not its default, measured against it; shown
# only when asked for by key (compare.py's default run leaves them out)
VARIANTS = ("rotation-all", "rotation-sqrt", "rotation-third", "rotation-range",
            "rotation-std", "rotation-entropy", "rotation-gaussian")


def available_models(n_estimators, n_jobs, task="classification"):
    """Short key -> (label, factory) of every model that can run here, in table order:
    classifiers, or regressors for ``task="regression"`` (the same keys).  Forests have
    ``n_estimators`` trees and ``n_jobs`` threads; everything else is each library's
    default, with ``random_state=0``."""
    tree, forest, rotation, sk_tree, sk_forest, sk_extra, sk_hgb, aeon = _classes(task)
    extra = (rotforest.ExtraTreesClassifier if task == "classification"
             else rotforest.ExtraTreesRegressor)
    models = {
        "tree": ("rotforest tree", lambda: tree(random_state=0)),
        "sk-tree": ("sklearn tree", lambda: sk_tree(random_state=0)),
        "forest": ("rotforest random forest", lambda: forest(
            n_estimators, n_jobs=n_jobs, random_state=0)),
        "sk-forest": ("sklearn random forest", lambda: sk_forest(
            n_estimators, n_jobs=n_jobs, random_state=0)),
        "extra": ("rotforest extra trees", lambda: extra(
            n_estimators, n_jobs=n_jobs, random_state=0)),
        "sk-extra": ("sklearn extra trees", lambda: sk_extra(
            n_estimators, n_jobs=n_jobs, random_state=0)),
        "rotation": ("rotforest rotation forest", lambda: rotation(
            n_estimators, n_jobs=n_jobs, random_state=0)),
    }
    # the rotation forest with the other task's feature scaling (to measure the default)
    other = "range" if task == "classification" else "std"
    models[f"rotation-{other}"] = (f"rotforest rotation forest, {other} scaling",
                                   lambda: rotation(n_estimators, scaling=other,
                                                    n_jobs=n_jobs, random_state=0))
    # Gaussian random rotations instead of PCA
    models["rotation-gaussian"] = ("rotforest rotation forest, gaussian rotations",
                                   lambda: rotation(n_estimators, rotation="gaussian",
                                                    n_jobs=n_jobs, random_state=0))
    if task == "classification":
        # the other criterion (to measure the default)
        models["rotation-entropy"] = ("rotforest rotation forest, entropy",
                                      lambda: rotation(n_estimators, criterion="entropy",
                                                       n_jobs=n_jobs, random_state=0))
        # the wide-data speed setting: sqrt of a tree's axes drawn at each node
        models["rotation-sqrt"] = ("rotforest rotation forest, sqrt axes",
                                   lambda: rotation(n_estimators, max_features="sqrt",
                                                    n_jobs=n_jobs, random_state=0))
        # every axis at every node (the default on data of at most 100 rotated features)
        models["rotation-all"] = ("rotforest rotation forest, all axes",
                                  lambda: rotation(n_estimators, max_features=None,
                                                   n_jobs=n_jobs, random_state=0))
        models["rotation-third"] = ("rotforest rotation forest, a third of the axes",
                                    lambda: rotation(n_estimators, max_features=1 / 3,
                                                     n_jobs=n_jobs, random_state=0))
    models["sk-hgb"] = ("sklearn hist gradient boosting", lambda: sk_hgb(random_state=0))
    try:
        aeon_rotation = getattr(importlib.import_module(aeon), rotation.__name__)
    except ImportError:
        pass
    else:
        models["aeon"] = ("aeon rotation forest", lambda: aeon_rotation(
            n_estimators=n_estimators, n_jobs=n_jobs, random_state=0))
    if installed("ydf"):
        # Yggdrasil Decision Forests' random forests: axis-aligned, and with its sparse
        # oblique splits (random projections on a few features at each node)
        models["ydf-forest"] = ("ydf random forest", lambda: YdfForest(
            n_estimators, task=task, n_jobs=n_jobs))
        models["ydf-oblique"] = ("ydf sparse oblique forest", lambda: YdfForest(
            n_estimators, oblique=True, task=task, n_jobs=n_jobs))
    try:
        # treeple's oblique random forest (compiled against its own scikit-learn
        # release: 0.10.3 imports beside scikit-learn 1.6, not 1.9)
        treeple = importlib.import_module("treeple")
        oblique = getattr(treeple, "ObliqueRandomForestClassifier" if task == "classification"
                          else "ObliqueRandomForestRegressor")
    except (ImportError, ValueError, AttributeError):
        pass
    else:
        models["treeple-oblique"] = ("treeple oblique forest", lambda: oblique(
            n_estimators=n_estimators, n_jobs=n_jobs, random_state=0))
    return models


def select_models(keys, n_estimators, n_jobs, task="classification"):
    """key -> (label, factory) of the named models, in the order given; SystemExit
    naming the unknown or unavailable keys."""
    known = available_models(n_estimators, n_jobs, task)
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise SystemExit(f"unknown model keys {unknown} (or not installed); choose "
                         f"among {list(known)}")
    return {k: known[k] for k in keys}
