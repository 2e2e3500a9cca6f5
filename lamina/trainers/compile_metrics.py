"""``compile(metrics=..., weighted_metrics=...)`` as one object (Keras 3's
``compile_metrics``): its ``result()`` is a dict keyed by the names the user wrote
(``acc`` logs as ``acc``), prefixed with the output's name where the outputs have names.

The rules are Keras 3's (``keras/src/trainers/compile_utils.py``). With one output every
metric applies to it. With outputs that are one list or dict, ``metrics`` is a list with an
entry per output or a dict keyed by output name (some outputs may have none). Otherwise
``metrics`` must be nested as the outputs. A weighted metric whose name an unweighted one
already has is logged as ``weighted_<name>``; other repeated names get ``_1``, ``_2``...
"""
from __future__ import annotations

from collections import OrderedDict

from .. import metrics as metrics_module
from .. import tree
from .compile_structure import object_name


def get_metric(identifier, y_true, y_pred, loss=None):
    """A ``Metric`` for ``identifier``; "accuracy"/"acc" are resolved from the shapes."""
    if identifier is None:
        raise ValueError("compile: a metric is None (Keras: \"Expected metric, received "
                         "`None`\")")
    if str(identifier).lower() in ("accuracy", "acc"):
        metric = metrics_module.resolve_accuracy(tuple(y_true.shape), tuple(y_pred.shape),
                                                 loss)
    else:
        metric = metrics_module.get(identifier)
    name = identifier if isinstance(identifier, str) else object_name(metric)
    if not isinstance(metric, metrics_module.Metric):
        metric = metrics_module.MeanMetricWrapper(metric, name=name)
    metric.name = name
    return metric


class _OutputMetrics:
    """The metrics of one output and that output's name (None: not prefixed)."""

    def __init__(self, specs, y_true, y_pred, output_name, loss):
        specs = specs if isinstance(specs, (list, tuple)) else [specs]
        self.metrics = [get_metric(spec, y_true, y_pred, loss) for spec in specs]
        self.output_name = output_name


def _output_metrics(specs, y_true, y_pred, output_name=None, loss=None):
    if specs is None or y_true is None:
        return None
    return _OutputMetrics(specs, y_true, y_pred, output_name, loss)


class CompileMetrics:
    """All compiled metrics as one object (see the module docstring)."""

    name = "compile_metrics"

    def __init__(self, metrics=None, weighted_metrics=None, output_names=None, loss=None):
        for arg, value in (("metrics", metrics), ("weighted_metrics", weighted_metrics)):
            if value and not isinstance(value, (list, tuple, dict)):
                raise ValueError(f"compile: argument '{arg}' must be a list, tuple, or dict "
                                 f"(Keras: \"Expected `{arg}` argument to be a list, tuple, "
                                 f"or dict\"); received {arg}={value!r} of type "
                                 f"{type(value).__name__}")
        self._user_metrics, self._user_weighted_metrics = metrics, weighted_metrics
        self.output_names = list(output_names) if output_names else None
        self._loss = loss
        self.built = False
        self._flat, self._flat_weighted = [], []
        self._resolved_names = None
        self._base_names: dict[int, tuple] = {}   # id -> (metric, name before prefixing)

    # ------------------------------------------------------------------ building
    def build(self, y_true, y_pred) -> None:
        count = len(tree.flatten(y_pred))
        flat_outputs = tree.is_nested(y_pred) and len(y_pred) == count
        names = self.output_names
        if flat_outputs and isinstance(y_pred, dict):
            if not (names and set(y_pred) == set(names)):
                names = list(y_pred) if isinstance(y_pred, OrderedDict) else sorted(y_pred)
        self._resolved_names = names if count > 1 and flat_outputs else None
        losses = self._losses_per_output(names, count)
        self._flat = self._build_set(self._user_metrics, count, names, y_true, y_pred,
                                     flat_outputs, "metrics", losses)
        self._flat_weighted = self._build_set(self._user_weighted_metrics, count, names,
                                              y_true, y_pred, flat_outputs,
                                              "weighted_metrics", losses)
        self._name_results()
        self.built = True

    def _losses_per_output(self, names, count) -> list:
        """The loss of each output where the loss says it plainly (a name or object for
        all outputs, a list with one per output or a dict by output name): "accuracy"
        uses it where shapes cannot decide."""
        loss = self._loss
        if loss is None or (not tree.is_nested(loss)):
            return [loss] * count
        if isinstance(loss, (list, tuple)) and len(loss) == count:
            return [None if tree.is_nested(item) else item for item in loss]
        if isinstance(loss, dict) and names:
            return [loss.get(name) if not tree.is_nested(loss.get(name)) else None
                    for name in names]
        return [None] * count

    def _build_set(self, specs, count, names, y_true, y_pred, flat_outputs, arg, losses):
        if not specs:
            return [None] * count
        if count == 1:
            return [_output_metrics(tree.flatten(specs), tree.flatten(y_true)[0],
                                    tree.flatten(y_pred)[0], None, losses[0])]
        per_output = None
        if flat_outputs:
            if isinstance(specs, (list, tuple)) and len(specs) == count:
                per_output = list(specs)
            elif names and isinstance(specs, dict) and set(specs) <= set(names):
                per_output = [specs.get(name) for name in names]
        if per_output is not None:
            trues, preds = self._flatten_y(y_true), self._flatten_y(y_pred)
            return [_output_metrics(s, t, p, n, l) for s, t, p, n, l in
                    zip(per_output, trues, preds, names or [None] * count, losses)]
        try:
            shallow = tree.lists_to_tuples(y_pred)
            names_struct = tree.pack_sequence_as(shallow, names or [None] * count)
            return tree.flatten(tree.map_structure_up_to(
                shallow, _output_metrics, tree.lists_to_tuples(specs),
                tree.lists_to_tuples(y_true), shallow, names_struct))
        except (ValueError, TypeError) as error:
            names_part = (f"either be a dict or a list matching the output names of the "
                          f"functional model {self.output_names} or " if self.output_names
                          else "")
            raise ValueError(
                f"{error}\nInvalid `{arg}`. `{arg}` should contain metrics objects and "
                f"{names_part}match the output structure of the model: "
                f"{tree.map_structure(lambda _: 'X', y_pred)}.\nReceived: {arg}={specs}"
            ) from error

    def _name_results(self) -> None:
        """Give each metric the key it logs under (Keras 3's ``result`` naming)."""
        seen: dict[str, int] = {}

        def unique(name):
            if name not in seen:
                seen[name] = 1
                return name
            index = seen[name]
            seen[name] += 1
            return f"{name}_{index}"

        def prefixed(group, name):
            return f"{group.output_name}_{name}" if group.output_name else name

        def base(metric):
            # A metric object built twice (a symbolic build, then a real one) is named
            # from the name it had before this object renamed it.
            return self._base_names.setdefault(id(metric), (metric, metric.name))[1]

        for group in self._flat:
            for metric in group.metrics if group else ():
                metric.name = unique(prefixed(group, base(metric)))
        for group in self._flat_weighted:
            for metric in group.metrics if group else ():
                name = prefixed(group, base(metric))
                if name in seen:
                    name = unique(prefixed(group, f"weighted_{base(metric)}"))
                else:
                    seen[name] = 1
                metric.name = name

    def _flatten_y(self, y) -> list:
        if isinstance(y, dict) and self._resolved_names is not None:
            return [y.get(name) for name in self._resolved_names]
        return tree.flatten(y)

    # ------------------------------------------------------------------ running
    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        if not self.built:
            self.build(y_true, y_pred)
        trues, preds = self._flatten_y(y_true), self._flatten_y(y_pred)
        for group, y_t, y_p in zip(self._flat, trues, preds):
            for metric in group.metrics if group and y_t is not None else ():
                metric.update_state(y_t, y_p)
        if sample_weight is not None:
            weights = self._flatten_y(sample_weight)
            if len(weights) < len(trues):          # one weight for every output
                weights = [weights[0]] * len(trues)
        else:
            weights = [None] * len(trues)
        for group, y_t, y_p, weight in zip(self._flat_weighted, trues, preds, weights):
            for metric in group.metrics if group and y_t is not None else ():
                metric.update_state(y_t, y_p, sample_weight=weight)

    def result(self) -> dict:
        return {metric.name: metric.result() for metric in self.metrics}

    def reset_state(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    @property
    def metrics(self) -> list:
        if not self.built:
            return []
        return [m for group in self._flat + self._flat_weighted if group
                for m in group.metrics]

    @property
    def variables(self) -> list:
        return [v for m in self.metrics for v in getattr(m, "variables", [])]
