"""Keras's ``vectorize`` (numpy's and JAX's ``vectorize``): a function of core-shaped
arguments (a gufunc ``signature`` such as ``"(n),(n)->()"``, or scalars without one)
mapped over the broadcast leading dimensions, by ``vectorized_map`` over them flattened."""
from __future__ import annotations

import functools
import re

from ..errors import ShapeError, describe_shape
from .reshaping import broadcast_to, reshape
from .loop_tracing import tensors_of
from .loops import vectorized_map
from ..core.op import broadcast_shapes

__all__ = ["vectorize"]

_DIMS = r"\((\w+(?:,\s*\w+)*)?\)"
_SIGNATURE = re.compile(rf"^\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*->\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*$")


def vectorize(pyfunc, *, excluded=None, signature=None):
    """``pyfunc`` vectorized over leading dimensions; positional indices in ``excluded``
    (and keyword arguments) are passed through unchanged.

    Args:
        pyfunc: The function to vectorize.
        excluded: Optional set of positional indices passed through unchanged.
        signature: Optional generalized-ufunc signature, e.g. "(n),(n)->()".

    Returns:
        The vectorized function.
    """
    excluded = set(excluded or ())
    if any(not isinstance(e, int) for e in excluded):
        raise ValueError(f"vectorize: argument 'excluded' may only hold positional indices; "
                         f"received excluded={sorted(map(repr, excluded))}")
    inputs_core, outputs_core = _parse(signature) if signature is not None else (None, None)

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        fixed = {i: a for i, a in enumerate(args) if i in excluded}
        mapped = [a for i, a in enumerate(args) if i not in excluded]
        cores = inputs_core if inputs_core is not None else [()] * len(mapped)
        if len(cores) != len(mapped):
            raise TypeError(f"vectorize: the signature {signature!r} takes {len(cores)} "
                            f"arguments; received {len(mapped)}")
        tensors = [tensors_of("vectorize", a)[0] for a in mapped]
        sizes, loops = {}, []
        for x, core in zip(tensors, cores):
            _core_sizes(x, core, sizes, signature)
            loops.append(tuple(x.shape)[:len(x.shape) - len(core)])
        loop = broadcast_shapes("vectorize", *loops) if loops else ()

        def call(*values):
            full, stream = [], iter(values)
            for i in range(len(args)):
                full.append(fixed[i] if i in fixed else next(stream))
            out = pyfunc(*full, **kwargs)
            _check_outputs(out, outputs_core, sizes, signature)
            return out
        if not loop:
            return call(*tensors)
        count = 1
        for d in loop:
            count *= d
        flat = [reshape(broadcast_to(x, loop + tuple(x.shape)[len(x.shape) - len(c):]),
                        (count, *tuple(x.shape)[len(x.shape) - len(c):]))
                for x, c in zip(tensors, cores)]
        out = vectorized_map(lambda xs: call(*xs), tuple(flat))
        if isinstance(out, (tuple, list)):
            return tuple(reshape(o, loop + tuple(o.shape)[1:]) for o in out)
        return reshape(out, loop + tuple(out.shape)[1:])
    return wrapped


def _parse(signature: str):
    if not isinstance(signature, str) or not _SIGNATURE.match(signature):
        raise ValueError(f"vectorize: argument 'signature' must be a gufunc signature such "
                         f"as '(m,n),(n)->(m)'; received signature={signature!r}")
    left, right = signature.split("->")
    return _groups(left), _groups(right)


def _groups(text: str) -> list:
    return [tuple(d.strip() for d in group.split(",") if d.strip())
            for group in re.findall(r"\(([^)]*)\)", text)]


def _core_sizes(x, core, sizes: dict, signature) -> None:
    shape = tuple(x.shape)
    if len(shape) < len(core):
        raise ShapeError(f"vectorize: an argument of shape {describe_shape(shape)} has fewer "
                         f"dimensions than its core dimensions {core} in {signature!r}")
    for name, size in zip(core, shape[len(shape) - len(core):]):
        if sizes.setdefault(name, size) != size:
            raise ShapeError(f"vectorize: inconsistent size for core dimension {name!r}: "
                             f"{size} and {sizes[name]} in {signature!r}")


def _check_outputs(out, outputs_core, sizes: dict, signature) -> None:
    if outputs_core is None:
        return
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    if len(outs) != len(outputs_core):
        raise TypeError(f"vectorize: the signature {signature!r} gives {len(outputs_core)} "
                        f"outputs; the function returned {len(outs)}")
    for o, core in zip(outs, outputs_core):
        shape = tuple(o.shape)
        if len(shape) != len(core):
            raise ShapeError(f"vectorize: an output of shape {describe_shape(shape)} does "
                             f"not match its core dimensions {core} in {signature!r}")
        _core_sizes(o, core, dict(sizes), signature)
