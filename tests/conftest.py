import os

import numpy as np
import pytest


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "sklearn_suite: runs scikit-learn's own test files against our classes; skipped "
        "when the environment sets ROTFOREST_SKLEARN_SUITES=0")
    config.addinivalue_line(
        "markers",
        "thread_unsafe: scikit-learn's marker (for pytest-run-parallel) in its test files "
        "that the sklearn_suite modules run; no effect here")


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(autouse=True)
def threads_on_small_data(monkeypatch):
    """The forests give their trees fewer threads than n_jobs on small data (see
    rotforest._parallel._grow_in_threads), and the presort's column passes fewer threads on
    few cells.  The tests' data are small: here every n_jobs > 1 fit uses its threads,
    so that the tests of results that n_jobs must not change still run them in threads.
    (test_forest's tests of the choice itself undo this.)"""
    import rotforest._parallel

    monkeypatch.setattr(rotforest._parallel, "_TREE_SECONDS_TO_THREAD", 0.0)
    monkeypatch.setattr(rotforest._parallel, "_TREE_SECONDS_PER_THREAD", 1e-12)
    monkeypatch.setattr(rotforest._parallel, "_CELLS_PER_THREAD_SHIFT", 0)


@pytest.fixture(scope="module")
def binary_data():
    """300 rows of 4 standard normal features; a binary label from the first two plus
    noise.  The shared data of the edge-case tests (warm starts, weights, parameters)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] + rng.normal(scale=0.5, size=300) > 0).astype(int)
    return X, y


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """scikit-learn's own test suites (test_sklearn_*.py, read from the installed
    scikit-learn): deselect and mark xfail the tests listed in sklearn_suites.py for the
    installed release.  (First, so that the lists see every collected test before -k or
    -m deselects some.)

    ROTFOREST_SKLEARN_SUITES=0 is a user's opt-out: the suites are not run (the modules
    skip as they load), nor the tests marked sklearn_suite."""
    import sklearn_suites

    sklearn_suites.apply_lists(config, items)
    if os.environ.get("ROTFOREST_SKLEARN_SUITES", "1") != "0":
        return
    skip = pytest.mark.skip(reason="ROTFOREST_SKLEARN_SUITES=0: scikit-learn's own "
                                   "test files are not run")
    for item in items:
        if item.get_closest_marker("sklearn_suite") is not None:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter):
    """Which listed entries of the suites the installed scikit-learn's files lack (tests
    added or removed by a release), and listed patterns that matched no test."""
    import sklearn_suites

    for line in sklearn_suites.summary_lines():
        terminalreporter.write_line(line)
