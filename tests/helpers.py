"""Data generators shared by the tests, and the installed scikit-learn's version."""
import importlib

import numpy as np
import sklearn
from packaging.version import Version
from scipy.stats import rankdata
from sklearn.datasets import make_classification

# The tests that take scikit-learn as the oracle compare against the behaviour of the
# installed release; where it changed between the oldest release that pyproject.toml
# admits (1.6) and the newest, a test asks sklearn_at_least(...) and says which release
# changed what.
SKLEARN_VERSION = Version(sklearn.__version__).release


def sklearn_at_least(version):
    """Whether the installed scikit-learn is release ``version`` ("1.8") or later."""
    return SKLEARN_VERSION >= tuple(int(part) for part in version.split("."))


def tie_free_data(n_samples, n_features, n_classes, seed):
    """Classification data whose every column is a permutation of 0..n-1 (exact in float32,
    no two values closer than 1), so scikit-learn's float32 trees see the same values."""
    X, y = make_classification(
        n_samples=n_samples, n_features=n_features, n_informative=min(n_features, 5),
        n_redundant=0, n_classes=n_classes, n_clusters_per_class=2, flip_y=0.05,
        random_state=seed,
    )
    X = np.column_stack([rankdata(X[:, j], method="ordinal") - 1 for j in range(n_features)])
    return X.astype(np.float32).astype(np.float64), y




def counting_pools(monkeypatch):
    """Patches rotforest._parallel so that every thread pool it starts, and every joblib
    Parallel it makes, appends its number of workers to the returned list."""
    import concurrent.futures

    import joblib

    import rotforest._parallel

    started = []

    class Counting(concurrent.futures.ThreadPoolExecutor):
        def __init__(self, max_workers=None, **kwargs):
            started.append(max_workers)
            super().__init__(max_workers, **kwargs)

    def counting(*args, n_jobs=None, **kwargs):
        started.append(n_jobs)
        return joblib.Parallel(*args, n_jobs=n_jobs, **kwargs)

    monkeypatch.setattr(rotforest._parallel, "ThreadPoolExecutor", Counting)
    monkeypatch.setattr(rotforest._parallel, "Parallel", counting)
    return started


def optional_module(name):
    """The module ``name``, or None where it (an optional package) is not installed: for
    tests that skip by marker on its absence and still run the rest of their file."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def trees_of(forest):
    """A forest's trees themselves: a rotation forest's ``rotated_estimators_`` (its
    ``estimators_`` take X and project it), any other forest's ``estimators_``."""
    return list(getattr(forest, "rotated_estimators_", None) or forest.estimators_)
