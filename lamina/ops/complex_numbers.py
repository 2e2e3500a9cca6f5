"""Complex numbers, as Keras 3's ``keras.ops``: ``view_as_complex``/``view_as_real``,
``polar``, and the views ``real``, ``imag``, ``conj``/``conjugate``, ``angle``, ``isreal``
(and ``abs`` of a complex tensor, which ``lamina.ops.abs`` sends here).

complex64 and complex128 tensors support elementwise arithmetic (``+ - * /``, negation,
``where``, reductions by sum) and the functions here; float-only ops refuse them. The
views of a real tensor are trivial (``real`` and ``conj`` return it, ``imag`` is zeros,
``isreal`` all true, ``angle`` 0 or pi).

Gradients follow JAX's convention, which Keras's JAX backend gives: a cotangent is carried
through each op's transpose without conjugation, so a holomorphic op passes ``g * f'(z)``,
``real`` passes ``g + 0j``, ``imag`` passes ``-1j * g``, a float -> complex cast keeps the
real part of its cotangent, ``re + 1j * im`` passes ``(real(g), -imag(g))`` and ``abs``
passes ``g * conj(z) / |z|``.
"""
from __future__ import annotations

from ..dtypes import is_complex, real_dtype
from ..errors import DTypeError, ShapeError, describe_shape
from .compare import equal
from .core import as_tensor, cast, full_like, unchanged, zeros_like
from .elementwise import Unary
from .math import divide, multiply, negative
from .trig import cos, sin
from .where_clip import where
from .reshaping import stack
from .slicing import getitem
from .trig import arctan2, to_float
from ..core.op import Op, Spec, broadcast_shapes, register_op
from .refused import refused

__all__ = ["view_as_complex", "view_as_real", "polar", "real", "imag", "conj", "conjugate",
           "angle", "isreal"]


class _Part(Unary):
    """A complex tensor -> one of its real parts (float32 for complex64)."""

    def output_spec(self, x):
        return Spec(x.shape, real_dtype(x.dtype))


@register_op
class Real(_Part):
    name = "complex_real"
    kernel = "real"

    def gradient(self, ctx, g):
        return (cast(g, ctx.inputs[0].dtype),)


@register_op
class Imag(_Part):
    name = "complex_imag"
    kernel = "imag"

    def gradient(self, ctx, g):
        return (multiply(cast(g, ctx.inputs[0].dtype), -1j),)


@register_op
class Conjugate(Unary):
    name = "complex_conjugate"
    kernel = "conjugate"

    def gradient(self, ctx, g):
        return (Conjugate(g),)


@register_op
class ComplexAbs(_Part):
    """``|z|`` of a complex tensor (xp's ``absolute``: no overflow in the squares)."""
    name = "complex_abs"
    kernel = "absolute"

    def gradient(self, ctx, g):
        z, y = ctx.inputs[0], ctx.outputs[0]
        zero = equal(y, 0)
        direction = divide(Conjugate(z), cast(where(zero, 1, y), z.dtype))
        return (multiply(cast(g, z.dtype), where(zero, 0, direction)),)


def complex_abs(z):
    """``|z|`` for a complex tensor ``z`` (``lamina.ops.abs`` sends complex input here)."""
    return ComplexAbs(z)


def real(x):
    """The real part: float32 for complex64 (float64 for complex128); a real tensor is
    returned as it is.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    x = as_tensor("real", x)
    return Real(x) if is_complex(x.dtype) else unchanged(x)


def imag(x):
    """The imaginary part: float32 for complex64 (float64 for complex128); zeros of a real
    tensor's shape and dtype.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    x = as_tensor("imag", x)
    return Imag(x) if is_complex(x.dtype) else zeros_like(x)


def conj(x):
    """The complex conjugate; a real tensor is returned as it is.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    x = as_tensor("conj", x)
    return Conjugate(x) if is_complex(x.dtype) else unchanged(x)


conjugate = conj


def angle(x):
    """The argument of ``x``, in ``[-pi, pi]`` (``arctan2(imag, real)``): float32 for
    complex64; for real input 0 for positive numbers and +0, pi for negative numbers and
    -0, integers giving floatx().

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    x = as_tensor("angle", x)
    if is_complex(x.dtype):
        return arctan2(Imag(x), Real(x))
    x = to_float("angle", x)
    return arctan2(zeros_like(x), x)


def isreal(x):
    """True where the imaginary part is 0 (everywhere for a real tensor).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A bool tensor of ``x``'s shape.
    """
    x = as_tensor("isreal", x)
    if is_complex(x.dtype):
        return equal(Imag(x), 0)
    return full_like(x, True, dtype="bool")


@register_op
class MakeComplex(Op):
    """``re + 1j * im`` (JAX's ``lax.complex``) from two float tensors of one shape and
    dtype: complex128 from float64, complex64 from the other floats."""
    name = "make_complex"
    writes_out = True

    def output_spec(self, re, im):
        if re.dtype != im.dtype or re.dtype not in _PARTS or re.shape != im.shape:
            raise DTypeError(f"make_complex: the real and imaginary parts must be float "
                             f"tensors of one dtype and shape; received {re.dtype} "
                             f"{describe_shape(re.shape)} and {im.dtype} "
                             f"{describe_shape(im.shape)}")
        return Spec(re.shape, _PARTS[re.dtype])

    def forward(self, backend, re, im, out=None):
        return backend.make_complex(re, im, out=out)

    def gradient(self, ctx, g):
        dtype = ctx.inputs[0].dtype
        return cast(Real(g), dtype), cast(negative(Imag(g)), dtype)


_PARTS = {"float16": "complex64", "bfloat16": "complex64", "float32": "complex64",
          "float64": "complex128"}


def view_as_complex(x):
    """A real tensor of shape ``(..., 2)`` -> the complex64 tensor ``x[..., 0] +
    1j * x[..., 1]`` of shape ``x.shape[:-1]`` (complex64 for every input dtype, as in
    Keras).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A complex64 tensor of shape ``x.shape[:-1]``.
    """
    x = as_tensor("view_as_complex", x)
    if x.ndim < 1 or x.shape[-1] != 2:
        raise ShapeError(f"view_as_complex: Last dimension of input must be size 2 (real and "
                         f"imaginary); received shape {describe_shape(x.shape)}")
    if is_complex(x.dtype):
        raise DTypeError(f"view_as_complex: argument 'x' must be a real tensor; received "
                         f"dtype {x.dtype}")
    x = cast(x, "float32")
    return MakeComplex(getitem(x, (Ellipsis, 0)), getitem(x, (Ellipsis, 1)))


def view_as_real(x):
    """A complex tensor -> its real and imaginary parts stacked on a new last axis of size
    2 (float32 for complex64); a real tensor gets zeros as its imaginary parts.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A real tensor of shape ``x.shape + (2,)``.
    """
    x = as_tensor("view_as_real", x)
    return stack([real(x), imag(x)], axis=-1)


def polar(abs_, angle):
    """The complex numbers of magnitude ``abs_`` and argument ``angle`` (radians):
    ``abs_ * cos(angle) + 1j * abs_ * sin(angle)``; complex64 from float32 (or integer)
    input, complex128 from float64.

    Args:
        abs_: The magnitudes, a real tensor.
        angle: The arguments in radians, a real tensor broadcasting with ``abs_``.

    Returns:
        A complex tensor of the broadcast shape.
    """
    magnitude, theta = to_float("polar", abs_), to_float("polar", angle)
    if is_complex(magnitude.dtype) or is_complex(theta.dtype):
        raise DTypeError(f"polar: arguments 'abs_' and 'angle' must be real tensors; "
                         f"received {magnitude.dtype} and {theta.dtype}")
    try:
        broadcast_shapes("polar", magnitude.shape, theta.shape, args=("abs_", "angle"))
    except ShapeError as error:        # Keras's symbolic rule: abs_'s shape; refused if run
        return refused(ShapeError, str(error), (magnitude, theta),
                       (magnitude.shape, _PARTS.get(magnitude.dtype, "complex64")))
    # both parts broadcast abs_ against angle alike: one shape and dtype
    return MakeComplex(multiply(magnitude, cos(theta)), multiply(magnitude, sin(theta)))
