"""The simplify pass's loss rules: log(softmax) and the crossentropies on probabilities
become the stable fused ops of ``lamina/ops/fused_crossentropy.py`` (not a pass itself:
``simplify.py`` runs these rules first, before its peephole rules change the chains).

The patterns are what ``lamina.losses`` traces (``losses/crossentropy.py`` and
``losses/numerics.py``)::

    categorical, probabilities:  -sum(y * log(clip(p / sum(p, k), lo, hi)), k)   p = softmax(x, k)
    sparse, probabilities:       -squeeze(take_along_axis(log(clip(...)), i, k), k)
    categorical / sparse, logits: the same with log_softmax(x, k) for log(clip(...))
    binary, probabilities:       mean(-(z log(c) + (1 - z) log(1 - c)), k)   c = clip(sigmoid(x))

In a training graph the chains' gradients are found and fused too
(:func:`lamina.graph.rewrite_gradients.replace_chain`). ``p = softmax(x)`` (often read by
metrics) and ``1 - z`` may stay; every other value of a chain must be read only by the
chain and its gradient, or the rule declines.
"""
from __future__ import annotations

from ...dtypes import is_int
from ...ops.fused_crossentropy import SoftmaxCrossentropy
from ...ops.fused_sigmoid_crossentropy import SigmoidCrossentropy
from ...ops.softmax import LogSoftmax
from ..rewrite import Const, Pat, Rule, constant_value
from ..rewrite_gradients import replace_chain


def _axis(value, keepdims=None):
    """The single reduced axis of ``value``'s node, or None."""
    attrs = value.node.attrs
    axis = attrs.get("axis")
    if not isinstance(axis, tuple) or len(axis) != 1:
        return None
    if keepdims is not None and bool(attrs.get("keepdims")) != keepdims:
        return None
    return axis[0]


def _bounds(m):
    """The clip's bounds as floats, when they are probabilities ``0 < lo < hi < 1``."""
    lo, hi = constant_value(m["lo"]), constant_value(m["hi"])
    if lo is None or hi is None or not 0 < lo < hi < 1:
        return None
    return float(lo), float(hi)


def _log_softmax(m):
    x, p = m["x"], m["p"]
    return replace_chain(m, LogSoftmax(x, axis=p.node.attrs["axis"]), keep=[p])


def _probabilities(m):
    """(axis, bounds) when the log-probabilities come from softmax -> normalize -> clip."""
    k = _axis(m["p"])
    if k is None or _axis(m["s"], keepdims=True) != k:
        return None
    bounds = _bounds(m)
    return None if bounds is None else (k, bounds)


def _categorical(m, k, bounds):
    y, x = m["y"], m["x"]
    if _axis(m["total"], keepdims=False) != k or tuple(y.shape) != tuple(x.shape) or \
            y.dtype != x.dtype:
        return None
    fused = SoftmaxCrossentropy(y, x, axis=k, sparse=False, bounds=bounds)
    return replace_chain(m, fused, keep=[m.get("p", m["logp"])])


def _sparse(m, k, bounds):
    i, x, t = m["i"], m["x"], m["t"]
    if t.node.attrs.get("axis") != k or m["sq"].node.attrs.get("axis") != (k,) or \
            not is_int(i.dtype):
        return None
    checked = {key: t.node.attrs[key] for key in ("range_message",) if key in t.node.attrs}
    fused = SoftmaxCrossentropy(i, x, axis=k, sparse=True, bounds=bounds, **checked)
    return replace_chain(m, fused, keep=[m.get("p", m["logp"])])


def _from_probabilities(build):
    def rule(m):
        found = _probabilities(m)
        return None if found is None else build(m, *found)
    return rule


def _from_logits(build):
    def rule(m):
        k = _axis(m["logp"])
        return None if k is None else build(m, k, None)
    return rule


def _binary(m):
    z, x = m["z"], m["x"]
    k, bounds = _axis(m["mean"], keepdims=False), _bounds(m)
    if k is None or bounds is None or tuple(z.shape) != tuple(x.shape) or z.dtype != x.dtype:
        return None
    fused = SigmoidCrossentropy(z, x, axis=k, bounds=bounds)
    return replace_chain(m, fused, keep=[m["p"], m["nz"]])


def _clipped_log(inner):
    return Pat("log", Pat("clip", inner, Const(name="lo"), Const(name="hi")), name="logp")


_X = Pat(name="x")
_SOFTMAX = Pat("softmax", _X, name="p")
_NORMALIZED = Pat("divide", _SOFTMAX, Pat("sum", Pat(name="p"), name="s"))
_LOG_PROBS = _clipped_log(_NORMALIZED)
_LOG_SOFTMAX = Pat("log_softmax", _X, name="logp")


def _categorical_pattern(log_probs):
    product = Pat("multiply", Pat(name="y"), log_probs, commutative=True)
    return Pat("negative", Pat("sum", product, name="total"))


def _sparse_pattern(log_probs):
    picked = Pat("take_along_axis", log_probs, Pat(name="i"), name="t")
    return Pat("negative", Pat("squeeze", picked, name="sq"))


_CLIPPED = Pat("clip", Pat("sigmoid", _X, name="p"), Const(name="lo"), Const(name="hi"))
_Z = Pat(name="z")
_BINARY = Pat("mean", Pat("negative", Pat(
    "add",
    Pat("multiply", _Z, Pat("log", _CLIPPED), commutative=True),
    Pat("multiply", Pat("subtract", Const(1), _Z, name="nz"),
        Pat("log", Pat("subtract", Const(1), _CLIPPED)), commutative=True),
    commutative=True)), name="mean")

RULES = [
    Rule("categorical_crossentropy", _categorical_pattern(_LOG_PROBS),
         _from_probabilities(_categorical)),
    Rule("sparse_categorical_crossentropy", _sparse_pattern(_LOG_PROBS),
         _from_probabilities(_sparse)),
    Rule("categorical_crossentropy_logits", _categorical_pattern(_LOG_SOFTMAX),
         _from_logits(_categorical)),
    Rule("sparse_categorical_crossentropy_logits", _sparse_pattern(_LOG_SOFTMAX),
         _from_logits(_sparse)),
    Rule("binary_crossentropy", _BINARY, _binary),
    Rule("log_softmax", Pat("log", _SOFTMAX), _log_softmax),
]
