"""Integer products for quantized layers: ``int8_matmul``, int8 x int8 -> exact int32.

The int8 Dense, EinsumDense (lamina/layers/core/int8_*.py) multiply their quantized
inputs by their int8 kernels with it, as Keras's int8 layers do with an int32-accumulating
matmul. The backend computes it exactly through the float32 GEMM
(lamina/backend/int8_matmul.py). It has no gradient: the layers route the gradient around
it with a custom gradient through the dequantized kernel, as Keras does.
"""
from __future__ import annotations

from ..errors import DTypeError, ShapeError, describe_shape
from .core import as_tensor
from ..core.op import Op, Spec, broadcast_shapes, register_op

__all__ = ["int8_matmul"]


@register_op
class Int8MatMul(Op):
    name = "int8_matmul"
    differentiable = False
    writes_out = True

    def output_spec(self, a, b):
        for arg, x in (("x1", a), ("x2", b)):
            if x.dtype != "int8":
                raise DTypeError(f"int8_matmul: argument '{arg}' must be an int8 tensor; "
                                 f"received dtype {x.dtype}")
            if len(x.shape) < 2:
                raise ShapeError(f"int8_matmul: argument '{arg}' must have rank >= 2; "
                                 f"received shape {describe_shape(x.shape)}")
        k1, k2 = a.shape[-1], b.shape[-2]
        if k1 is not None and k2 is not None and k1 != k2:
            raise ShapeError(f"int8_matmul: arguments 'x1' and 'x2' have mismatched inner "
                             f"dimensions ({k1} and {k2}); received shapes "
                             f"{describe_shape(a.shape)} and {describe_shape(b.shape)}")
        batch = broadcast_shapes(self.name, tuple(a.shape[:-2]), tuple(b.shape[:-2]),
                                 args=("x1", "x2"))
        return Spec(batch + (a.shape[-2], b.shape[-1]), "int32")

    def forward(self, backend, a, b, out=None):
        return backend.int8_matmul(a, b, out=out)


def int8_matmul(x1, x2):
    """The exact int32 matrix product of two int8 tensors of rank >= 2 (numpy's matmul
    rules for the batch axes)."""
    return Int8MatMul(as_tensor("int8_matmul", x1), as_tensor("int8_matmul", x2))
