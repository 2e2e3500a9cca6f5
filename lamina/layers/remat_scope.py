"""``RematScope``: rematerialize the layers created inside it (Keras 3's ``keras.RematScope``).

A layer remembers the scope active when it was created (``Layer._remat_mode``) and, when
it runs for real (eagerly or while a graph is traced; not while a functional model is
built), ``call_protocol.run_call`` runs its ``call`` through :func:`rematerialized_call`:

- ``"full"``: the whole call is remat'd;
- ``"activations"``: only the layer's ``activation`` (layers that have one);
- ``"larger_than"``: the whole call, when its output has more than
  ``output_size_threshold`` elements (unknown sizes count as 1, as Keras);
- ``"list_of_layers"``: the whole call, for layers named in ``layer_names``;
- ``None``: nothing (an inner scope can switch an outer one off).
"""
from __future__ import annotations

import contextlib
import functools
import math
import threading
from typing import NamedTuple

from .. import tree
from ..autograd.remat import remat
from ..core.symbolic import SymbolicTensor
from ..graph import trace as graph_trace
from . import call_context

_MODES = ("full", "activations", "larger_than", "list_of_layers", None)
_state = threading.local()


class RematMode(NamedTuple):
    mode: str | None
    output_size_threshold: int
    layer_names: list


class RematScope:
    """Within the ``with`` block, layers created are rematerialized as ``mode`` says.

    Args:
        mode: ``"full"`` (default), ``"activations"``, ``"larger_than"``,
            ``"list_of_layers"`` or None (switch an outer scope off); see the module
            docstring.
        output_size_threshold: int, with ``"larger_than"``: remat a layer whose output
            has more elements than this (default 1024).
        layer_names: a list of layer names, with ``"list_of_layers"``.


    Raises:
        ValueError: an unknown ``mode``.

    Example:

    >>> import lamina as keras
    >>> with keras.RematScope(mode="full"):
    ...     layer = keras.layers.Dense(4)
    """

    def __init__(self, mode="full", output_size_threshold=1024, layer_names=None):
        if mode not in _MODES:
            raise ValueError(f"RematScope: argument 'mode' must be one of 'full', "
                             f"'activations', 'larger_than', 'list_of_layers' or None; "
                             f"received {mode!r}")
        self.mode = mode
        self.output_size_threshold = output_size_threshold
        self.layer_names = list(layer_names or [])

    def __enter__(self):
        stack = getattr(_state, "stack", None)
        if stack is None:
            stack = _state.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _state.stack.pop()


def get_current_remat_mode() -> RematMode | None:
    """The innermost open RematScope's settings, or None."""
    stack = getattr(_state, "stack", None)
    if not stack:
        return None
    scope = stack[-1]
    return RematMode(scope.mode, scope.output_size_threshold, scope.layer_names)


def applies(layer, symbolic: bool) -> bool:
    """Whether ``layer(...)`` runs its call through :func:`rematerialized_call` now."""
    mode = layer.__dict__.get("_remat_mode")
    return mode is not None and bool(mode.mode) and \
        (not symbolic or graph_trace.active() is not None)


def rematerialized_call(layer, contexts, args, kwargs, call=None):
    """``call`` (default ``layer.call``) as the layer's remat mode says. ``contexts()``
    gives the context managers the call runs in (training flag, autocasting): the
    recomputation in the backward pass runs outside the layer's call, so it enters them
    again."""
    call = layer.call if call is None else call
    mode = layer._remat_mode
    if mode.mode == "activations":
        activation = getattr(layer, "activation", None)
        if activation is None:
            return call
        return _with_remat_activation(layer, activation, call)
    if mode.mode == "list_of_layers" and layer.name not in mode.layer_names:
        return call
    if mode.mode == "larger_than" and not \
            _output_size(layer, args, kwargs) > mode.output_size_threshold:
        return call
    state = {"forward": True}

    @functools.wraps(call)
    def body(*a, **k):
        if state.pop("forward", False):          # the forward runs in the caller's contexts
            return call(*a, **k)
        with contextlib.ExitStack() as stack:
            for manager in contexts():
                stack.enter_context(manager)
            return call(*a, **k)
    return remat(body)


def _with_remat_activation(layer, activation, layer_call):
    @functools.wraps(layer_call)
    def call(*a, **k):
        layer.__dict__["activation"] = remat(activation)
        try:
            return layer_call(*a, **k)
        finally:
            layer.__dict__["activation"] = activation
    return call


def _output_size(layer, args, kwargs) -> int:
    with graph_trace.suspended(), call_context.tracing():
        spec = layer.compute_output_spec(*args, **kwargs)
    return sum(math.prod(d or 1 for d in x.shape) for x in tree.flatten(spec)
               if isinstance(x, SymbolicTensor))
