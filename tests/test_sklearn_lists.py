"""The lists of sklearn_suites.py (deselected and expected-to-fail tests of scikit-learn's
own test files) and their machinery: which entries are in force on which release, what
a pattern matches, the records of tests that some releases' files lack.

The records are checked against the installed scikit-learn's files only (other
releases' files are not at hand): on every release the tests run on, a listed test is
in the file exactly when RELEASES_WITH says this release has it.  A typo in a listed
name is thus caught on any release."""
import ast
import types

import pytest

import sklearn_suites
from sklearn_suites import (RELEASES_WITH, SUITES, _entry, _match, _pattern_function,
                            _release, active_entries, on, sklearn_test_file)

# The newest release the lists were checked against.  On a newer one a listed test that
# its file lacks is reported in the summary, not failed here.
NEWEST_CHECKED = (1, 9)


def _functions(relative):
    path = sklearn_test_file(relative)
    if path is None:
        pytest.skip(f"the installed scikit-learn does not ship sklearn/{relative}")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {s.name for s in tree.body if isinstance(s, ast.FunctionDef)}


def _all_entries(suite):
    return [(_entry(entry), reason) for table in ("deselect", "xfail")
            for reason, entries in suite[table].items() for entry in entries]


def test_release_tuples_compare_as_releases():
    assert _release("1.8") == (1, 8)
    assert _release("1.7.2") < _release("1.8") <= _release("1.8.0") < _release("1.8.1")
    assert _release("1.9") <= (1, 9, 0)
    assert (1, 10) > _release("1.9.1")


def test_on_applies_to_its_range():
    entry = on("test_x", since="1.7", before="1.9")
    assert [entry.applies(r) for r in [(1, 6, 1), (1, 7, 0), (1, 8, 2), (1, 9, 0)]] == [
        False, True, True, False]
    assert on("test_x", before="1.8").applies((1, 7, 2))
    assert not on("test_x", since="1.9").applies((1, 8, 0))
    assert _entry("test_x").applies((1, 6, 0))
    with pytest.raises(ValueError, match="give since or before"):
        on("test_x")
    with pytest.raises(ValueError, match="not before"):
        on("test_x", since="1.9", before="1.8")


def test_active_entries_filter_by_release():
    table = {"a": ["test_one", on("test_two", before="1.8")],
             "b": [on("test_three[x]", since="1.8")]}
    assert active_entries(table, (1, 7, 2)) == [("test_one", "a"), ("test_two", "a")]
    assert active_entries(table, (1, 8, 0)) == [("test_one", "a"), ("test_three[x]", "b")]


def _item(name):
    function = name.split("[", 1)[0]
    return types.SimpleNamespace(name=name, originalname=function)


@pytest.mark.parametrize("pattern, name, expected", [
    ("test_a", "test_a", True),
    ("test_a", "test_a[x-y]", True),
    ("test_a", "test_ab", False),
    ("test_a[x-*]", "test_a[x-y]", True),
    ("test_a[x-*]", "test_a[y-x]", False),
    ("test_a[x]", "test_a[x-y]", False),
    ("test_a[DecisionTree*]", "test_a[DecisionTreeRegressor]", True),
    ("test_a[x]", "test_a", False),
])
def test_pattern_matching(pattern, name, expected):
    assert _match(_item(name), pattern) is expected


@pytest.mark.parametrize("name", sorted(SUITES))
def test_entries_are_well_formed(name):
    """Every entry is a test function's name, bracketed ids at most, with a specific
    reason; no pattern is listed twice in one suite."""
    seen = set()
    for entry, reason in _all_entries(SUITES[name]):
        pattern = entry.pattern
        assert pattern.startswith("test_"), pattern
        function = _pattern_function(pattern)
        assert function.isidentifier(), pattern
        assert pattern == function or (pattern[len(function)] == "["
                                       and pattern.endswith("]")), pattern
        assert len(reason) > 30, (pattern, reason)
        key = (pattern, entry.since, entry.before)
        assert key not in seen, f"{name}: {pattern} listed twice"
        seen.add(key)


@pytest.mark.parametrize("relative", sorted(RELEASES_WITH))
def test_records_match_the_installed_file(relative):
    """Each recorded test is in the installed file exactly when its record's range holds
    the installed release (on the releases the records were checked against), and is
    named by some list."""
    functions = _functions(relative)
    release = sklearn_suites.sklearn_release()
    listed = {_pattern_function(entry.pattern)
              for suite in SUITES.values() if suite["path"] == relative
              for entry, _ in _all_entries(suite)}
    for function, (since, before) in RELEASES_WITH[relative].items():
        assert function in listed, f"{function} is recorded but not listed"
        has = sklearn_suites._in_range(release, since, before)
        if release[:2] > NEWEST_CHECKED and not has:
            continue    # a newer release may bring the test back: nothing to check
        assert (function in functions) == has, (
            f"{function}: recorded as {'in' if has else 'not in'} releases "
            f"{since or '...'} to before {before or '...'}, but the installed file "
            f"{'lacks' if has else 'has'} it")


@pytest.mark.parametrize("name", sorted(SUITES))
def test_listed_tests_exist(name):
    """Every listed test is in the installed file, or recorded as absent from this
    release: a name in neither is a typo or a test that scikit-learn renamed."""
    suite = SUITES[name]
    functions = _functions(suite["path"])
    release = sklearn_suites.sklearn_release()
    missing = []
    for entry, _ in _all_entries(suite):
        function = _pattern_function(entry.pattern)
        if function in functions:
            continue
        recorded = RELEASES_WITH.get(suite["path"], {}).get(function)
        if recorded is None or sklearn_suites._in_range(release, *recorded):
            missing.append(entry.pattern)
    if missing and release[:2] > NEWEST_CHECKED:
        pytest.skip(f"scikit-learn {release} is newer than the lists were checked "
                    f"against; its files lack the listed {missing}")
    assert not missing, (f"{name}: listed, not in the installed {suite['path']}, not "
                         f"recorded in RELEASES_WITH: {missing}")


def test_summary_counts_lacking_entries(monkeypatch):
    loaded = sklearn_suites._Loaded("tree", None, (1, 7, 2))
    loaded.lacking = [("test_friedman_mse_deprecation", True), ("test_typo", False)]
    loaded.unmatched = ["test_b[*-poisson]"]
    forests = []
    for name in ("forest", "rotation_forest"):
        forests.append(sklearn_suites._Loaded(name, None, (1, 7, 2)))
        forests[-1].lacking = [("test_max_samples_geq_one", True)]
    monkeypatch.setattr(sklearn_suites, "LOADED", {"tree": loaded, "forest": forests[0],
                                                   "rotation_forest": forests[1]})
    monkeypatch.setattr(sklearn_suites, "_version_text", lambda: "1.7.2")
    lines = sklearn_suites.summary_lines()
    assert lines[0].startswith("scikit-learn 1.7.2's suites: 4 listed entries name "
                               "tests this release lacks")
    assert lines[0].endswith("tree: test_friedman_mse_deprecation, test_typo; "
                             "forest, rotation_forest: test_max_samples_geq_one")
    assert "test_typo" in lines[1] and "RELEASES_WITH" in lines[1]
    assert "test_b[*-poisson]" in lines[2]
    monkeypatch.setattr(sklearn_suites, "LOADED", {})
    assert sklearn_suites.summary_lines() == []
