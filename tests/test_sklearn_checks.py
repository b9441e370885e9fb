"""scikit-learn's estimator contract, checked by scikit-learn's own test generator."""
from sklearn.utils.estimator_checks import parametrize_with_checks

from rotforest import DecisionTreeClassifier, RandomForestClassifier

# Expected failures, each with its reason.
_BAGGING = ("bootstrap draws samples by index, so a sample of weight 2 is not the same as "
            "two copies of it (scikit-learn's own RandomForestClassifier fails this check "
            "for the same reason)")
EXPECTED_FAILED_CHECKS = {
    "RandomForestClassifier": {"check_sample_weight_equivalence_on_dense_data": _BAGGING},
}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


@parametrize_with_checks(
    [
        DecisionTreeClassifier(random_state=0),
        DecisionTreeClassifier(criterion="entropy", max_leaf_nodes=8, random_state=0),
        DecisionTreeClassifier(splitter="random", max_features="sqrt", random_state=0),
        RandomForestClassifier(n_estimators=5, random_state=0),
        RandomForestClassifier(n_estimators=5, n_jobs=2, oob_score=True, max_samples=0.8,
                               random_state=0),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
