"""What ``compile(loss=..., metrics=...)`` becomes: one object for the losses of all outputs
and one for their metrics, matched to the outputs by position or by output name."""
from __future__ import annotations

from .. import losses, metrics, ops, tree


def _match(what: str, spec, output_names: list[str]) -> list:
    """``spec`` per output: a dict keyed by output name, a list by position, or one value
    for every output. For metrics a flat list is the list of metrics of every output."""
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
        per_output = n > 1 and len(spec) == n and all(
            s is None or isinstance(s, (list, tuple)) for s in spec)
        return list(spec) if per_output else [list(spec)] * n
    if len(spec) != n:
        raise ValueError(f"compile: argument '{what}' has {len(spec)} entries but the model "
                         f"has {n} output(s) {output_names}")
    return list(spec)


class CompileLoss:
    """The total loss: ``sum(weight_i * loss_i(y_true_i, y_pred_i, sample_weight))``."""

    def __init__(self, loss, loss_weights=None, output_names=None):
        self.output_names = list(output_names or ["output"])
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
            self.weights.append(1.0 if weight is None else float(weight))
        several = sum(fn is not None for fn in self.losses) > 1
        self.trackers = [metrics.Mean(name=f"{name}_loss") if several and fn is not None
                         else None for name, fn in zip(self.output_names, self.losses)]

    def __call__(self, y_true, y_pred, sample_weight=None):
        trues = _as_list(y_true, self.output_names, "y")
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
        self.output_names = list(output_names or ["output"])
        none = [None] * len(self.output_names)
        self._specs = (_match("metrics", metrics, self.output_names) if metrics else none,
                       _match("weighted_metrics", weighted_metrics, self.output_names)
                       if weighted_metrics else none)
        self._loss = loss
        self.built = False
        self.entries: list[tuple[int, object, bool]] = []     # (output, metric, weighted)

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
