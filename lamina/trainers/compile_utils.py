"""What ``compile(loss=..., metrics=...)`` becomes: one object for the losses of all outputs
and one for their metrics, matched to the outputs by position or by output name."""
from __future__ import annotations

from .. import losses, metrics, ops, tree


def _match(what: str, spec, output_names: list[str]) -> list:
    """``spec`` per output: a dict keyed by output name, a list by position, or one value
    for every output. For metrics a list with one entry per output is per output (Keras 3);
    a list of another length is the list of metrics of every output."""
    n = len(output_names)
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - set(output_names))
        if unknown:
            raise ValueError(f"compile: argument '{what}' has keys {unknown} that name no "
                             f"output; the outputs are {output_names}")
        return [spec.get(name) for name in output_names]
    if not isinstance(spec, (list, tuple)):
        return [spec] * n
    if what in ("metrics", "weighted_metrics"):
        # One entry (a metric or a list of them) per output, as in Keras 3; a list of
        # another length is the metrics of every output.
        per_output = n > 1 and len(spec) == n
        return list(spec) if per_output else [list(spec)] * n
    if len(spec) != n:
        raise ValueError(f"compile: argument '{what}' has {len(spec)} entries but the model "
                         f"has {n} output(s) {output_names}")
    return list(spec)


def output_names_of(y_pred) -> list[str]:
    """The outputs' names of a model that declares none (a subclassed model or a layer
    mixed with ``Trainer``), from its first output: a dict's keys (sorted, as Keras 3
    flattens a dict), ``output_1 .. output_n`` for a list, ``["output"]`` for one tensor."""
    if isinstance(y_pred, dict):
        return sorted(y_pred)
    if isinstance(y_pred, (list, tuple)) and len(y_pred) > 1:
        return [f"output_{i + 1}" for i in range(len(y_pred))]
    return ["output"]


class CompileLoss:
    """The total loss: ``sum(weight_i * loss_i(y_true_i, y_pred_i, sample_weight))``.
    Without ``output_names`` the outputs are named after the first ``y_pred``
    (``output_names_of``) when the loss is first computed."""

    def __init__(self, loss, loss_weights=None, output_names=None):
        self._loss, self._loss_weights = loss, loss_weights
        self.output_names = None
        self.built = False
        self.losses, self.weights, self.trackers = [], [], []
        if output_names is not None:
            self.build(list(output_names))
        else:       # unknown names and bad weights still fail here, not at the first step
            for spec in _leaves(loss):
                losses.get(spec)
            for weight in _leaves(loss_weights):
                _loss_weight(weight)

    def build(self, output_names: list[str]) -> None:
        self.output_names = output_names
        self.built = True
        loss, loss_weights = self._loss, self._loss_weights
        specs = _match("loss", loss, self.output_names)
        weights = _match("loss_weights", loss_weights, self.output_names) \
            if loss_weights is not None else [1.0] * len(self.output_names)
        self.losses, self.weights = [], []
        for spec, weight in zip(specs, weights):
            if spec is None:
                self.losses.append(None)
                self.weights.append(0.0)
                continue
            fn = losses.get(spec)
            if not isinstance(fn, losses.Loss):
                fn = losses.LossFunctionWrapper(fn, name=getattr(fn, "__name__", "loss"))
            self.losses.append(fn)
            self.weights.append(1.0 if weight is None else _loss_weight(weight))
        several = sum(fn is not None for fn in self.losses) > 1
        self.trackers = [metrics.Mean(name=f"{name}_loss") if several and fn is not None
                         else None for name, fn in zip(self.output_names, self.losses)]

    @property
    def metrics(self) -> list:
        """The per-output loss trackers (Keras 3: empty until built, and with one output)."""
        return [t for t in self.trackers if t is not None]

    @property
    def variables(self) -> list:
        return [v for m in self.metrics for v in m.variables]

    def __call__(self, y_true, y_pred, sample_weight=None):
        if self.output_names is None:
            self.build(output_names_of(y_pred))
        trues = _as_list(self._targets_of_losses(y_true), self.output_names, "y")
        preds = _as_list(y_pred, self.output_names, "model output")
        weights = _as_list(sample_weight, self.output_names, "sample_weight", allow_one=True)
        total = None
        for i, fn in enumerate(self.losses):
            if fn is None:
                continue
            if trues[i] is None:
                raise ValueError(f"compile: output '{self.output_names[i]}' has a loss but no "
                                 f"target was given for it")
            value = fn(trues[i], preds[i], sample_weight=weights[i])
            if self.trackers[i] is not None:
                self.trackers[i].update_state(value)
            term = value if self.weights[i] == 1.0 else ops.multiply(value, self.weights[i])
            total = term if total is None else ops.add(total, term)
        return total

    def _targets_of_losses(self, y_true):
        """``y`` with one target per output that has a loss, when some outputs have none
        (``loss=["mse", None]``): the targets spread over those outputs (Keras 3)."""
        with_loss = [i for i, fn in enumerate(self.losses) if fn is not None]
        n = len(self.output_names)
        if len(with_loss) == n or isinstance(y_true, dict) or y_true is None:
            return y_true
        targets = list(y_true) if isinstance(y_true, (list, tuple)) else [y_true]
        if len(targets) != len(with_loss):
            return y_true
        spread = [None] * n
        for i, target in zip(with_loss, targets):
            spread[i] = target
        return spread


def _loss_weight(weight) -> float:
    if not isinstance(weight, (int, float)) and \
            not (hasattr(weight, "dtype") and getattr(weight, "ndim", None) == 0):
        # A ValueError as in Keras (a legacy .h5 file's training_config reports it as a
        # SavingError naming the file).
        raise ValueError(f"compile: argument 'loss_weights' must be a float (one output) or "
                         f"a list or dict of floats, one per output (Keras: \"Expected "
                         f"`loss_weights` argument to be a float\"); received entry "
                         f"{weight!r} of type {type(weight).__name__}")
    return float(weight)


def _leaves(spec) -> list:
    """The non-None entries of a ``loss`` given per output (a dict or list) or for all."""
    if isinstance(spec, dict):
        spec = list(spec.values())
    if isinstance(spec, (list, tuple)):
        return [leaf for s in spec for leaf in _leaves(s)]
    return [] if spec is None else [spec]


def _as_list(value, names, what, allow_one=False):
    n = len(names)
    if value is None:
        return [None] * n
    if isinstance(value, dict):
        missing = [k for k in names if k not in value]
        if missing and not allow_one:
            raise ValueError(f"{what} given as a dict must have a key per output {names}; "
                             f"missing {missing}")
        return [value.get(k) for k in names]
    if isinstance(value, (list, tuple)) and n > 1:
        if len(value) != n:
            raise ValueError(f"the model has {n} outputs ({names}) but {what} has "
                             f"{len(value)} entries")
        return list(value)
    if n > 1 and allow_one:
        return [value] * n
    if n > 1:
        raise ValueError(f"the model has {n} outputs ({names}); {what} must be a list or dict "
                         f"of {n} entries")
    leaves = tree.flatten(value) if isinstance(value, (list, tuple)) else [value]
    return [leaves[0] if len(leaves) == 1 else value]


class CompileMetrics:
    """All compiled metrics as one object (Keras 3's ``compile_metrics``): ``result()`` is
    a dict keyed by the names the user wrote (``acc`` logs as ``acc``), prefixed with the
    output name for models with several outputs."""

    name = "compile_metrics"

    def __init__(self, metrics=None, weighted_metrics=None, output_names=None, loss=None):
        self._metrics, self._weighted_metrics = metrics, weighted_metrics
        self.output_names = None
        if output_names is not None:            # else named after the first y_pred
            self._name_outputs(list(output_names))
        self._loss = loss
        self.built = False
        self.entries: list[tuple[int, object, bool]] = []     # (output, metric, weighted)

    def _name_outputs(self, output_names: list[str]) -> None:
        self.output_names = output_names
        none = [None] * len(output_names)
        self._specs = (_match("metrics", self._metrics, output_names)
                       if self._metrics else none,
                       _match("weighted_metrics", self._weighted_metrics, output_names)
                       if self._weighted_metrics else none)

    def _resolve(self, spec, y_true, y_pred, loss, prefix):
        if isinstance(spec, str) and spec in ("accuracy", "acc"):
            metric = metrics.resolve_accuracy(tuple(y_true.shape), tuple(y_pred.shape), loss)
            metric.name = prefix + spec
            return metric
        metric = metrics.get(spec)
        if not hasattr(metric, "update_state"):
            metric = metrics.MeanMetricWrapper(metric, name=getattr(metric, "__name__",
                                                                    "metric"))
        if isinstance(spec, str):
            metric.name = spec                  # logs use the string as written ("mae")
        if prefix:
            metric.name = prefix + metric.name
        return metric

    def build(self, y_true, y_pred) -> None:
        if self.output_names is None:
            self._name_outputs(output_names_of(y_pred))
        trues = _as_list(y_true, self.output_names, "y")
        preds = _as_list(y_pred, self.output_names, "model output")
        several = len(self.output_names) > 1
        losses = _match("loss", self._loss, self.output_names) \
            if self._loss is not None else [None] * len(self.output_names)
        for weighted, specs in enumerate(self._specs):
            for i, spec in enumerate(specs):
                if spec is None:
                    continue
                items = spec if isinstance(spec, (list, tuple)) else [spec]
                prefix = f"{self.output_names[i]}_" if several else ""
                for item in items:
                    if trues[i] is None:
                        continue
                    metric = self._resolve(item, trues[i], preds[i], losses[i], prefix)
                    if weighted and any(m.name == metric.name for _, m, _ in self.entries):
                        metric.name = "weighted_" + metric.name
                    self.entries.append((i, metric, bool(weighted)))
        self.built = True

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        if not self.built:
            self.build(y_true, y_pred)
        trues = _as_list(y_true, self.output_names, "y")
        preds = _as_list(y_pred, self.output_names, "model output")
        weights = _as_list(sample_weight, self.output_names, "sample_weight", allow_one=True)
        for i, metric, weighted in self.entries:
            metric.update_state(trues[i], preds[i],
                                sample_weight=weights[i] if weighted else None)

    def result(self) -> dict:
        return {metric.name: metric.result() for _, metric, _ in self.entries}

    def reset_state(self) -> None:
        for _, metric, _ in self.entries:
            metric.reset_state()

    @property
    def metrics(self) -> list:
        return [metric for _, metric, _ in self.entries]

    @property
    def variables(self) -> list:
        return [v for m in self.metrics for v in getattr(m, "variables", [])]
