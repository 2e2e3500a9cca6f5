"""``jvp``: forward-mode derivatives from the reverse-mode tape, by the double-backward
trick. With ``y = f(x)`` and a stand-in cotangent ``u``, the tape gives ``J^T u``, which is
linear in ``u``; differentiating ``<J^T u, t>`` with respect to ``u`` gives ``J t``.
The tape is ``lamina/autograd``'s (above ops), registered with ``core/mode``."""
from __future__ import annotations

from .. import tree
from ..core import mode
from .core import convert_to_tensor, zeros_like
from .math import add, multiply
from .reduction import sum as reduce_sum

__all__ = ["jvp"]


def jvp(fun, primals, tangents, has_aux=False):
    """``(fun(*primals), J @ tangents)`` (and ``aux`` when ``has_aux``: ``fun`` returns
    ``(output, aux)``), as JAX's ``jax.jvp``.

    Args:
        fun: The function to differentiate; it takes ``len(primals)`` arguments.
        primals: A tuple or list of the points to evaluate ``fun`` at.
        tangents: A tuple or list of the directions, one per primal, of the same shapes.
        has_aux: Whether ``fun`` returns ``(output, aux)``, where ``aux`` is passed through
            undifferentiated. Defaults to False.

    Returns:
        ``(output, jvp_out)``, or ``(output, jvp_out, aux)`` with ``has_aux``.

    Raises:
        TypeError: If ``primals`` or ``tangents`` is not a tuple or list.
        ValueError: If they differ in length.
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(f"jvp: arguments 'primals' and 'tangents' must be tuples or lists; "
                        f"received {type(primals).__name__} and {type(tangents).__name__}")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: 'primals' and 'tangents' must have the same length; "
                         f"received {len(primals)} and {len(tangents)}")
    xs = [convert_to_tensor(p) for p in tree.flatten(list(primals))]
    ts = [convert_to_tensor(t, dtype=x.dtype)
          for x, t in zip(xs, tree.flatten(list(tangents)))]
    if len(ts) != len(xs):
        raise ValueError("jvp: 'tangents' must have the structure of 'primals'")
    tape = mode.engines.tape
    with tape(persistent=True) as outer:
        with tape(persistent=True) as inner:
            for x in xs:
                inner.watch(x)
            args = tree.pack_sequence_as(list(primals), xs)
            result = fun(*args)
            out, aux = result if has_aux else (result, None)
            ys = tree.flatten(out)
            us = [zeros_like(y) for y in ys]
            for u in us:
                outer.watch(u)
                inner.watch(u)
            total = None
            for y, u in zip(ys, us):
                term = reduce_sum(multiply(y, u))
                total = term if total is None else add(total, term)
        vjps = inner.gradient(total, xs, unconnected_gradients="zero")
        dot = None
        for g, t in zip(vjps, ts):
            term = reduce_sum(multiply(g, t))
            dot = term if dot is None else add(dot, term)
    tangent_out = outer.gradient(dot, us, unconnected_gradients="zero")
    tangent_out = tree.pack_sequence_as(out, tangent_out)
    return (out, tangent_out, aux) if has_aux else (out, tangent_out)
