"""The built-in ONNX converters, one module per op family (see ``lamina/export/registry.py``
for how to write and register one)."""
from . import activations, conv_pool, dense, elementwise, indexing  # noqa: F401
from . import more_math, recurrent, reductions, scan, shape  # noqa: F401
from . import quantized  # noqa: F401  (int8 products of quantized layers)
