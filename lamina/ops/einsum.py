"""``einsum``: Einstein summation over any number of operands (Keras 3's
``keras.ops.einsum``, numpy's subscripts: explicit ``->`` or implicit output, ``...`` for
broadcast axes, repeated labels in one operand for diagonals).

A composition: each operand's repeated labels become a ``diagonal``, labels used by one
operand only are summed away, then operands are contracted pairwise, left to right, each
pair as one batched ``matmul`` between transposes and reshapes. The gradient comes from
those ops.
"""
from __future__ import annotations

import string

from ..errors import ShapeError, describe_shape
from ..core.ignored_arguments import warn_ignored
from .core import as_tensors
from .diagonals import diagonal
from .linalg import matmul
from .reduction import sum as reduce_sum
from .reshaping import broadcast_to, reshape, transpose

__all__ = ["einsum"]


def _parse(subscripts: str, operands) -> tuple[list[str], str]:
    """Input specs and the output spec, with every ``...`` spelled out in unused letters."""
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: argument 'subscripts' must be a str; received "
                        f"{subscripts!r}")
    text = subscripts.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    specs = lhs.split(",")
    if len(specs) != len(operands):
        raise ValueError(f"einsum: {subscripts!r} names {len(specs)} operands; received "
                         f"{len(operands)}")
    for s in specs + [rhs]:
        bad = set(s.replace("...", "")) - set(string.ascii_letters)
        if bad or s.replace("...", "").count(".") or s.count("...") > 1:
            raise ValueError(f"einsum: subscripts must be letters with at most one '...' per "
                             f"operand; received {subscripts!r}")
    used = set(text)
    spare = [c for c in string.ascii_letters if c not in used]
    ranks = []
    for s, x in zip(specs, operands):
        named = len(s.replace("...", ""))
        extra = x.ndim - named
        if extra < 0 or (extra and "..." not in s):
            raise ShapeError(f"einsum: operand spec {s!r} does not match an operand of shape "
                             f"{describe_shape(x.shape)}")
        ranks.append(extra if "..." in s else 0)
    width = max(ranks, default=0)
    ell = "".join(spare[:width])
    specs = [s.replace("...", ell[width - r:]) for s, r in zip(specs, ranks)]
    if arrow:
        out = rhs.replace("...", ell)
        for c in out:
            if not any(c in s for s in specs):
                raise ValueError(f"einsum: output label {c!r} of {subscripts!r} is in no "
                                 "operand")
        if len(set(out)) != len(out):
            raise ValueError(f"einsum: output labels of {subscripts!r} repeat")
    else:
        joined = "".join(specs)
        out = ell + "".join(sorted(c for c in set(joined) if joined.count(c) == 1
                                   and c not in ell))
    return specs, out


def _take_diagonals(x, spec: str):
    while len(set(spec)) != len(spec):
        c = next(c for c in spec if spec.count(c) > 1)
        i = spec.index(c)
        j = spec.index(c, i + 1)
        x = diagonal(x, 0, i, j)
        spec = "".join(d for k, d in enumerate(spec) if k not in (i, j)) + c
    return x, spec


def _sum_unused(x, spec: str, keep: str):
    axes = tuple(i for i, c in enumerate(spec) if c not in keep)
    if not axes:
        return x, spec
    return reduce_sum(x, axis=axes), "".join(c for c in spec if c in keep)


def _product(sizes):
    total = 1
    for s in sizes:
        if s is None:
            return -1
        total *= s
    return total


def _contract(a, sa: str, b, sb: str, keep: str):
    """The pair's product: labels in both and in ``keep`` are batch axes, labels in both
    otherwise are summed; the result's spec is batch + a's free + b's free labels."""
    a, sa = _sum_unused(a, sa, keep + sb)
    b, sb = _sum_unused(b, sb, keep + sa)
    batch = [c for c in sa if c in sb and c in keep]
    summed = [c for c in sa if c in sb and c not in keep]
    free_a = [c for c in sa if c not in sb]
    free_b = [c for c in sb if c not in sa]
    size = {**dict(zip(sa, a.shape)), **dict(zip(sb, b.shape))}
    a = transpose(a, [sa.index(c) for c in batch + free_a + summed])
    b = transpose(b, [sb.index(c) for c in batch + summed + free_b])
    lead = [-1 if size[c] is None else size[c] for c in batch]
    a = reshape(a, lead + [_product(size[c] for c in free_a), _product(size[c] for c in summed)])
    b = reshape(b, lead + [_product(size[c] for c in summed), _product(size[c] for c in free_b)])
    y = matmul(a, b)
    spec = batch + free_a + free_b
    return reshape(y, [-1 if size[c] is None else size[c] for c in spec]), "".join(spec)


def einsum(subscripts, *operands, **kwargs):
    """Einstein summation, e.g. ``einsum("bij,bjk->bik", a, b)`` (batched matmul),
    ``einsum("ii", x)`` (trace), ``einsum("...ij->...ji", x)``. Differentiable.

    Args:
        subscripts: The equation, e.g. "ij,jk->ik".
        *operands: The tensors, one per operand of ``subscripts``.
        **kwargs: Not used: any keyword argument is refused.

    Returns:
        The result of the equation.

    Raises:
        TypeError: For any keyword argument.

    Example:

    >>> lamina.ops.einsum("ij,j->i", np.ones((2, 3)), np.arange(3.0)).numpy()
    array([3., 3.])
    """
    if "optimize" in kwargs:      # numpy/JAX's contraction-order hint: results are the same
        warn_ignored("einsum", "optimize", kwargs.pop("optimize"),
                     "operands are contracted pairwise, left to right")
    if kwargs:
        raise TypeError(f"einsum: unexpected keyword arguments {sorted(kwargs)}")
    if not operands:
        raise ValueError("einsum: at least one operand is required")
    operands = as_tensors("einsum", *operands)
    specs, out = _parse(subscripts, operands)
    # broadcast size-1 axes against the other operands' sizes of the same label
    sizes: dict[str, int | None] = {}
    for s, x in zip(specs, operands):
        for c, d in zip(s, x.shape):
            known = sizes.get(c, 1)
            if d is not None and d != 1 and known not in (1, None) and known != d:
                raise ShapeError(f"einsum: label {c!r} has sizes {known} and {d} in "
                                 f"{subscripts!r}")
            if known in (1,) or (known is None and d not in (None, 1)):
                sizes[c] = d
    pairs = []
    for s, x in zip(specs, operands):
        target = tuple(sizes[c] if d == 1 and sizes[c] not in (1, None) else d
                       for c, d in zip(s, x.shape))
        if target != tuple(x.shape):
            x = broadcast_to(x, target)
        pairs.append(_take_diagonals(x, s))
    x, spec = pairs[0]
    for i, (y, sy) in enumerate(pairs[1:], start=1):
        keep = out + "".join(s for _, s in pairs[i + 1:])
        x, spec = _contract(x, spec, y, sy, keep)
    x, spec = _sum_unused(x, spec, out)
    order = [spec.index(c) for c in out]
    return transpose(x, order) if order != list(range(len(order))) else x
