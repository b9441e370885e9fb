"""scikit-learn's estimator contract, checked by scikit-learn's own test generator."""
from sklearn.utils.estimator_checks import parametrize_with_checks

from rotforest import DecisionTreeClassifier

# Expected failures, each with its reason.  None so far.
EXPECTED_FAILED_CHECKS = {}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


@parametrize_with_checks(
    [
        DecisionTreeClassifier(random_state=0),
        DecisionTreeClassifier(criterion="entropy", max_leaf_nodes=8, random_state=0),
        DecisionTreeClassifier(splitter="random", max_features="sqrt", random_state=0),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
