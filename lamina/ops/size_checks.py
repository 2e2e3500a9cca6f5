"""A size check that runs when a graph runs: :func:`check_size`.

An op traced on a tensor whose size is unknown (``None``) sometimes gives a result only
for some sizes: ``pad_images`` pads an image of unknown height to ``target_height`` only
if the image fits. Eager mode checks the size at once; a traced graph checks it with a
``check_size`` node, which raises the same kind of error (ValueError) when the graph runs,
so no mode silently gives another result.
"""
from __future__ import annotations

from ..core.op import Op, Spec, register_op
from ..errors import ShapeError, describe_shape

__all__: list[str] = []


class SizeError(ShapeError):
    """A size known only when a graph ran does not fit (a ShapeError: a ValueError)."""


@register_op
class CheckSize(Op):
    """``x`` unchanged after checking that axis ``axis`` has at most ``size`` entries (or
    exactly ``size`` with ``exact``, which also makes that size known to the spec, or at
    least ``size`` with ``at_least``).
    ``message`` is raised as a :class:`SizeError`, with ``{size}`` the size found."""
    name = "check_size"

    def output_spec(self, x, axis=0, size=0, exact=False, message="", at_least=False):
        found = x.shape[axis]
        if found is not None and _fails(found, size, exact, at_least):
            raise SizeError(message.format(size=found))
        if not exact:
            return Spec(tuple(x.shape), x.dtype)
        return Spec(tuple(size if a == axis else d for a, d in enumerate(x.shape)), x.dtype)

    def forward(self, backend, x, out=None, axis=0, size=0, exact=False, message="",
                at_least=False):
        found = x.shape[axis]
        if _fails(found, size, exact, at_least):
            raise SizeError(message.format(size=found))
        return x

    def gradient(self, ctx, g):
        return (g,)


def _fails(found: int, size: int, exact: bool, at_least: bool) -> bool:
    if exact:
        return found != size
    return found < size if at_least else found > size


def check_size(x, axis: int, size: int, message: str, exact: bool = False,
               at_least: bool = False):
    """``x``, checked now if its size on ``axis`` is known, else when the graph runs, to
    hold at most (``exact``: exactly; ``at_least``: at least) ``size`` entries there;
    ``message`` may use ``{size}`` for the size found."""
    if not isinstance(size, int) or size < 0:
        raise ShapeError(f"check_size: argument 'size' must be a non-negative int; received "
                         f"{size!r} for a tensor of shape {describe_shape(x.shape)}")
    return CheckSize(x, axis=axis % len(x.shape), size=size, exact=exact, message=message,
                     at_least=at_least)
