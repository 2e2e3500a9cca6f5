"""``compile(loss=..., loss_weights=...)`` as one object: the total loss of a model whose
outputs may be one tensor, a list, a dict, a namedtuple or any nesting of them.

The rules are Keras 3's (``keras/src/trainers/compile_utils.py``): the loss structure is
laid over the structure of the outputs when the loss is first computed. A loss found at a
leaf of the outputs gets that output; a loss found above a leaf gets the whole part of the
outputs and targets below it (a function of structures); a list of losses where the
outputs have no list applies each loss to the same part. Each loss is named by its path
(``a``, ``a/y2``) or by the output's name, and with several losses each has a ``Mean``
tracker ``<name>_loss`` of its unweighted value.
"""
from __future__ import annotations

from collections import namedtuple

from .. import losses, metrics, ops, tree
from ..dtypes import floatx
from ..ops.reduction import num_rows
from .compile_structure import (LossPathError, align_targets, object_name, reshape_like,
                                resolve_path)

FlatLoss = namedtuple("FlatLoss", ["path", "loss", "weight", "name"])


class _Weighted:
    """A leaf of the loss structure: a loss and its weight (None for no loss)."""

    def __new__(cls, loss, weight):
        return None if loss is None else super().__new__(cls)

    def __init__(self, loss, weight):
        self.loss, self.weight = loss, weight


def get_loss(identifier, y_true, y_pred):
    """A ``Loss`` for ``identifier``; a function is wrapped and named as the user wrote it
    (``"mse"`` stays ``"mse"``)."""
    if identifier is None:
        return None
    loss = losses.get(identifier)
    if not isinstance(loss, losses.Loss):
        name = identifier if isinstance(identifier, str) else object_name(loss)
        loss = losses.LossFunctionWrapper(loss, name=name)
    return loss


def loss_weight(weight) -> float:
    if not isinstance(weight, (int, float)) and \
            not (hasattr(weight, "dtype") and getattr(weight, "ndim", None) == 0):
        # A ValueError as in Keras (a legacy .h5 file's training_config reports it as a
        # SavingError naming the file).
        raise ValueError(f"compile: argument 'loss_weights' must be a float (one output) or "
                         f"a list or dict of floats, one per output (Keras: \"Expected "
                         f"`loss_weights` argument to be a float\"); received entry "
                         f"{weight!r} of type {type(weight).__name__}")
    return float(weight)


class CompileLoss:
    """The total loss ``sum(weight_i * loss_i(y_true_i, y_pred_i, sample_weight_i))``
    over the losses found in the loss structure (see the module docstring)."""

    def __init__(self, loss, loss_weights=None, output_names=None):
        self._user_loss, self._user_loss_weights = loss, loss_weights
        self.output_names = list(output_names) if output_names else None
        self.built = False
        self.flat_losses: list[FlatLoss] = []
        self.trackers: list = []
        self._y_pred_structure = self._y_true_structure = None
        for leaf in tree.flatten(loss):       # unknown names and bad weights fail here
            if leaf is not None:
                losses.get(leaf)
        for weight in tree.flatten(loss_weights):
            if weight is not None:
                loss_weight(weight)

    @property
    def metrics(self) -> list:
        """The per-loss trackers (empty until built, and with one loss)."""
        return list(self.trackers)

    @property
    def variables(self) -> list:
        return [v for m in self.metrics for v in m.variables]

    # ------------------------------------------------------------------ building
    def build(self, y_true, y_pred) -> None:
        loss, weights = self._user_loss, self._user_loss_weights
        names = self.output_names
        if names and isinstance(loss, dict) and not isinstance(y_pred, dict):
            if set(names) != set(loss):
                raise ValueError(f"compile: argument 'loss' is a dict whose keys must be the "
                                 f"output names (Keras: \"Expected keys {names} in loss "
                                 f"dict, but found loss.keys()={list(loss)}\")")
            loss = [loss[name] for name in names]
            if isinstance(weights, dict):
                weights = [weights[name] for name in names]
        loss = self._pair_with_weights(loss, weights)
        try:
            output_names = tree.pack_sequence_as(y_pred, names)
        except (ValueError, TypeError):
            output_names = tree.pack_sequence_as(y_pred, [None] * len(tree.flatten(y_pred)))
        if not tree.is_nested(loss):
            loss = tree.map_structure(lambda _: loss, y_pred)
        self.flat_losses = []
        self._build_nested(y_true, y_pred, loss, output_names, ())
        self.trackers = [metrics.Mean(name=f"{flat.name}_loss") for flat in self.flat_losses] \
            if len(self.flat_losses) > 1 else []
        self._y_pred_structure = tree.map_structure(lambda _: None, y_pred)
        self._y_true_structure = tree.map_structure(lambda _: None, y_true)
        self.built = True

    @staticmethod
    def _pair_with_weights(loss, weights):
        if weights is None:
            return tree.map_structure(lambda item: _Weighted(item, None), loss)
        try:
            tree.assert_same_structure(loss, weights)
        except ValueError:
            flat_weights = tree.flatten(weights)
            if len(tree.flatten(loss)) != len(flat_weights):
                raise ValueError(f"compile: argument 'loss_weights' must have one weight per "
                                 f"loss (Keras: \"`loss_weights` must match the number of "
                                 f"losses\"); got {len(tree.flatten(loss))} losses and "
                                 f"{len(flat_weights)} weights") from None
            weights = tree.pack_sequence_as(loss, flat_weights)
        return tree.map_structure(
            lambda item, w: _Weighted(item, None if w is None else loss_weight(w)),
            loss, weights)

    def _build_nested(self, y_true, y_pred, loss, output_names, path: tuple) -> None:
        if not tree.is_nested(loss):
            self._add_leaf(y_true, y_pred, loss, output_names, path)
            return
        if isinstance(loss, (list, tuple)) and not any(tree.is_nested(x) for x in loss) \
                and len(loss) == len(tree.flatten(y_pred)):
            loss = tree.pack_sequence_as(y_pred, list(loss))
        elif isinstance(loss, (list, tuple)) and not isinstance(y_pred, type(loss)):
            for item in loss:               # several losses on the same outputs
                self._build_nested(y_true, y_pred, item, output_names, path)
            return
        if not tree.is_nested(loss):
            self._add_leaf(y_true, y_pred, loss, output_names, path)
            return
        if not isinstance(loss, type(y_pred)):
            raise LossPathError(f"compile: the path {path} of argument 'loss' is not in the "
                                f"model's outputs (Keras: \"The path: {path} in the `loss` "
                                f"argument, can't be found in the model's output "
                                f"(`y_pred`).\"); loss: {type(loss).__name__}, outputs: "
                                f"{type(y_pred).__name__}")
        items = loss.items() if isinstance(loss, dict) else enumerate(loss)
        for key, item in items:
            if item is None:
                continue
            if not (_has_key(y_true, key) and _has_key(y_pred, key)):
                raise LossPathError(
                    f"compile: the path {path + (key,)} in the `loss` argument, can't be "
                    f"found in either the model's output (`y_pred`) or in the labels "
                    f"(`y_true`).")
            self._build_nested(y_true[key], y_pred[key], item, output_names[key],
                               path + (key,))

    def _add_leaf(self, y_true, y_pred, leaf, output_names, path: tuple) -> None:
        if leaf is None or leaf.loss is None:
            return
        fn = get_loss(leaf.loss, y_true, y_pred)
        name_path = path
        if not tree.is_nested(output_names):
            output_name = output_names if output_names is not None else fn.name
            if not name_path:
                name_path = (output_name,)
            elif isinstance(name_path[-1], int):
                name_path = name_path[:-1] + (output_name,)
        name = "/".join(str(p) for p in name_path)
        if name == "":
            flat = list(output_names) if isinstance(output_names, dict) \
                else tree.flatten(output_names)
            name = "_".join(str(n) for n in flat)
        self.flat_losses.append(FlatLoss(path, fn, leaf.weight, name))

    # ------------------------------------------------------------------ computing
    def prepare(self, y_true, y_pred):
        """The targets and outputs lined up with each other (and with those the loss was
        built for), building the loss on first use."""
        nested = tree.is_nested(y_true) or tree.is_nested(y_pred)
        if nested:
            y_true = align_targets(y_true, y_pred, self._user_loss, self.output_names)
        if not self.built:
            self.build(y_true, y_pred)
        if nested:
            y_pred = reshape_like(self._y_pred_structure, y_pred)
            y_true = reshape_like(self._y_true_structure, y_true)
        return y_true, y_pred

    def __call__(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = self.prepare(y_true, y_pred)
        total = None
        trackers = self.trackers or [None] * len(self.flat_losses)
        for (path, fn, weight, name), tracker in zip(self.flat_losses, trackers):
            y_t, y_p = resolve_path(path, y_true), resolve_path(path, y_pred)
            if y_t is None:
                raise ValueError(f"compile: the loss '{name}' has no target in y (the "
                                 f"targets have no entry at {path})")
            weights = resolve_path(path, sample_weight) if tree.is_nested(sample_weight) \
                else sample_weight
            value = fn(y_t, y_p, sample_weight=weights)
            if value.dtype != floatx():
                value = ops.cast(value, floatx())
            if tracker is not None:       # the unweighted loss, weighted by batch size
                tracker.update_state(value, sample_weight=num_rows(tree.flatten(y_p)[0]))
            if weight is not None and weight != 1.0:
                value = ops.multiply(value, weight)
            total = value if total is None else ops.add(total, value)
        return total


def _has_key(structure, key) -> bool:
    if isinstance(structure, dict):
        return key in structure
    return isinstance(structure, (list, tuple)) and isinstance(key, int) and \
        key < len(structure)

