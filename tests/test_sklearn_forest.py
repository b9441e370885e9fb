"""scikit-learn's tests of its forests (sklearn/ensemble/tests/test_forest.py) on our
RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier and ExtraTreesRegressor.

The file is read from the installed scikit-learn and rewritten by sklearn_suites.py,
which also holds the lists of deselected and expected-to-fail tests."""
import sklearn_suites

globals().update(sklearn_suites.load("forest"))
