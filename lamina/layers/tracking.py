"""What a layer holds, tracked as Keras 3's ``Layer._tracker`` does: the sublayers, the
variables and the ``SeedGenerator``s assigned as its attributes (directly or inside lists,
tuples and dicts), the weight and variable lists built from them, the metrics among its
attributes, and the lock that forbids new state once the layer is built."""
from __future__ import annotations

import contextlib

from ..core import structure
from ..core.variable import Variable
from ..ops.seed_generator import SeedGenerator
from .own_variables import LayerError

_LOCK_MESSAGE = ("You cannot add new elements of state (variables or sub-layers) to a layer "
                 "that is already built. All state must be created in the `__init__()` "
                 "method or in the `build()` method.")

# Functional and Sequential models stay open after build (Keras: a layer may be attached
# to a model outside its graph, and Sequential.add works on a built model).
_NEVER_LOCKED = ("Functional", "Sequential")


class Tracker:
    """Keras 3's ``layer._tracker``: ``lock()`` after build, ``unlock()`` around a late
    change (quantization, LoRA), ``locked`` to ask."""

    def __init__(self, owner):
        self._owner_name = getattr(owner, "name", None) or type(owner).__name__
        self.locked = False
        self._message = _LOCK_MESSAGE

    def lock(self, msg: str | None = None) -> None:
        self.locked = True
        if msg is not None:
            self._message = msg

    def unlock(self) -> None:
        self.locked = False

    def check(self, owner, what: str) -> None:
        """Raise when ``owner`` is locked and ``what`` (a description) would be added."""
        if self.locked:
            raise LayerError(f"{self._message} (layer '{owner.name}' received {what})")


def _trackables(value, found: list) -> list:
    """The layers, variables and seed generators in ``value`` (lists, tuples, dicts), in
    order; an explicit stack that visits each container once, so a list holding itself
    (Keras's saving_lib test) or nesting deeper than Python's recursion limit ends."""
    if not isinstance(value, (list, tuple, dict)):      # most attributes: one check
        if isinstance(value, (LayerTrackingMixin, Variable, SeedGenerator)):
            found.append(value)
        return found
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if isinstance(item, (LayerTrackingMixin, Variable, SeedGenerator)):
            found.append(item)
        elif isinstance(item, (list, tuple, dict)):
            if id(item) in seen:
                continue
            seen.add(id(item))
            items = item.values() if isinstance(item, dict) else item
            stack.extend(reversed(list(items)))
    return found


class LayerTrackingMixin:
    """Mixed into :class:`~lamina.layers.Layer`: attribute tracking and the state lists."""

    # ---------------------------------------------------------------- the stores
    def _init_tracking(self) -> None:
        """The stores, created once (an attribute set before ``super().__init__()`` is
        tracked already, as in Keras)."""
        d = self.__dict__
        d.setdefault("_layers", [])
        d.setdefault("_trainable_variables", [])
        d.setdefault("_non_trainable_variables", [])
        d.setdefault("_seed_generators", [])
        if "_tracker" not in d:
            d["_tracker"] = Tracker(self)

    def _lock_state(self) -> None:
        """Forbid new variables and sublayers: called once the layer is built (Keras)."""
        if type(self).__dict__.get("saving_kind") in _NEVER_LOCKED or \
                getattr(self, "saving_kind", None) in _NEVER_LOCKED:
            return
        self._init_tracking()
        self.__dict__["_tracker"].lock()

    @contextlib.contextmanager
    def _state_unlocked(self):
        """New state may be added inside (quantization, LoRA: Keras unlocks around them);
        the lock is as before afterwards."""
        self._init_tracking()
        tracker = self.__dict__["_tracker"]
        was_locked = tracker.locked
        tracker.unlock()
        try:
            yield
        finally:
            tracker.locked = was_locked

    def _track(self, items, checked: bool = True) -> None:
        """Add the layers, variables and seed generators of ``items`` not held yet
        (``checked``: refuse them once the layer is locked)."""
        self._init_tracking()
        d = self.__dict__
        tracker = d["_tracker"] if checked else Tracker(self)
        for item in items:
            if item is self:
                continue
            if isinstance(item, Variable):
                if any(item is v for v in d["_trainable_variables"]) or \
                        any(item is v for v in d["_non_trainable_variables"]):
                    continue
                tracker.check(self, f"the variable '{item.path}'")
                self._track_variable(item)
            else:
                store = d["_seed_generators"] if isinstance(item, SeedGenerator) else \
                    d["_layers"]
                if all(item is not t for t in store):
                    if not isinstance(item, SeedGenerator):
                        tracker.check(self, f"the sublayer '{item.name}'")
                    store.append(item)

    def _track_variable(self, variable) -> None:
        """Hold ``variable`` as one of this layer's weights (a frozen layer freezes it)."""
        self._init_tracking()
        if variable.trainable:
            self.__dict__["_trainable_variables"].append(variable)
        else:
            self.__dict__["_non_trainable_variables"].append(variable)
        if not self.__dict__.get("_trainable", True):
            variable.trainable = False
        structure.changed()                 # compiled steps of older weights are stale

    def __setattr__(self, name: str, value) -> None:
        if not name.startswith("__"):
            found = _trackables(value, [])
            if found:
                self._track(found)
            if isinstance(value, (list, dict)) and not name.startswith("_"):
                # a public list or dict may get state later: _sublayers looks again
                self.__dict__.setdefault("_containers", {})[name] = None   # in set order
        object.__setattr__(self, name, value)

    def _refresh_tracking(self) -> None:
        """State put into a public list or dict attribute after it was assigned
        (``self.blocks = []`` then ``self.blocks.append(Dense(4))``) counts too, as
        Keras's tracked lists make it: it follows the state known before, in the order
        found. Only the public list and dict attributes are looked at again."""
        d = self.__dict__
        for name in d.get("_containers", ()):
            value = d.get(name)
            if isinstance(value, (list, dict)) and value:
                found = _trackables(value, [])
                if found:
                    self._track(found, checked=False)

    def _sublayers(self) -> list:
        """Layers whose weights belong to this one, in weight order."""
        self._refresh_tracking()
        return self.__dict__.setdefault("_layers", [])

    # ---------------------------------------------------------------- weights
    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        value = bool(value)
        self._trainable = value
        structure.changed()                 # compiled train steps froze the old flags
        for variable in self._trainable_variables:
            variable.trainable = value
        for layer in self._sublayers():
            layer.trainable = value

    def _collect(self, include_seeds: bool) -> list:
        self._init_tracking()
        sublayers = self._sublayers()
        seen, result = set(), []
        for variable in self._trainable_variables + self._non_trainable_variables:
            if id(variable) not in seen:
                seen.add(id(variable))
                result.append(variable)
        if include_seeds:
            result.extend(generator.state for generator in self._seed_generators)
        for layer in sublayers:
            for variable in layer._collect(include_seeds):
                if id(variable) not in seen:
                    seen.add(id(variable))
                    result.append(variable)
        return result

    @property
    def weights(self) -> list:
        """Own weights (trainable, then non-trainable, each in creation order), then
        sublayers' weights, without repeats: Keras's order for get_weights/set_weights.
        Seed generator states are not weights (see :attr:`variables`)."""
        return self._collect(include_seeds=False)

    @property
    def trainable_weights(self) -> list:
        return [v for v in self.weights if v.trainable] if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        if not self.trainable:
            return self.weights
        return [v for v in self.weights if not v.trainable]

    @property
    def variables(self) -> list:
        """All the layer's state: :attr:`weights` plus the state of the ``SeedGenerator``s
        it holds, right after each layer's own weights (Keras 3)."""
        return self._collect(include_seeds=True)

    @property
    def trainable_variables(self) -> list:
        return [v for v in self.variables if v.trainable] if self.trainable else []

    @property
    def non_trainable_variables(self) -> list:
        if not self.trainable:
            return self.variables
        return [v for v in self.variables if not v.trainable]

    # ---------------------------------------------------------------- layers
    def _flatten_layers(self, include_self: bool = True, recursive: bool = True) -> list:
        """This layer (with ``include_self``) and its sublayers, each once (Keras 3's helper
        and order: the direct sublayers in order, each followed by its own sublayers in
        reverse order); ``recursive=False`` stops at the direct sublayers."""
        result, seen = [self] if include_self else [], set()
        pending = list(self._sublayers())
        while pending:
            layer = pending.pop(0)
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            result.append(layer)
            if recursive:
                pending[:0] = reversed(layer._sublayers())
        return result

    def _untrack_variable(self, variable) -> None:
        """Forget ``variable`` as a weight of this layer (Keras 3's hook, e.g. before
        replacing it with one of another dtype); returns None, so
        ``self.w = self._untrack_variable(self.w)`` clears the attribute too."""
        for store in (self._trainable_variables, self._non_trainable_variables):
            store[:] = [v for v in store if v is not variable]
        structure.changed()                 # compiled steps hold the old weight list

    # ---------------------------------------------------------------- metrics
    @property
    def metrics(self) -> list:
        """The metrics assigned as attributes of this layer, then its sublayers' (Keras 3)."""
        result = [v for v in self.__dict__.values() if _is_metric(v)]
        for layer in self._sublayers():
            result.extend(m for m in layer.metrics if all(m is not r for r in result))
        return result

    @property
    def metrics_variables(self) -> list:
        """The variables of :attr:`metrics`, in that order (Keras 3)."""
        return [variable for metric in self.metrics for variable in metric.variables]


def _is_metric(value) -> bool:
    """A lamina.metrics.Metric (metrics sit above layers, so by its methods)."""
    return not isinstance(value, type) and not hasattr(value, "_sublayers") and all(
        callable(getattr(type(value), name, None))
        for name in ("update_state", "result", "reset_state"))
