"""What a layer accepts as input, checked before ``build`` and ``call``."""
from __future__ import annotations

from ..errors import ShapeError, describe_shape


class InputSpec:
    """Rank and fixed sizes a layer's input must have (Keras's ``InputSpec``).

    ``layout`` (Lamina's) says in words what the axes mean, for error messages:
    ``InputSpec.described("(batch, height, width, channels)", ndim=4)``.

    Args:
        dtype: Expected dtype, or None for any.
        shape: Expected full shape (None entries match any size), or None.
        ndim: Expected rank, or None.
        max_ndim: Largest rank allowed, or None.
        min_ndim: Smallest rank allowed, or None.
        axes: Dict ``{axis: size}`` of fixed sizes, e.g. ``{-1: 64}``.
        allow_last_axis_squeeze: Whether a last axis of size 1 may be missing or extra when the
            rank is checked.
        name: Name of the input the spec describes (for a dict of inputs).
        optional: Whether the input may be None.
    """

    def __init__(self, dtype=None, shape=None, ndim: int | None = None,
                 max_ndim: int | None = None, min_ndim: int | None = None,
                 axes: dict[int, int] | None = None, allow_last_axis_squeeze: bool = False,
                 name: str | None = None, optional: bool = False):
        self.dtype = dtype
        self.shape = tuple(shape) if shape is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name
        self.optional = optional
        self.layout = ""

    @classmethod
    def described(cls, layout: str, **kwargs) -> "InputSpec":
        """An InputSpec whose errors describe the axes as ``layout``."""
        spec = cls(**kwargs)
        spec.layout = layout
        return spec

    def __repr__(self) -> str:
        return (f"InputSpec(ndim={self.ndim}, min_ndim={self.min_ndim}, "
                f"max_ndim={self.max_ndim}, axes={self.axes})")


def check_input_compatibility(layer_name: str, specs, inputs) -> None:
    """Raise ShapeError naming the layer when ``inputs`` do not meet ``specs``."""
    if specs is None:
        return
    specs = list(specs) if isinstance(specs, (list, tuple)) else [specs]
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if len(specs) > 1 and len(inputs) != len(specs):
        raise ValueError(f"{layer_name} expects {len(specs)} inputs; received {len(inputs)}")
    for position, (spec, x) in enumerate(zip(specs, inputs)):
        if spec is None or (x is None and spec.optional):
            continue
        if isinstance(x, dict) and "images" in x:     # Keras's image-layer dict input
            x = x["images"]
        shape = getattr(x, "shape", None)
        if shape is None:
            raise TypeError(f"{layer_name} expects a tensor as input {position}; received "
                            f"{type(x).__name__}")
        _check_one(layer_name, spec, tuple(shape), position if len(specs) > 1 else None)


def _check_one(layer: str, spec: InputSpec, shape: tuple, position) -> None:
    which = "input" if position is None else f"input {position}"
    rank = len(shape)
    layout = f" {spec.layout}" if spec.layout else ""
    received = f"received shape {describe_shape(shape)}"
    if spec.ndim is not None and rank != spec.ndim and not (
            spec.allow_last_axis_squeeze and rank == spec.ndim + 1 and shape[-1] == 1):
        raise ShapeError(f"{layer} expects {which} of rank {spec.ndim}{layout}; {received}")
    if spec.min_ndim is not None and rank < spec.min_ndim:
        raise ShapeError(f"{layer} expects {which} of rank at least {spec.min_ndim}{layout}; "
                         f"{received}")
    if spec.max_ndim is not None and rank > spec.max_ndim:
        raise ShapeError(f"{layer} expects {which} of rank at most {spec.max_ndim}{layout}; "
                         f"{received}")
    for axis, size in spec.axes.items():
        if size is None:
            continue
        if not -rank <= axis < rank:
            raise ShapeError(f"{layer} expects {which} with an axis {axis} of size {size}; "
                             f"{received}")
        if shape[axis] is not None and shape[axis] != size:
            where = "last dimension" if axis in (-1, rank - 1) else f"axis {axis} of size"
            raise ShapeError(f"{layer} expects {which} with {where} {size} (the layer was "
                             f"built for {size}); {received}, which is incompatible with "
                             f"the layer")
    if spec.shape is not None:
        for axis, (want, got) in enumerate(zip(spec.shape, shape)):
            if want is not None and got is not None and want != got:
                raise ShapeError(f"{layer} expects {which} of shape "
                                 f"{describe_shape(spec.shape)}; {received}")
