"""``compile`` / ``fit`` / ``evaluate`` / ``predict`` (Keras 3's ``Trainer``).

The step functions are the single seam between the loops and how a step runs:
``train_step`` / ``test_step`` / ``predict_step`` hold the math (users may override them),
and ``make_train_function`` & co. return the callables the loops call once per batch —
eagerly here; graph mode returns compiled versions of the same steps.
"""
from __future__ import annotations

import functools
import inspect
import warnings

from .. import metrics as metrics_module
from .. import ops, optimizers, tree
from ..autograd.tape import GradientTape
from ..core import structure
from ..data_adapters import ArrayDataAdapter, is_py_dataset, unpack_x_y_sample_weight
from ..data_adapters.device_batch import to_device
from ..distribution.steps import distribute_step, is_stale
from ..ops.reduction import num_rows
from ..metrics import Metric
from ..traceback_filter import filter_traceback, user_stacklevel
from .host_prefix import apply_host_prefix
from ..core.ignored_arguments import warn_ignored
from . import argument_checks as check
from .compile_from_config import compile_from_config
from .compile_utils import CompileLoss, CompileMetrics
from .compiled_step import CompiledStep
from .fit_data import fit_data
from .loops import evaluate_loop, fit_loop, predict_loop, pythonify_logs

class Trainer:
    """Mixed into ``Model``: training and inference over datasets.

    It can be mixed into any layer, as Keras 3's ``Trainer`` can: ``class M(Trainer,
    Dense)`` whose ``__init__`` calls ``Dense.__init__(self, ...)`` then
    ``Trainer.__init__(self)``."""

    def __init__(self):
        """The state before ``compile`` (Keras 3's): nothing compiled, no loss, one step
        per execution. It touches no layer state, so it may run after the layer's
        ``__init__``."""
        self.compiled = False
        self.loss = None
        self.loss_weights = None
        self.steps_per_execution = 1
        self.run_eagerly = False
        self._compile_loss = None
        self._compile_metrics = None
        self._loss_tracker = None

    # ---------------------------------------------------------------- compile
    def compile_from_config(self, config: dict) -> None:
        """Compile as ``config`` (from :meth:`get_compile_config`) says and build the
        optimizer (Keras 3). A class that overrides ``compile`` compiles itself: the saved
        config is then not applied, with a warning."""
        if type(self).compile is not Trainer.compile:
            warnings.warn(f"{self.name}: `compile()` was not called as part of model loading "
                          f"because the model's `compile()` method is custom. Its saved "
                          f"compile_config is not applied: override get_compile_config() "
                          f"and compile_from_config(config), or call compile() on the "
                          f"loaded model", stacklevel=user_stacklevel())
            return
        compile_from_config(self, config)

    @filter_traceback
    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None,
                weighted_metrics=None, run_eagerly=False, steps_per_execution=1,
                jit_compile="auto", auto_scale_loss=True, **kwargs) -> None:
        """Configure training (Keras 3's arguments). ``steps_per_execution=N`` runs N
        steps per execution: the batch callbacks are called once per N batches, with the
        last step's logs (see ``trainers.executions``). ``jit_compile=True`` has no effect
        here and warns once. With
        ``auto_scale_loss`` and a model whose dtype policy is ``mixed_float16`` the
        optimizer is wrapped in a ``LossScaleOptimizer``, as in Keras 3."""
        unknown = set(kwargs) - {"sample_weight_mode", "target_tensors", "distribute",
                                 "pss_evaluation_shards"}
        if unknown:
            raise TypeError(f"{self.name}.compile: unrecognized keyword argument(s) "
                            f"{sorted(unknown)}")
        if not isinstance(steps_per_execution, int) or steps_per_execution < 1:
            raise ValueError(f"{self.name}.compile: argument 'steps_per_execution' must be a "
                             f"positive int; received {steps_per_execution!r}")
        self.optimizer = optimizers.get(optimizer)
        if (auto_scale_loss and self.dtype_policy.name == "mixed_float16"
                and self.optimizer is not None
                and not isinstance(self.optimizer, optimizers.LossScaleOptimizer)):
            self.optimizer = optimizers.LossScaleOptimizer(self.optimizer,
                                                           name="loss_scale_optimizer")
        names = self._declared_output_names()   # None: named after the first outputs
        self.loss = loss
        self.loss_weights = loss_weights
        self._compile_loss = CompileLoss(loss, loss_weights, names) if loss is not None \
            else None
        self._compile_metrics = CompileMetrics(metrics, weighted_metrics, names, loss) \
            if (metrics or weighted_metrics) else None
        self._loss_tracker = metrics_module.Mean(name="loss")
        self.run_eagerly = bool(run_eagerly)
        _warn_ignored_compile_arguments(self, jit_compile, kwargs)
        self.steps_per_execution = steps_per_execution
        self.jit_compile = jit_compile
        self._compile_config = dict(optimizer=optimizer, loss=loss, loss_weights=loss_weights,
                                    metrics=metrics, weighted_metrics=weighted_metrics,
                                    run_eagerly=run_eagerly,
                                    steps_per_execution=steps_per_execution)
        self.compiled = True
        self.stop_training = False
        self.train_function = self.test_function = self.predict_function = None
        structure.changed()        # a step held by a running loop must retrace too

    @property
    def optimizer(self):
        return self.__dict__.get("_optimizer")

    @optimizer.setter
    def optimizer(self, value) -> None:
        # A compiled train step applies the optimizer it was traced with: replacing it
        # (model.optimizer = ...) must retrace.
        self.__dict__["_optimizer"] = value
        structure.changed()

    def _declared_output_names(self) -> list[str] | None:
        """The output names a functional model declares; None for a model (or layer) whose
        outputs are known only when it runs."""
        names = getattr(self, "output_names", None)
        if callable(names):
            names = names()
        return list(names) if names else None

    def _output_names_for_compile(self) -> list[str]:
        return self._declared_output_names() or ["output"]

    def _assert_compiled(self, method: str) -> None:
        if not getattr(self, "compiled", False):
            raise RuntimeError(f"{self.name}: call compile() before {method}() (e.g. "
                               f"model.compile(optimizer='adam', loss='mse'))")

    @property
    def metrics(self) -> list:
        """The loss tracker, per-output loss trackers, the compiled metrics and any metrics
        assigned as attributes (Keras 3's order)."""
        result = []
        if getattr(self, "compiled", False):
            result.append(self._loss_tracker)
            if self._compile_loss is not None:
                result.extend(t for t in self._compile_loss.trackers if t is not None)
            if self._compile_metrics is not None:
                result.append(self._compile_metrics)
        for value in self.__dict__.values():
            if isinstance(value, Metric) and all(value is not m for m in result):
                result.append(value)
        return result

    @property
    def metrics_variables(self) -> list:
        """The variables of :attr:`metrics`, in that order (Keras 3)."""
        return [variable for metric in self.metrics for variable in metric.variables]

    @property
    def metrics_names(self) -> list[str]:
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    def _symbolic_build(self, iterator=None, data_batch=None) -> None:
        """Keras 3's build before a loop: the model, the compiled loss (its per-output
        trackers) and the compiled metrics are built from one batch ``(x, y[, sw])``;
        the model runs with ``training=False`` and no metric or weight changes."""
        if iterator is not None:
            raise NotImplementedError(f"{self.name}: _symbolic_build(iterator=...) is not "
                                      f"supported in Lamina; pass data_batch=(x, y)")
        if data_batch is None:
            raise ValueError(f"{self.name}: _symbolic_build needs 'data_batch', a batch "
                             f"(x, y) or (x, y, sample_weight); received None")
        x, y, _ = unpack_x_y_sample_weight(data_batch)
        y_pred = self(x, training=False)
        loss, compiled = self._compile_loss, self._compile_metrics
        if loss is not None and not loss.built and y is not None:
            loss.prepare(y, y_pred)
        if compiled is not None and not compiled.built and y is not None:
            compiled.build(y, y_pred)

    # ---------------------------------------------------------------- steps
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss plus the model's added and regularization losses."""
        terms = []
        if self._compile_loss is not None:
            terms.append(self._compile_loss(y, y_pred, sample_weight))
        terms.extend(self.losses)
        if not terms:
            raise ValueError(f"{self.name}: no loss to compute; pass a 'loss' to compile() "
                             f"or add losses with add_loss()")
        total = terms[0]
        for term in terms[1:]:
            total = ops.add(total, ops.cast(term, total.dtype))
        return total

    def compute_metrics(self, x, y, y_pred, sample_weight=None) -> dict:
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict:
        logs = {}
        for metric in self.metrics:
            value = metric.result()
            if isinstance(value, dict):
                logs.update(value)
            else:
                logs[metric.name] = value
        return logs

    def train_step(self, data) -> dict:
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
            scaled_loss = self.optimizer.scale_loss(loss) if self.optimizer is not None \
                else loss
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        variables = self.trainable_weights
        if variables:
            grads = tape.gradient(scaled_loss, variables)
            self.optimizer.apply_gradients(zip(grads, variables))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data) -> dict:
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        if _accepts_training(type(self).compute_loss):
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                                     training=False)
        else:           # a Keras 3.0-era override has no `training` (Keras passes none)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data):
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    # The seam: loops call these once per batch. run_eagerly=True gives the Python steps;
    # otherwise (the default) each step is traced once per input signature into a graph
    # and run from its compiled plan.
    def make_train_function(self, force: bool = False):
        if getattr(self, "train_function", None) is None or force or \
                is_stale(self.train_function):
            self.train_function = self._compiled(self.train_step, "train_step", train=True)
        return self.train_function

    def make_test_function(self, force: bool = False):
        if getattr(self, "test_function", None) is None or force or \
                is_stale(self.test_function):
            self.test_function = self._compiled(self.test_step, "test_step")
        return self.test_function

    def make_predict_function(self, force: bool = False):
        if getattr(self, "predict_function", None) is None or force or \
                is_stale(self.predict_function):
            self.predict_function = self._compiled(self.predict_step, "predict_step")
        return self.predict_function

    def _compiled(self, step, name: str, train: bool = False):
        function = step
        if not getattr(self, "run_eagerly", False):
            function = CompiledStep(self, step, name, train=train)
        # Under a DataParallel distribution: this process's rows of each batch.
        return distribute_step(self, function, name.split("_")[0])

    # ---------------------------------------------------------------- loops
    @filter_traceback
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1, **kwargs):
        """Train for ``epochs - initial_epoch`` epochs; returns the ``History``."""
        pipeline = _check_legacy_kwargs(self, "fit", kwargs, x, validation_data)
        self._assert_compiled("fit")
        x = apply_host_prefix(self, x)
        if isinstance(validation_data, tuple) and validation_data:
            validation_data = (apply_host_prefix(self, validation_data[0]),
                               *validation_data[1:])
        data = fit_data(x, y, sample_weight, batch_size=batch_size, shuffle=shuffle,
                        class_weight=class_weight, steps_per_epoch=steps_per_epoch,
                        validation_split=validation_split, validation_data=validation_data,
                        validation_steps=validation_steps,
                        validation_batch_size=validation_batch_size, pipeline=pipeline)
        return fit_loop(self, data, epochs=epochs, verbose=verbose, callbacks=callbacks,
                        initial_epoch=initial_epoch, validation_freq=validation_freq)

    @filter_traceback
    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False, **kwargs):
        """The loss and metrics on the data: a scalar, a list ``[loss, ...]`` or a dict."""
        pipeline = _check_legacy_kwargs(self, "evaluate", kwargs, x)
        self._assert_compiled("evaluate")
        logs = evaluate_loop(self, x=apply_host_prefix(self, x), y=y, batch_size=batch_size, verbose=verbose,
                             sample_weight=sample_weight, steps=steps, callbacks=callbacks,
                             pipeline=pipeline)
        return logs if return_dict else self._flatten_logs(logs)

    @filter_traceback
    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None,
                **kwargs):
        """The outputs for ``x`` as host numpy arrays (written into one preallocated array
        per output)."""
        pipeline = _check_legacy_kwargs(self, "predict", kwargs, x)
        return predict_loop(self, x=apply_host_prefix(self, x), batch_size=batch_size, verbose=verbose, steps=steps,
                            callbacks=callbacks, pipeline=pipeline)

    def _flatten_logs(self, logs: dict):
        """``[loss, *metrics]`` in metric order (a scalar when there is only the loss)."""
        names = []
        for metric in self.metrics:
            if isinstance(metric, CompileMetrics):
                names.extend(m.name for m in metric.metrics)
            else:
                names.append(metric.name)
        flat = [logs[name] for name in names if name in logs]
        flat += [value for key, value in logs.items() if key not in names]
        return flat[0] if len(flat) == 1 else flat

    # ---------------------------------------------------------------- single batches
    @filter_traceback
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       return_dict=False):
        """One gradient step on one batch; the logs are this batch's alone (the metrics are
        reset first, as in Keras 3)."""
        self._assert_compiled("train_on_batch")
        class_weight = check.class_weight("train_on_batch", class_weight)
        adapter = ArrayDataAdapter(x, y, sample_weight, single_batch=True,
                                   class_weight=class_weight, what="train_on_batch")
        (batch,) = list(adapter.epoch())
        step = self.make_train_function()
        self.reset_metrics()
        logs = _pythonify(step(to_device(batch)))
        return logs if return_dict else self._flatten_logs(logs)

    @filter_traceback
    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """The loss and metrics on one batch (the metrics are reset first, as in Keras 3)."""
        self._assert_compiled("test_on_batch")
        adapter = ArrayDataAdapter(x, y, sample_weight, single_batch=True,
                                   what="test_on_batch")
        (batch,) = list(adapter.epoch())
        step = self.make_test_function()
        self.reset_metrics()
        logs = _pythonify(step(to_device(batch)))
        return logs if return_dict else self._flatten_logs(logs)

    @filter_traceback
    def predict_on_batch(self, x):
        if not _one_nonempty_array(x):      # lists, dicts, empty data: checked, converted
            adapter = ArrayDataAdapter(x, single_batch=True, what="predict_on_batch")
            ((x, _, _),) = list(adapter.epoch())
        step = self.make_predict_function()
        if hasattr(step, "predict_array") and _is_array(x):  # graph mode: the bound
            # plan's latency path (one array; nested inputs take the ordinary call)
            return step.predict_array(x)
        out = step(to_device((x, None, None)))
        return tree.map_structure(lambda t: t.numpy(), out)


# Keras 2 arguments that moved to PyDataset in Keras 3: accepted, warned about once.
_LEGACY_DATA_ARGUMENTS = {"max_queue_size", "workers", "use_multiprocessing"}


def _one_nonempty_array(x) -> bool:
    """``x`` is one array (host or tensor) with rows: the common ``predict_on_batch``
    argument, which needs no adapter (a latency path: the adapter costs ~7 us a call)."""
    shape = getattr(x, "shape", None)
    return shape is not None and hasattr(x, "dtype") and len(shape) >= 1 and \
        bool(shape[0])


def _is_array(x) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _check_legacy_kwargs(model, method: str, kwargs: dict, *data) -> dict:
    """``workers`` / ``use_multiprocessing`` / ``max_queue_size`` (Keras 2's arguments;
    Keras 3 reads them from the PyDataset) as settings for the PyDatasets among ``data``;
    with no PyDataset there, they warn once that they have no effect."""
    unknown = sorted(set(kwargs) - _LEGACY_DATA_ARGUMENTS)
    if unknown:
        raise TypeError(f"{model.name}.{method}: unrecognized keyword argument(s) {unknown}")
    if not any(is_py_dataset(d) for d in data):
        for name in sorted(kwargs):
            warn_ignored(f"{type(model).__name__}.{method}", name, kwargs[name],
                         "only a PyDataset's batches are fetched by workers (array data is "
                         "sliced, and a generator drawn, in the calling thread)")
    return kwargs


def _warn_ignored_compile_arguments(model, jit_compile, kwargs) -> None:
    owner = f"{type(model).__name__}.compile"
    if jit_compile not in ("auto", False, None):
        warn_ignored(owner, "jit_compile", jit_compile, "there is no XLA; graph mode (the "
                     "default unless run_eagerly=True) compiles the step")
    for name in sorted(kwargs):
        if kwargs[name] is not None:
            warn_ignored(owner, name, kwargs[name], "a Keras 2 / TensorFlow-only argument")


def _batch_size(x):
    """An int, or a tensor counted at run time when the batch size is unknown (a trace)."""
    # the first array: an optional Input may be given None (Keras 3)
    return num_rows(next(v for v in tree.flatten(x) if v is not None))


def _pythonify(logs: dict) -> dict:
    return pythonify_logs(logs)


@functools.lru_cache(maxsize=None)
def _accepts_training(compute_loss) -> bool:
    """Whether a ``compute_loss`` (the class's function) takes ``training`` (or **kwargs)."""
    try:
        parameters = inspect.signature(compute_loss).parameters
    except (TypeError, ValueError):
        return True
    return "training" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
