"""scikit-learn's tests of its decision trees (sklearn/tree/tests/test_tree.py) on our
DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier and ExtraTreeRegressor.

The file is read from the installed scikit-learn and rewritten by sklearn_suites.py,
which also holds the lists of deselected and expected-to-fail tests."""
import sklearn_suites

globals().update(sklearn_suites.load("tree"))
