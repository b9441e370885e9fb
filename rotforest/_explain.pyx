"""Exact SHAP kernels (see rotforest.explain)."""
