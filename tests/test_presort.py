"""The presort: order by value, ties by sample index, dense ranks."""
import numpy as np
import pytest

from rotforest import _builder


@pytest.mark.parametrize("kind", ["continuous", "few_values", "binary", "signed_zeros"])
def test_presort_orders_by_value_then_index(kind):
    rng = np.random.default_rng(0)
    n = 5000
    X = {
        "continuous": rng.normal(size=(n, 3)),
        "few_values": np.round(rng.normal(size=(n, 3)) * 3),
        "binary": rng.integers(0, 2, size=(n, 3)).astype(float),
        "signed_zeros": rng.choice([-0.0, 0.0, 1.5, -2.0], size=(n, 3)),
    }[kind]
    keys = _builder.presort(np.asfortranarray(X))
    assert keys.shape == (3, n) and keys.dtype == np.uint64
    for j in range(3):
        expected = np.argsort(X[:, j], kind="stable")      # stable: ties by index
        np.testing.assert_array_equal(keys[j] & 0xFFFFFFFF, expected)
        ranks = np.unique(X[:, j], return_inverse=True)[1]  # -0.0 and 0.0 are one value
        np.testing.assert_array_equal(keys[j] >> 32, ranks[expected])
