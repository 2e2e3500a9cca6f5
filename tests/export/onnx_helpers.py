"""Shared by the ONNX export tests: skip without onnx/onnxruntime, run a file in
onnxruntime."""
import pytest

onnx = pytest.importorskip("onnx", reason="the ONNX export tests need the 'onnx' package "
                                          "(pip install lamina[onnx])")
ort = pytest.importorskip("onnxruntime", reason="the ONNX export tests run the files in "
                                                "'onnxruntime' (pip install onnxruntime)")


def session(path):
    options = ort.SessionOptions()
    options.log_severity_level = 3                  # no shape-merge warnings in test logs
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def run(path, *arrays, names=None):
    """The outputs of the ONNX file for ``arrays`` (in the graph's input order), or for the
    dict ``names`` -> array."""
    s = session(path)
    feed = names if names is not None else \
        {i.name: a for i, a in zip(s.get_inputs(), arrays)}
    return s.run(None, feed)
