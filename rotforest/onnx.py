"""ONNX export (work in progress)."""


def to_onnx(estimator):
    raise NotImplementedError
