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

Below, for each suite: the tests deselected (scikit-learn internals, a class we do not
have, a behaviour we chose differently) and the tests expected to fail
(``xfail(strict=True)``: one that starts passing fails the run and is taken off the list),
each as ``reason: [patterns]``.  A pattern is a test function's name (all its
parametrizations) or ``name[ids]``, where ``ids`` is matched against the test's parameter
id with fnmatch's ``*`` and ``?``.  ``conftest.py`` applies them.

The lists serve every supported scikit-learn release (1.6 on), whose files differ:

- a test that only some releases' files have is listed plainly; where the installed file
  lacks it, its entries are left out and counted in the terminal summary.  RELEASES_WITH
  records which releases have such a test, and test_sklearn_lists.py checks the records
  against the installed file (a name in no release is a typo, caught on any release);
- an entry that holds on some releases only (the test changed between them) is written
  ``on(pattern, since=..., before=...)``.

The lists were checked against the files of 1.6.0, 1.6.1, 1.7.0-1.7.2, 1.8.0, 1.9.0
and 1.9.1, and run on 1.6.0, 1.7.2, 1.8 and 1.9.1.
"""
import ast
import fnmatch
import importlib.util
import os
import sys
import types
from pathlib import Path

import pytest

# ------------------------------------------------------------------------ the releases

def _release(text):
    """ "1.8" -> (1, 8), "1.6.1" -> (1, 6, 1).  Tuples compare as releases do: (1, 7, 2) <
    (1, 8) <= (1, 8, 0)."""
    return tuple(int(part) for part in text.split("."))


def _in_range(release, since, before):
    """Whether ``release`` is ``since`` or later and before ``before`` (None: open)."""
    return ((since is None or release >= _release(since))
            and (before is None or release < _release(before)))


def sklearn_release():
    """The installed scikit-learn's release as a tuple ((1, 7, 2); a pre-release or
    development version counts as its release: "1.10.dev0" -> (1, 10))."""
    import sklearn
    from packaging.version import Version      # a dependency of pytest itself

    return Version(sklearn.__version__).release


def _version_text():
    import sklearn

    return sklearn.__version__


class on:  # noqa: N801 - reads as a qualifier in the lists
    """A listed pattern in force on some releases only: ``on("test_x", before="1.8")``,
    ``on("test_y[*-poisson]", since="1.9")``.  ``since`` is the first release it applies
    to, ``before`` the first it no longer applies to ("1.8" is 1.8.0 and later)."""

    def __init__(self, pattern, since=None, before=None):
        if since is None and before is None:
            raise ValueError(f"on({pattern!r}): give since or before")
        if since and before and _release(since) >= _release(before):
            raise ValueError(f"on({pattern!r}): since={since} is not before {before}")
        self.pattern, self.since, self.before = pattern, since, before

    def applies(self, release):
        return _in_range(release, self.since, self.before)

    def __repr__(self):
        bounds = ", ".join(f"{k}={v!r}" for k, v in (("since", self.since),
                                                    ("before", self.before)) if v)
        return f"on({self.pattern!r}, {bounds})"


class _Always(on):
    def __init__(self, pattern):
        self.pattern, self.since, self.before = pattern, None, None


def _entry(entry):
    return entry if isinstance(entry, on) else _Always(entry)


def _pattern_function(pattern):
    return pattern.split("[", 1)[0]


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
_ABSOLUTE_NAN = ("rotforest's criterion='absolute_error' accepts missing values, as "
                 "scikit-learn 1.9's does (earlier releases refuse them)")
_MAX_SAMPLES_ABOVE_N = ("scikit-learn before 1.9 refuses max_samples above n_samples; "
                        "rotforest allows it, as 1.9 does (test_max_samples_geq_one), so "
                        "the test's max_samples=10**9 would draw a billion rows per tree")

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
        "test_sort_log2_build",                 # sklearn.tree._partitioner._py_sort
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
    # (before 1.9 the test is not parametrized by criterion, and checks the defaults)
    _FRIEDMAN_DECREASE: [on("test_min_impurity_decrease[*-friedman_mse]", since="1.9")],
    _FRIEDMAN_DEPRECATION: ["test_friedman_mse_deprecation"],
    # Before 1.8, test_diabetes_underfit asks one seed's deep tree for a training loss
    # strictly between 0 and a bound; 1.8 asks deeper trees for smaller losses instead.
    _SEED + ("an ExtraTreeRegressor of depth 15 whose training MSE on diabetes is 93.8, "
             "above the test's 60 (below 60 at 243 of random_state 0-599, scikit-learn "
             "1.9's own at 249)"): [
        on("test_diabetes_underfit[squared_error-*-ExtraTreeRegressor-*]", before="1.8"),
        on("test_diabetes_underfit[friedman_mse-*-ExtraTreeRegressor-*]", before="1.8")],
    _SEED + ("trees of depth 20 with criterion='absolute_error' that fit diabetes "
             "exactly (training MSE 0), where the test asks for more than 0 (of "
             "random_state 0-99, ours fit exactly at 28 and 30, scikit-learn 1.9's own "
             "at 27 and 34)"): [
        on("test_diabetes_underfit[absolute_error-*]", before="1.8")],
    ("before 1.8 the test compares an extra tree's impurities after its first random "
     "cut with those of a tree fitted on other X, whose random cut differs; 1.8 checks "
     "this on greedy trees only (scikit-learn issue #32125)"): [
        on("test_regression_tree_missing_values_toy[*-ExtraTreeRegressor]", before="1.8")],
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
    _MAX_SAMPLES_ABOVE_N: ["test_large_max_samples_exception"],
    _ABSOLUTE_NAN: ["test_non_supported_criterion_raises_error_with_missing_values"],
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
    _SEED + ("a bootstrapped ExtraTreesRegressor of OOB R2 0.677 (0.681 on sparse X), "
             "below the test's 0.7 (over random_state 0-19 the mean OOB R2 is 0.719, "
             "scikit-learn's 0.723; test R2 0.738 and 0.740)"): [
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
    ("a rotation forest's estimators_ take X (their mean is the forest's) and have no "
     "tree_: its trees, whose nodes split the rotated axes, are rotated_estimators_ "
     "(and refit on rotated rows, not X[estimators_samples_[i]]: test_rotated_trees "
     "checks the samples)"): [
        "test_min_samples_split", "test_decision_path", "test_estimators_samples"],
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

# The listed tests that some supported release's file does not have, with the releases
# whose file has them: (since, before), either end None when open.  (A listed test not
# recorded here is in every supported release's file.)  An entry naming a test the
# installed file lacks is left out and counted in the terminal summary;
# test_sklearn_lists.py checks these records against the installed file, which catches
# a typo on whichever release the tests run.
TREE_FILE, FOREST_FILE = "tree/tests/test_tree.py", "ensemble/tests/test_forest.py"
RELEASES_WITH = {
    TREE_FILE: {
        "test_sort_log2_build": ("1.6.1", "1.9"),
        "test_absolute_errors_precomputation_function": ("1.8", None),
        "test_almost_constant_feature": ("1.8", None),
        "test_friedman_mse_deprecation": ("1.9", None),
        "test_random_splitter_missing_values_uses_non_missing_min_max": ("1.9", None),
    },
    FOREST_FILE: {
        "test_class_weights_forest": ("1.9", None),
        "test_validate_y_class_weight": ("1.9", None),
        "test_large_max_samples_exception": (None, "1.9"),  # max_samples > n refused
        "test_max_samples_geq_one": ("1.9", None),          # ... now allowed
        "test_non_supported_criterion_raises_error_with_missing_values": (None, "1.9"),
        "test_friedman_mse_deprecation": ("1.9", None),
    },
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
        path=FOREST_FILE,
        swap=swap,
        drop=drop,
        containers={"FOREST_CLASSIFIERS", "FOREST_REGRESSORS", "FOREST_TRANSFORMERS"},
        deselect=deselect, xfail=xfail)


SUITES = {
    "tree": dict(
        path=TREE_FILE,
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


def _function_names(tree):
    return {s.name for s in tree.body if isinstance(s, ast.FunctionDef)}


def active_entries(table, release):
    """``(pattern, reason)`` of a list's entries that apply to ``release``."""
    return [(entry.pattern, reason) for reason, entries in table.items()
            for entry in map(_entry, entries) if entry.applies(release)]


def releases_with(relative, function):
    """The releases recorded in RELEASES_WITH to have ``function`` in the file
    ``relative``: ``(since, before)`` (``None`` for either end: open), or None if the
    function is not recorded (then every supported release is taken to have it)."""
    return RELEASES_WITH.get(relative, {}).get(function)


class _Loaded:
    """What loading one suite found: the entries in force, the entries whose test the
    installed file lacks, and the patterns that matched no test (filled in by
    apply_lists)."""

    def __init__(self, name, path, release):
        self.name = name
        self.path = path
        self.release = release
        self.deselect = []       # (pattern, reason)
        self.xfail = []
        self.lacking = []        # (pattern, recorded): recorded is whether RELEASES_WITH
        #                          says the installed release lacks the test
        self.unmatched = []      # patterns of collected functions that matched no item


# The suites loaded in this process, by name (read by apply_lists and terminal_summary).
LOADED = {}


def load(name):
    """The namespace of the rewritten suite ``name`` (a key of SUITES), to be merged into
    a test module's globals.  Skips the module when the installed scikit-learn lacks the
    file, and when ROTFOREST_SKLEARN_SUITES=0 (a user's opt-out).

    The lists' entries are filtered to those in force for the installed release
    (``on(...)``); an entry in force whose test the installed file does not have is left
    out and counted (``LOADED[name].lacking``, shown by ``terminal_summary``)."""
    if os.environ.get("ROTFOREST_SKLEARN_SUITES", "1") == "0":
        pytest.skip("ROTFOREST_SKLEARN_SUITES=0: scikit-learn's own test files are not "
                    "run", allow_module_level=True)
    suite = SUITES[name]
    release = sklearn_release()
    path = sklearn_test_file(suite["path"])
    if path is None:
        pytest.skip(f"the installed scikit-learn {_version_text()} does not ship "
                    f"sklearn/{suite['path']} (its tests are left out of the wheel)",
                    allow_module_level=True)
    source = path.read_text(encoding="utf-8")
    tree, direct = rewrite(source, str(path), suite["swap"], suite["drop"],
                           suite["containers"])

    functions = _function_names(tree)
    loaded = _Loaded(name, path, release)
    for table in ("deselect", "xfail"):
        for pattern, reason in active_entries(suite[table], release):
            function = _pattern_function(pattern)
            if function not in functions:
                recorded = releases_with(suite["path"], function)
                loaded.lacking.append(
                    (pattern, recorded is not None and not _in_range(release, *recorded)))
                continue
            getattr(loaded, table).append((pattern, reason))
    listed = {_pattern_function(p) for p, _ in loaded.deselect}
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
    LOADED[name] = loaded

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
    """Deselect and mark xfail the suites' listed tests (called by conftest.py), and
    note the patterns of a collected test function that matched none of its items (a
    parametrization renamed by a scikit-learn release)."""
    deselected = []
    kept = []
    matched = {}           # suite name -> patterns that matched an item
    collected = {}         # suite name -> functions with an item
    for item in items:
        module = getattr(item, "module", None)
        name = getattr(module, "SKLEARN_SUITE", None)
        if name is None or name not in LOADED:
            kept.append(item)
            continue
        loaded = LOADED[name]
        collected.setdefault(name, set()).add(getattr(item, "originalname", item.name))
        hits = matched.setdefault(name, set())
        deselect = [p for p, _ in loaded.deselect if _match(item, p)]
        if deselect:
            hits.update(deselect)
            deselected.append(item)
            continue
        for pattern, reason in loaded.xfail:
            if _match(item, pattern):
                hits.add(pattern)
                item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
                if not config.option.runxfail:
                    item.runtest = _without_traceback(item.runtest)
                break
        kept.append(item)
    if any("::" in str(arg) for arg in config.args):
        collected = {}     # tests chosen by node id: a pattern may miss by choice
    for name, functions in collected.items():
        loaded = LOADED[name]
        loaded.unmatched = sorted(
            {p for p, _ in loaded.deselect + loaded.xfail
             if _pattern_function(p) in functions and p not in matched[name]})
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


def _grouped(texts):
    """``(text, "name, name")`` for each distinct text of ``{suite name: text}``: the two
    forest suites share most of their lists."""
    names = {}
    for name, text in texts.items():
        names.setdefault(text, []).append(name)
    return [(text, ", ".join(group)) for text, group in names.items()]


def summary_lines():
    """The lines ``conftest.py`` adds to the terminal summary: the listed entries that the
    installed release's files lack (expected where RELEASES_WITH records it), and the
    patterns that matched no test.  Empty when no suite was loaded."""
    if not LOADED:
        return []
    lines = []
    head = f"scikit-learn {_version_text()}'s suites"
    lacking = {name: loaded.lacking for name, loaded in LOADED.items() if loaded.lacking}
    if lacking:
        count = sum(map(len, lacking.values()))
        parts = "; ".join(f"{names}: {patterns}" for patterns, names in _grouped(
            {name: ", ".join(p for p, _ in entries) for name, entries in lacking.items()}))
        what = "entry names a test" if count == 1 else "entries name tests"
        lines.append(f"{head}: {count} listed {what} this release lacks, left out: "
                     f"{parts}")
        unrecorded = sorted({p for entries in lacking.values()
                             for p, recorded in entries if not recorded})
        if unrecorded:
            lines.append(f"{head}: not recorded in sklearn_suites.RELEASES_WITH as absent "
                         f"from this release (a renamed or removed test, or a typo): "
                         f"{', '.join(unrecorded)}")
    unmatched = {name: loaded.unmatched for name, loaded in LOADED.items()
                 if loaded.unmatched}
    if unmatched:
        parts = "; ".join(f"{names}: {patterns}" for patterns, names in _grouped(
            {name: ", ".join(patterns) for name, patterns in unmatched.items()}))
        lines.append(f"{head}: listed patterns that matched none of their test's "
                     f"parametrizations: {parts}")
    return lines

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
