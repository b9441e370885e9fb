"""
Explaining and deploying a rotation forest
==========================================

A rotation forest splits on axes that mix a few of the original features, so the usual
tools either explain it in the wrong space (its axes) or not at all. ``rotforest.explain``
gives exact SHAP values of the **original** features: a node of the forest reads every
feature its axis mixes. Here a rotation forest learns which tumours of the breast cancer
data are benign; the beeswarm shows each feature's contribution to the probability of
"benign" over 150 test rows, and the waterfall one row's decomposition, from the base
value (the mean of the leaves weighted by their training cover) to its prediction. The values add up to the prediction on
every row.

Then the forest is exported with ``rotforest.to_onnx`` and served by onnxruntime, whose
probabilities equal the forest's own to rounding.
"""
import matplotlib.pyplot as plt
import numpy as np
import shap
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from rotforest import RotationForestClassifier, explain, to_onnx

data = load_breast_cancer(as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(data.data, data.target,
                                                    test_size=150, random_state=0)
forest = RotationForestClassifier(n_estimators=50, n_jobs=2, random_state=0)
forest.fit(X_train, y_train)

ex = explain(forest, X_test, n_jobs=2)            # path-dependent values, exact
error = np.abs(ex.values.sum(axis=1) + ex.base_values - forest.predict_proba(X_test))
print(f"values {ex.values.shape}; largest additivity error {error.max():.1e}")

benign = ex.to_shap()[:, :, 1]                    # the class "benign" (1)
shap.plots.beeswarm(benign, max_display=10, show=False)
plt.title("Rotation forest, SHAP values of the original features")
plt.tight_layout()
plt.show()

# %%
# One row, from the base value to its prediction.
shap.plots.waterfall(benign[0], max_display=8, show=False)
plt.tight_layout()
plt.show()

# %%
# Interventional values against 50 background rows from the training data: the
# model's response to each feature, with the others drawn from the data.
inter = explain(forest, X_test.iloc[:20], background=X_train.iloc[:50], n_jobs=2)
order = np.argsort(-np.abs(ex.values[:20, :, 1]).mean(axis=0))[:5]
print("mean |value|, path-dependent and interventional, top 5 features:")
for j in order:
    print(f"  {data.feature_names[j]:<22} {np.abs(ex.values[:20, j, 1]).mean():.4f}  "
          f"{np.abs(inter.values[:, j, 1]).mean():.4f}")

# %%
# Served by onnxruntime: the exported model computes in double precision.
import onnxruntime as ort

session = ort.InferenceSession(to_onnx(forest).SerializeToString())
label, proba = session.run(None, {"X": X_test.to_numpy(dtype=np.float64)})
print("onnxruntime vs predict_proba, largest difference:",
      f"{np.abs(proba - forest.predict_proba(X_test)).max():.1e};",
      "labels identical:", bool((label == forest.predict(X_test)).all()))
