"""scikit-learn's estimator contract, checked by scikit-learn's own test generator."""
from sklearn.utils.estimator_checks import parametrize_with_checks

from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                       ExtraTreeRegressor, ExtraTreesClassifier, ExtraTreesRegressor,
                       RandomForestClassifier, RandomForestRegressor,
                       RotationForestClassifier, RotationForestRegressor)
from rotforest import (ExtraTreesQuantileRegressor, RandomForestQuantileRegressor,
                       RotationForestQuantileRegressor)

# Expected failures, each with its reason.
_BAGGING = ("bootstrap draws samples by index, so a sample of weight 2 is not the same as "
            "two copies of it (scikit-learn's own random forests fail this check "
            "for the same reason)")
_PCA_SUBSAMPLE = ("PCA rotations are fitted on a random 75% of the rows, and bootstrap "
                  "draws by index: neither treats a sample of weight 2 as two copies")
EXPECTED_FAILED_CHECKS = {
    "RandomForestClassifier": {"check_sample_weight_equivalence_on_dense_data": _BAGGING,
                               "check_sample_weight_equivalence_on_sparse_data": _BAGGING},
    "RandomForestRegressor": {"check_sample_weight_equivalence_on_dense_data": _BAGGING,
                              "check_sample_weight_equivalence_on_sparse_data": _BAGGING},
}


def _expected_failed_checks(estimator):
    if type(estimator).__name__.startswith("ExtraTrees") and estimator.bootstrap:
        return {"check_sample_weight_equivalence_on_dense_data": _BAGGING,
                "check_sample_weight_equivalence_on_sparse_data": _BAGGING}
    if (type(estimator).__name__.startswith("RotationForest")
            and (estimator.rotation == "pca" or estimator.bootstrap)):
        return {"check_sample_weight_equivalence_on_dense_data": _PCA_SUBSAMPLE,
                "check_sample_weight_equivalence_on_sparse_data": _PCA_SUBSAMPLE}
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


@parametrize_with_checks(
    [
        DecisionTreeClassifier(random_state=0),
        DecisionTreeClassifier(criterion="entropy", max_leaf_nodes=8, random_state=0),
        DecisionTreeClassifier(splitter="random", max_features="sqrt", random_state=0),
        DecisionTreeRegressor(random_state=0),
        DecisionTreeRegressor(criterion="friedman_mse", max_leaf_nodes=8, random_state=0),
        DecisionTreeRegressor(splitter="random", max_features="sqrt", random_state=0),
        DecisionTreeRegressor(criterion="absolute_error", random_state=0),
        RandomForestClassifier(n_estimators=5, random_state=0),
        RandomForestClassifier(n_estimators=5, n_jobs=2, oob_score=True, max_samples=0.8,
                               random_state=0),
        RandomForestRegressor(n_estimators=5, random_state=0),
        RandomForestRegressor(n_estimators=5, n_jobs=2, oob_score=True, max_features=0.5,
                              random_state=0),
        RandomForestRegressor(n_estimators=5, criterion="absolute_error", random_state=0),
        ExtraTreeClassifier(random_state=0),
        ExtraTreeClassifier(criterion="entropy", max_leaf_nodes=8, max_features=None,
                            random_state=0),
        ExtraTreeRegressor(random_state=0),
        ExtraTreeRegressor(criterion="absolute_error", random_state=0),   # presorted
        ExtraTreesClassifier(n_estimators=5, random_state=0),
        ExtraTreesClassifier(n_estimators=5, bootstrap=True, oob_score=True, n_jobs=2,
                             random_state=0),
        ExtraTreesRegressor(n_estimators=5, random_state=0),
        ExtraTreesRegressor(n_estimators=5, bootstrap=True, oob_score=True, n_jobs=2,
                            max_features=0.5, random_state=0),
        RotationForestClassifier(n_estimators=5, random_state=0),
        RotationForestClassifier(n_estimators=5, rotation="gaussian", bootstrap=True,
                                 oob_score=True, n_jobs=2, random_state=0),
        RotationForestClassifier(n_estimators=5, rotation="gaussian", random_state=0),
        RotationForestRegressor(n_estimators=5, random_state=0),
        RotationForestRegressor(n_estimators=5, rotation="gaussian", bootstrap=True,
                                oob_score=True, n_jobs=2, random_state=0),
        RotationForestRegressor(n_estimators=5, rotation="gaussian", random_state=0),
        RandomForestQuantileRegressor(n_estimators=5, random_state=0),
        RandomForestQuantileRegressor(n_estimators=5, bootstrap=False, max_features=0.5,
                                      default_quantiles=0.3, random_state=0),
        RotationForestQuantileRegressor(n_estimators=5, random_state=0),
        # leaves of one row, as the regressor's: the quantile forest's default of two
        # counts rows, not weights, so weight 2 would not be two copies
        RotationForestQuantileRegressor(n_estimators=5, rotation="gaussian",
                                        min_samples_leaf=1, default_quantiles="mean",
                                        random_state=0),
        ExtraTreesQuantileRegressor(n_estimators=5, random_state=0),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
