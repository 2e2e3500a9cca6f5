"""Fused ops that the graph optimizer puts in place of op chains (``graph/passes/fuse.py``).

On numpy there is no code generation, so fusion means *in-place epilogues*: the GEMM (or
the convolution's GEMM) writes its output buffer, then the bias add and the activation run
in place on that same buffer with ``out=`` — no temporary per step, one memory pass less
(reference/graph.md, §0.5 and §3 pass 8).

* ``dense_bias_act(x, w[, b])``: ``act(x @ w + b)`` for a 2-D ``w`` (x may be N-D).
* ``conv2d_bias_act(x, w[, b])``: ``act(conv2d(x, w) + b)``, conv2d's attributes.

``activation`` is one of ``ACTIVATIONS``. With ``save_mask=True`` (relu only) the op has a
second output, the float mask ``(y > 0)`` that the relu computes anyway; the backward pass
multiplies by it instead of recomputing ``cast(greater(pre_activation, 0))``, so the
pre-activation never has to stay alive. The mask is piecewise constant: no gradient flows
into it. Sigmoid and tanh need no mask: their gradients read the output.

Both ops have full gradient rules written with ops (so eager mode, the harness and second
derivatives work), although the optimizer only creates them after autodiff.
"""
from __future__ import annotations

from ..errors import DTypeError, ShapeError, describe_shape
from .compare import greater
from .conv import Conv2D
from .core import as_tensors, cast
from .elementwise import unbroadcast
from .linalg import MatMul
from .math import multiply, square, subtract
from ..core.op import Context, Op, Spec, register_op

ACTIVATIONS = ("linear", "relu", "sigmoid", "tanh")
_CONV_ATTRS = ("strides", "padding", "dilation", "groups")


def _check_epilogue(op: str, y: Spec, bias, activation, save_mask) -> Spec | tuple:
    """The shared checks of a fused op's bias and activation; its output spec(s)."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"{op}: argument 'activation' must be one of {ACTIVATIONS}; "
                         f"received {activation!r}")
    if save_mask and activation != "relu":
        raise ValueError(f"{op}: save_mask=True is only for activation='relu' (the other "
                         f"activations' gradients read the output); received "
                         f"activation={activation!r}")
    if bias is not None:
        if bias.dtype != y.dtype:
            raise DTypeError(f"{op}: argument 'bias' must have the output's dtype "
                             f"{y.dtype}; received {bias.dtype}")
        if tuple(bias.shape) != (y.shape[-1],):
            raise ShapeError(f"{op}: argument 'bias' must have shape ({y.shape[-1]},) (one "
                             f"value per output channel); received "
                             f"{describe_shape(bias.shape)}")
    return (y, Spec(y.shape, y.dtype)) if save_mask else y


def _split_out(out, save_mask: bool):
    """``out`` is one buffer (the output, or with save_mask the first output) or a pair."""
    if out is None:
        return None, None
    if isinstance(out, (tuple, list)):
        return tuple(out) if save_mask else (out[0], None)
    return out, None


def _epilogue(backend, y, bias, activation, save_mask, mask_out):
    """Bias add and activation in place on ``y``; returns y, or (y, mask)."""
    if bias is not None:
        backend.binary("add", y, bias, out=y)
    if activation == "relu":
        # y * (y > 0), as the relu op computes it; the float mask doubles as its gradient
        if save_mask and mask_out is None:
            mask_out = backend.empty(y.shape, y.dtype)
        mask = backend.binary("greater", y, 0, out=mask_out)
        backend.binary("multiply", y, mask, out=y)
        return (y, mask) if save_mask else y
    if activation != "linear":
        backend.unary(activation, y, out=y)
    return y


def _activation_grad(activation, g, y, mask):
    """d act / d pre-activation, applied to ``g``, from the output (or the saved mask)."""
    if activation == "relu":
        return multiply(g, mask if mask is not None else cast(greater(y, 0), g.dtype))
    if activation == "sigmoid":
        return multiply(g, multiply(y, subtract(1, y)))
    if activation == "tanh":
        return multiply(g, subtract(1, square(y)))
    return g


class _FusedLinear(Op):
    """Shared gradient: activation, then the bias sum and the linear op's own rule."""
    linear: Op = None
    writes_out = True          # the GEMM writes ``out``; it must not alias an input

    def linear_attrs(self, attrs) -> dict:
        return {}

    def gradient(self, ctx, g, g_mask=None):
        attrs = ctx.attrs
        y = ctx.outputs[0]
        mask = ctx.outputs[1] if attrs.get("save_mask") else None
        g_pre = _activation_grad(attrs.get("activation", "linear"), g, y, mask)
        x, w = ctx.inputs[:2]
        inner = Context((x, w), (y,), self.linear_attrs(attrs), ctx.needs_grad[:2])
        gx, gw = self.linear.gradient(inner, g_pre)
        grads = [gx, gw]
        if len(ctx.inputs) == 3:
            grads.append(unbroadcast(g_pre, ctx.inputs[2]) if ctx.needs_grad[2] else None)
        return tuple(grads)


@register_op
class DenseBiasAct(_FusedLinear):
    """``act(x @ w + b)``: one GEMM, then the bias add and activation in place."""
    name = "dense_bias_act"
    linear = MatMul

    def output_spec(self, x, w, bias=None, activation="linear", save_mask=False):
        if len(w.shape) != 2 or len(x.shape) < 2:
            raise ShapeError(f"{self.name}: 'x' must have rank >= 2 and 'w' rank 2; received "
                             f"{describe_shape(x.shape)} and {describe_shape(w.shape)}")
        return _check_epilogue(self.name, MatMul.output_spec(x, w), bias, activation,
                               save_mask)

    def forward(self, backend, x, w, bias=None, out=None, activation="linear",
                save_mask=False):
        y_out, mask_out = _split_out(out, save_mask)
        if x.ndim == 2:
            y = backend.matmul(x, w, out=y_out)
        else:                      # N-D input: one GEMM over the flattened leading axes
            flat_x = backend.reshape(x, (-1, x.shape[-1]))
            shape = x.shape[:-1] + (w.shape[1],)
            if y_out is not None and y_out.flags.c_contiguous:
                backend.matmul(flat_x, w, out=backend.reshape(y_out, (-1, w.shape[1])))
                y = y_out
            else:
                y = backend.reshape(backend.matmul(flat_x, w), shape)
                if y_out is not None:
                    backend.copy_(y_out, y)
                    y = y_out
        return _epilogue(backend, y, bias, activation, save_mask, mask_out)

    def bind(self, backend, inputs, out=None, activation="linear", save_mask=False):
        """A plan's kernel for these (symbolic) inputs: see ``_bound_dense``."""
        if save_mask:
            return None
        x, w = inputs[:2]
        bias = inputs[2] if len(inputs) == 3 else None
        return _bound_dense(backend, x, w, bias, out, activation)


def _bound_dense(backend, x, w, bias, out, activation):
    """DenseBiasAct's forward for a 2-D ``x`` (into ``out`` when given), as one closure
    over the backend's kernels for these dtypes (what a plan runs); None where it does
    not apply (the general forward then runs)."""
    if isinstance(out, (tuple, list)) or len(x.shape) != 2 or \
            activation not in ("linear", "relu"):
        return None
    dtypes = (x.dtype, w.dtype) + ((bias.dtype,) if bias is not None else ())
    matmul = backend.bound_matmul(*dtypes, rows=x.shape[0])
    add = backend.bound_binary("add", *dtypes)
    greater = backend.bound_binary("greater", x.dtype)
    multiply = backend.bound_binary("multiply", x.dtype)
    if None in (matmul, add, greater, multiply):
        return None
    relu = activation == "relu"

    def run(x, w, bias=None):
        y = matmul(x, w, out=out)
        if bias is not None:
            add(y, bias, out=y)
        if relu:                   # y * (y > 0), as _epilogue computes it
            multiply(y, greater(y, 0), out=y)
        return y
    return run


@register_op
class Conv2DBiasAct(_FusedLinear):
    """``act(conv2d(x, w) + b)``: the convolution's GEMM output gets the epilogue in place."""
    name = "conv2d_bias_act"
    onednn_primitives = True
    linear = Conv2D

    def linear_attrs(self, attrs) -> dict:
        return {k: attrs[k] for k in _CONV_ATTRS}

    def output_spec(self, x, w, bias=None, strides=(1, 1), padding="valid",
                    dilation=(1, 1), groups=1, activation="linear", save_mask=False):
        y = Conv2D.output_spec(x, w, strides, padding, dilation, groups)
        return _check_epilogue(self.name, y, bias, activation, save_mask)

    def forward(self, backend, x, w, bias=None, out=None, strides=(1, 1), padding="valid",
                dilation=(1, 1), groups=1, activation="linear", save_mask=False):
        y_out, mask_out = _split_out(out, save_mask)
        pads = Conv2D.pads(padding, x.shape[1:3], w.shape, strides, dilation)
        y = backend.conv2d_bias_act(x, w, bias, strides, pads, dilation, groups, activation,
                                    out=y_out)
        if y is not None:              # one kernel, the bits of the separate steps
            if not (save_mask and activation == "relu"):
                return y
            if mask_out is None:       # the float mask, as _epilogue makes it
                mask_out = backend.empty(y.shape, y.dtype)
            return y, backend.binary("greater", y, 0, out=mask_out)  # relu(y) > 0 iff y > 0
        y = backend.conv2d(x, w, strides, pads, dilation, groups, out=y_out)
        if save_mask and mask_out is None:
            mask_out = backend.empty(y.shape, y.dtype)
        _epilogue(backend, y, bias, activation, save_mask, mask_out)
        return (y, mask_out) if save_mask else y


def dense_bias_act(x, w, bias=None, activation: str = "linear", save_mask: bool = False):
    """``act(x @ w + bias)`` as one fused op (``bias`` may be None)."""
    args = as_tensors("dense_bias_act", x, w) if bias is None else \
        as_tensors("dense_bias_act", x, w, bias)
    return DenseBiasAct(*args, activation=activation, save_mask=save_mask)


def conv2d_bias_act(x, w, bias=None, strides=(1, 1), padding="valid", dilation=(1, 1),
                    groups: int = 1, activation: str = "linear", save_mask: bool = False):
    """``act(conv2d(x, w) + bias)`` as one fused op; ``padding`` 'valid', 'same' or pads."""
    args = as_tensors("conv2d_bias_act", x, w) if bias is None else \
        as_tensors("conv2d_bias_act", x, w, bias)
    return Conv2DBiasAct(*args, strides=tuple(strides), padding=padding,
                         dilation=tuple(dilation), groups=groups, activation=activation,
                         save_mask=save_mask)
