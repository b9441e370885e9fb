"""scikit-learn's own tree and forest tests, run on our estimators.

The test files are read from the *installed* scikit-learn (they ship in its wheel; no
copy is kept here), rewritten so that our classes stand where scikit-learn's were, and
executed as a module whose test functions the thin ``test_sklearn_*.py`` files expose to
pytest.  The rewrite works on the syntax tree:

- the names in ``swap`` are taken out of the ``from sklearn... import`` statements and
  imported from rotforest instead, under the same names, so every use in the file (the
  dictionaries of estimators that ``parametrize`` reads at import, and direct calls) is
  ours;
- the classes in ``drop`` (scikit-learn's RandomTreesEmbedding, which rotforest does not
  have, and the rotation-forest suite's extra trees, tested by the random-forest one) are
  removed from the module-level dictionaries and lists of estimators and from the values
  of every ``pytest.mark.parametrize``; a test that still uses one directly must be in
  ``DESELECT`` (the loader refuses to load otherwise);
- a name the rewrite expects and does not find (a new scikit-learn release renamed or
  moved it), or a use of scikit-learn's class it cannot replace, raises: a new release
  cannot silently test scikit-learn's own classes.

Below, for each suite: the tests deselected (scikit-learn internals, or a class we do not
have) and the tests expected to fail (``xfail(strict=True)``: one that starts passing
fails the run and is taken off the list), each as ``reason: [patterns]``.  A pattern is a
test function's name (all its parametrizations) or ``name[ids]``, where ``ids`` is matched
against the test's parameter id with fnmatch's ``*`` and ``?``.  ``conftest.py`` applies them.
"""
import ast
import fnmatch
import importlib.util
import os
import sys
import types
from pathlib import Path

import pytest

# --------------------------------------------------------------------------- the lists

# Deselection reasons.
_EXTRA_TREES_ELSEWHERE = ("ExtraTreesClassifier/Regressor only (rotforest's extra trees "
                          "are tested by the random-forest suite)")
_EMBEDDING = "RandomTreesEmbedding only (an embedding by extremely randomized trees)"
_TREE_INTERNALS = ("scikit-learn's Cython internals (its Tree class and node arrays, "
                   "splitters, criteria, memory helpers), not its estimators")
_FOREST_INTERNALS = ("scikit-learn's private forest internals (private methods and "
                     "attributes, its bootstrap functions, criterion objects)")
_FLOAT64 = ("rotforest keeps X in float64: values beyond float32's range are accepted, "
            "which scikit-learn (casting X to float32) refuses")
_ALLOCATION = ("scikit-learn sizes its node arrays by max_leaf_nodes and fails on a huge "
               "one; rotforest allocates as the tree grows")
_SPARSE_NAN = "rotforest accepts missing values in sparse X, which scikit-learn refuses"

# Expected-failure reasons.
_ROTATED_APPLY = ("a rotation forest's trees split rotated features: the test applies "
                  "them to the forest's unrotated X")
_NEAR_CONSTANT = ("a feature whose range is below 1e-7 is not treated as constant "
                  "(scikit-learn's FEATURE_THRESHOLD)")
_FRIEDMAN_DECREASE = ("criterion='friedman_mse': min_impurity_decrease is applied to "
                      "Friedman's improvement, so a split's squared-error decrease, which "
                      "the test computes, can be smaller")
_FRIEDMAN_DEPRECATION = ("scikit-learn 1.9 deprecates criterion='friedman_mse'; rotforest "
                         "keeps it and does not warn")
_SEED = ("the same algorithm as scikit-learn's, but another random generator: the test's "
         "random_state=0 draws ")
_N_SAMPLES_BOOTSTRAP = ("the test reads scikit-learn's private attribute "
                        "_n_samples_bootstrap (the draws themselves are scikit-learn's)")

# sklearn/tree/tests/test_tree.py with our DecisionTreeClassifier/Regressor and
# ExtraTreeClassifier/Regressor.
TREE_DESELECT = {
    _TREE_INTERNALS: [
        "test_realloc",                         # sklearn.tree._utils._realloc_test
        "test_criterion_copy",                  # Criterion objects
        "test_splitter_serializable",           # Splitter objects
        "test_check_n_classes",                 # Tree unpickling helpers
        "test_check_value_ndarray",
        "test_check_node_ndarray",
        "test_build_pruned_tree_py",            # _build_pruned_tree_py on its Tree
        "test_build_pruned_tree_infinite_loop",
        "test_absolute_errors_precomputation_function",  # _criterion helper
        "test_different_bitness_pickle",        # its Tree's state with another pointer
        "test_different_bitness_joblib_pickle",  # size: a no-op on our trees
    ],
    _FLOAT64: ["test_big_input"],
    _ALLOCATION: ["test_huge_allocations"],
    _SPARSE_NAN: ["test_missing_value_errors"],
}
TREE_XFAIL = {
    ("y's Poisson check comes after the check that X and y have as many samples, so "
     "the test's X of 1 row and y of 3 values gets the shape error"): ["test_error"],
    # (ExtraTreeClassifier passes by its draws: one of the two features per node, and at
    # random_state=0 the near-constant one gets no importance)
    _NEAR_CONSTANT: ["test_almost_constant_feature[DecisionTree*]",
                     "test_almost_constant_feature[ExtraTreeRegressor]"],
    _SEED + ("an ExtraTreeClassifier whose third informative feature has an importance "
             "of 0.098, below the test's 0.1 (scikit-learn's own fails the same way at "
             "random_state=9, ours passes at 1-6 and 8-9)"): ["test_importances"],
    _SEED + ("the missing samples to the left, where a lone present value leaves no cut "
             "(either generator draws the right side about half the time: 45 and 44 of "
             "random_state 0-99)"): [
        "test_random_splitter_missing_values_uses_non_missing_min_max[single-non-missing]"],
    _FRIEDMAN_DECREASE: ["test_min_impurity_decrease[*-friedman_mse]"],
    _FRIEDMAN_DEPRECATION: ["test_friedman_mse_deprecation"],
}

# sklearn/ensemble/tests/test_forest.py with our RandomForestClassifier/Regressor and
# ExtraTreesClassifier/Regressor.
FOREST_DESELECT = {
    _EMBEDDING: [
        "test_random_hasher",
        "test_random_hasher_sparse_data",
        "test_random_trees_dense_equal",
        "test_random_trees_dense_type",
        "test_random_trees_embedding_feature_names_out",
        "test_random_trees_embedding_raise_error_oob",
    ],
    _FOREST_INTERNALS: [
        "test_validate_y_class_weight",         # ._validate_y_class_weight
        "test_class_weights_forest",            # ._sample_weight
        "test_oob_not_computed_twice",          # patches ._set_oob_score_and_attributes
        "test_mse_criterion_object_segfault_smoke_test",  # a sklearn.tree._criterion.MSE
        "test_forest_multioutput_integral_regression_target",  # _generate_unsampled_indices
    ],
}
_FOREST_XFAIL = {
    ("warm_start on y with another number of outputs than the fitted forest's is "
     "refused (scikit-learn warns that no tree is added, and keeps trees of the old "
     "outputs)"): ["test_class_weight_errors"],
    _N_SAMPLES_BOOTSTRAP: ["test_max_samples_geq_one"],
    _FRIEDMAN_DEPRECATION: ["test_friedman_mse_deprecation"],
}
FOREST_XFAIL = {
    **_FOREST_XFAIL,
    _SEED + ("500 totally randomised trees whose importances are off the exact ones by "
             "0.0125 on average, above the test's 0.01 (0.0048-0.0125 over random_state "
             "0-4; scikit-learn's own: 0.0048-0.0156, failing at 3 and 4)"): [
        "test_importances_asymptotic"],
    _SEED + ("a bootstrapped ExtraTreesRegressor of OOB R2 0.679, below the test's 0.7 "
             "(over random_state 0-19 the mean OOB R2 is 0.719, scikit-learn's 0.723; test "
             "R2 0.738 and 0.740)"): [
        "test_forest_regressor_oob[True-X0-y0-0.7-*-ExtraTreesRegressor]"],
}

# The same file with RotationForestClassifier/Regressor in the random forests' place.
# Its extra trees are dropped: swapped in, they would be our ExtraTrees* again, and the
# random-forest suite already runs every one of those tests on them.
ROTATION_DESELECT = {
    **FOREST_DESELECT,
    _EXTRA_TREES_ELSEWHERE: [
        "test_distribution",
        "test_importances_asymptotic",
    ],
}
ROTATION_XFAIL = {
    **_FOREST_XFAIL,
    _ROTATED_APPLY: ["test_min_samples_leaf", "test_min_weight_fraction_leaf"],
    "rotation forests have no estimators_samples_": ["test_estimators_samples"],
    ("rotation forests default to bootstrap=False (scikit-learn's forests: True), and "
     "max_samples needs bootstrap=True"): [
        "test_little_tree_with_small_max_samples",
        "test_round_samples_to_one_when_samples_too_low[None]",
    ],
    "rotation forests do not take class_weight='balanced_subsample'": [
        "test_round_samples_to_one_when_samples_too_low[balanced_subsample]",
        "test_class_weight_balanced_and_bootstrap_multi_output",
    ],
}

# --------------------------------------------------------------------------- the suites

_EXTRA_TREES = {"ExtraTreesClassifier", "ExtraTreesRegressor"}


def _forest_suite(kind, deselect, xfail, extra_trees):
    """test_forest.py with our ``kind`` ("Random", "Rotation") of forest in the place of
    scikit-learn's random forests, and with our extra trees in the place of its own
    (``extra_trees``) or without them."""
    swap = {"RandomForestClassifier": f"{kind}ForestClassifier",
            "RandomForestRegressor": f"{kind}ForestRegressor"}
    drop = {"RandomTreesEmbedding"}
    if extra_trees:
        swap.update({name: name for name in _EXTRA_TREES})
    else:
        drop |= _EXTRA_TREES
    return dict(
        path="ensemble/tests/test_forest.py",
        swap=swap,
        drop=drop,
        containers={"FOREST_CLASSIFIERS", "FOREST_REGRESSORS", "FOREST_TRANSFORMERS"},
        deselect=deselect, xfail=xfail)


SUITES = {
    "tree": dict(
        path="tree/tests/test_tree.py",
        swap={name: name for name in ("DecisionTreeClassifier", "DecisionTreeRegressor",
                                      "ExtraTreeClassifier", "ExtraTreeRegressor")},
        drop=set(),
        containers={"CLF_TREES", "REG_TREES", "SPARSE_TREES"},
        deselect=TREE_DESELECT, xfail=TREE_XFAIL),
    "forest": _forest_suite("Random", FOREST_DESELECT, FOREST_XFAIL, extra_trees=True),
    "rotation_forest": _forest_suite("Rotation", ROTATION_DESELECT, ROTATION_XFAIL,
                                     extra_trees=False),
}

MODULE_PREFIX = "sklearn_suite_"


class SuiteRewriteError(RuntimeError):
    """The installed test file is not shaped as the rewrite expects."""


def _mentions(node, names):
    """Whether ``node`` names one of ``names`` (a variable, an attribute such as
    ``ensemble.ExtraTreesClassifier``, or a string constant)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in names:
            return True
        if isinstance(sub, ast.Attribute) and sub.attr in names:
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value in names:
            return True
    return False


def _filter_container(node, drop):
    """Remove from a dict/list/tuple/set literal the entries that name a dropped class.
    Returns whether ``node`` was such a literal."""
    if isinstance(node, ast.Dict):
        kept = [(k, v) for k, v in zip(node.keys, node.values)
                if not _mentions(v, drop) and (k is None or not _mentions(k, drop))]
        node.keys = [k for k, _ in kept]
        node.values = [v for _, v in kept]
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        node.elts = [e for e in node.elts if not _mentions(e, drop)]
        return True
    return False


def _is_parametrize(call):
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr == "parametrize"


def _rename_keys(node, swap):
    """A dict of estimators keyed by scikit-learn's class name: key ours by our name."""
    if isinstance(node, ast.Dict):
        for key in node.keys:
            if (isinstance(key, ast.Constant) and key.value in swap
                    and swap[key.value] != key.value):
                key.value = swap[key.value]


def rewrite(source, filename, swap, drop, containers):
    """The test file's syntax tree with our classes swapped in and ``drop`` taken out.

    Returns ``(tree, direct)``: ``direct`` is the set of test functions that still use a
    dropped class in their body."""
    tree = ast.parse(source, filename)
    found_imports = set()
    body = []
    for stmt in tree.body:
        if (isinstance(stmt, ast.ImportFrom) and stmt.module
                and stmt.module.split(".")[0] == "sklearn"):
            ours = [a for a in stmt.names if a.name in swap]
            for alias in ours:
                if alias.asname not in (None, alias.name):
                    raise SuiteRewriteError(f"{filename}: {alias.name} imported as "
                                            f"{alias.asname}")
                found_imports.add(alias.name)
            stmt.names = [a for a in stmt.names if a.name not in swap]
            if stmt.names:
                body.append(stmt)
            if ours:
                new = ast.ImportFrom(
                    module="rotforest",
                    names=[ast.alias(name=swap[a.name], asname=a.name) for a in ours],
                    level=0)
                body.append(ast.copy_location(new, stmt))
            continue
        body.append(stmt)
    tree.body = body
    missing = set(swap) - found_imports
    if missing:
        raise SuiteRewriteError(f"{filename}: no 'from sklearn... import' of "
                                f"{sorted(missing)}")

    # Module-level containers of estimators.
    found_containers = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            if names & containers and stmt.value is not None:
                if not _filter_container(stmt.value, drop):
                    raise SuiteRewriteError(f"{filename}: {sorted(names)} is not a "
                                            "literal dict/list")
                _rename_keys(stmt.value, swap)
                found_containers |= names & containers
    missing = containers - found_containers
    if missing:
        raise SuiteRewriteError(f"{filename}: no module-level {sorted(missing)}")

    # Every parametrize's values; other uses of scikit-learn's classes.
    direct = set()
    estimators = set(swap) | set(drop)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_parametrize(node) and len(node.args) >= 2:
            if not _filter_container(node.args[1], drop):
                # zip(...), chain(...): pytest deprecates iterators as parameter values.
                node.args[1] = ast.Call(func=ast.Name("list", ast.Load()),
                                        args=[node.args[1]], keywords=[])
        if (isinstance(node, (ast.List, ast.Tuple, ast.Set)) and node.elts
                and all(isinstance(e, ast.Name) and e.id in estimators for e in node.elts)):
            # A literal list of estimator classes, as in ``for Estimator in [...]``.
            _filter_container(node, drop)
        if isinstance(node, ast.Attribute) and node.attr in swap:
            raise SuiteRewriteError(f"{filename}:{node.lineno}: "
                                    f"{ast.unparse(node)} is scikit-learn's class")
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name.startswith("test_"):
            if any(_mentions(s, drop) for s in stmt.body):
                direct.add(stmt.name)
    ast.fix_missing_locations(tree)
    return tree, direct


def _patterns(table):
    return [(pattern, reason) for reason, patterns in table.items() for pattern in patterns]


def _pattern_function(pattern):
    return pattern.split("[", 1)[0]


def sklearn_test_file(relative):
    """The installed scikit-learn's test file, or None."""
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / relative
    return path if path.is_file() else None


def _rewrite_asserts(tree, source, path):
    """pytest's assertion rewriting (informative failures); skipped if its private API
    moved."""
    try:
        from _pytest.assertion.rewrite import rewrite_asserts
        rewrite_asserts(tree, source.encode(), str(path))
    except Exception:  # pragma: no cover - a pytest release changed the private API
        pass


def load(name):
    """The namespace of the rewritten suite ``name`` (a key of SUITES), to be merged into
    a test module's globals.  Skips the module when the installed scikit-learn lacks the
    file, and when ROTFOREST_SKLEARN_SUITES=0 (CI's oldest-versions leg: the lists are
    tuned to the newest scikit-learn, whose files an older release does not match)."""
    if os.environ.get("ROTFOREST_SKLEARN_SUITES", "1") == "0":
        pytest.skip("ROTFOREST_SKLEARN_SUITES=0: scikit-learn's own suites are tuned to "
                    "its newest release", allow_module_level=True)
    suite = SUITES[name]
    path = sklearn_test_file(suite["path"])
    if path is None:
        import sklearn
        pytest.skip(f"the installed scikit-learn {sklearn.__version__} does not ship "
                    f"sklearn/{suite['path']}", allow_module_level=True)
    source = path.read_text(encoding="utf-8")
    tree, direct = rewrite(source, str(path), suite["swap"], suite["drop"],
                           suite["containers"])

    functions = {s.name for s in tree.body if isinstance(s, ast.FunctionDef)}
    listed = set()
    for table in ("deselect", "xfail"):
        for pattern, _ in _patterns(suite[table]):
            function = _pattern_function(pattern)
            if function not in functions:
                raise SuiteRewriteError(f"{path}: {name} {table} lists {pattern!r}, "
                                        "which the file no longer has: update "
                                        "tests/sklearn_suites.py")
            if table == "deselect":
                listed.add(function)
    unlisted = direct - listed
    if unlisted:
        raise SuiteRewriteError(f"{path}: {sorted(unlisted)} use {sorted(suite['drop'])} "
                                "directly: deselect them in tests/sklearn_suites.py")

    _rewrite_asserts(tree, source, path)
    module_name = MODULE_PREFIX + name
    module = types.ModuleType(module_name)
    module.__file__ = str(path)
    sys.modules[module_name] = module
    exec(compile(tree, str(path), "exec"), module.__dict__)

    namespace = {k: v for k, v in module.__dict__.items() if not k.startswith("__")}
    namespace["global_random_seed"] = global_random_seed
    namespace["threads_on_small_data"] = threads_on_small_data
    namespace["SKLEARN_SUITE"] = name
    return namespace


# Fixtures that scikit-learn's conftest.py gives its tests, and an override of ours.

@pytest.fixture
def global_random_seed():
    """scikit-learn's seed fixture, at its default seed."""
    return 42


@pytest.fixture
def threads_on_small_data():
    """Overrides conftest.py's fixture of the same name: scikit-learn's tests run the
    forests' threads as a user's fit does."""


def apply_lists(config, items):
    """Deselect and mark xfail the suites' listed tests (called by conftest.py)."""
    deselected = []
    kept = []
    for item in items:
        module = getattr(item, "module", None)
        name = getattr(module, "SKLEARN_SUITE", None)
        if name is None:
            kept.append(item)
            continue
        suite = SUITES[name]
        if any(_match(item, p) for p, _ in _patterns(suite["deselect"])):
            deselected.append(item)
            continue
        for pattern, reason in _patterns(suite["xfail"]):
            if _match(item, pattern):
                item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
                if not config.option.runxfail:
                    item.runtest = _without_traceback(item.runtest)
                break
        kept.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


def _without_traceback(runtest):
    """An expected failure's exception without its traceback: pytest formats the
    traceback of every xfail (re-parsing each file in it) for a report that shows only
    the reason, which was half the suites' time.  ``pytest --runxfail`` keeps them."""
    def run():
        try:
            runtest()
        except Exception as exc:
            raise exc.with_traceback(None) from None
    return run


def _match(item, pattern):
    function, _, params = pattern.partition("[")
    if getattr(item, "originalname", item.name) != function:
        return False
    if not params:
        return True
    # The parameter id between the item name's outer brackets, against the pattern's.
    item_params = item.name[len(function) + 1:-1] if item.name.endswith("]") else ""
    return fnmatch.fnmatchcase(item_params, params[:-1])
