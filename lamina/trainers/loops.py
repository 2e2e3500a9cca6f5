"""The epoch and batch loops behind fit / evaluate / predict."""
from __future__ import annotations

import math
import warnings

from .. import ops, settings, tree
from ..callbacks import CallbackList, History
from ..data_adapters import OutputBuffer, make_adapter
from ..data_adapters.device_batch import to_device
from ..distribution.equal_steps import agree_on_steps
from ..distribution.sync import begin_fit, fit_barrier
from ..distribution.strategies import is_chief
from . import argument_checks as check
from .debug_limits import cap_epochs, cap_steps
from .epoch_batches import EpochIterator
from .executions import run_execution, steps_per_execution
from .fit_data import FitData
from .nested_runs import independent_run
from .ran_out import no_batches_error, warn_epoch_ran_out, warn_ran_out, warn_ran_out_in_fit
from ..tree import pythonify_logs
from ..traceback_filter import user_stacklevel


def _verbose(verbose) -> int:
    if not settings.is_interactive_logging_enabled() or not is_chief():
        return 0            # under DataParallel, process 0 alone shows progress
    if verbose == "auto":
        return 1
    if verbose not in (0, 1, 2, True, False):
        raise ValueError(f"argument 'verbose' must be 'auto', 0, 1 or 2; received {verbose!r}")
    return int(verbose)


def _callbacks(model, callbacks, verbose, epochs, steps, add_history):
    if isinstance(callbacks, CallbackList):
        return callbacks
    return CallbackList(callbacks, add_history=add_history, add_progbar=verbose != 0,
                        model=model, verbose=verbose, epochs=epochs, steps=steps)


def _validation_epochs(validation_freq, epoch: int) -> bool:
    """``validation_freq``: as ``argument_checks.validation_freq`` returns it."""
    if isinstance(validation_freq, int):
        return (epoch + 1) % validation_freq == 0
    return (epoch + 1) in validation_freq


def _history_of(callbacks, model):
    for callback in callbacks.callbacks:
        if isinstance(callback, History):
            return callback
    return getattr(model, "history", None)


def fit_loop(model, fit_data: FitData, epochs, verbose, callbacks, initial_epoch,
             validation_freq):
    """The epochs of ``fit`` over ``fit_data`` (``fit_data.py`` makes it from fit's data
    arguments); returns the ``History``."""
    verbose = _verbose(verbose)
    epochs = cap_epochs(check.non_negative_int("fit", "epochs", epochs))
    initial_epoch = check.non_negative_int("fit", "initial_epoch", initial_epoch)
    validation_freq = check.validation_freq(validation_freq)
    # One iterator for all epochs: with steps_per_epoch, a pass over the data goes on
    # across epochs (Keras 3; see epoch_batches).
    # DataParallel: the same number of batches on every process (agree_on_steps).
    with independent_run(model), agree_on_steps(
            model, EpochIterator(fit_data.data, fit_data.steps_per_epoch), "train") as iterator:
        callbacks = _callbacks(model, callbacks, verbose, epochs, iterator.num_batches, True)
        history = _history_of(callbacks, model)
        _train_epochs(model, fit_data, iterator, callbacks, epochs, initial_epoch,
                      validation_freq)
        # This fit's History, though a fit run by a callback set its own; set inside the
        # run, so that a nested fit leaves the outer fit's in place.
        model.history = history
    return history


def _train_epochs(model, fit_data, iterator, callbacks, epochs, initial_epoch,
                  validation_freq) -> None:
    for callback in callbacks.callbacks:
        if hasattr(callback, "set_callback_list"):     # BackupAndRestore saves the others
            callback.set_callback_list(callbacks)
    model.stop_training = False
    fit_barrier()           # DataParallel: process 0's writes of an earlier fit are done
    callbacks.on_train_begin()
    begin_fit(model)        # DataParallel: same weights, shuffles and configs everywhere
    # Keras 3's own protocol, kept so that callbacks written for Keras work: a callback's
    # on_train_begin may set model._initial_epoch (BackupAndRestore does, with _initial_step, the
    # batches of that epoch its backup had trained on) to resume after its last backup;
    # they are read once here and cleared, so a later fit starts where it is told.
    resumed_epoch = getattr(model, "_initial_epoch", None) or 0
    skip = (getattr(model, "_initial_step", None) or 0) if resumed_epoch >= initial_epoch \
        else 0
    initial_epoch = max(initial_epoch, resumed_epoch)
    model._initial_epoch = model._initial_step = None
    training_logs = _epoch_loop(model, fit_data, iterator, callbacks, epochs, initial_epoch,
                                validation_freq, skip)
    # Keras 3: with use_ema, the moving averages replace the weights when fit ends, before
    # on_train_end (not when an error ends it).
    finalize = getattr(model.optimizer, "finalize_variable_values", None)
    if finalize is not None and epochs > 0:
        finalize(model.trainable_weights)
    callbacks.on_train_end(logs=training_logs)


def _epoch_loop(model, fit_data, iterator, callbacks, epochs, initial_epoch,
                validation_freq, skip) -> dict:
    """The epochs of one fit; the logs of the last."""
    steps_per_epoch, val_data = fit_data.steps_per_epoch, fit_data.val_data
    training_logs = {}
    for epoch in range(initial_epoch, epochs):
        model.reset_metrics()
        callbacks.on_epoch_begin(epoch)
        # Only now: shuffling draws from the random state on_epoch_begin may restore.
        # The first `skip` batches were trained before the backup this fit resumed from.
        with iterator.epoch(steps_per_execution(model), skip) as batches:
            logs = {} if batches.empty else _train_batches(model, batches, callbacks)
        if batches.empty:
            if epoch == initial_epoch:
                raise no_batches_error("fit", "x", fit_data.x)
            warn_ran_out_in_fit(epoch, epochs, 0, steps_per_epoch, batches.size)
            break                   # no epoch end, no logs, for an epoch without data
        ran_out = not model.stop_training and batches.ran_short()
        epoch_logs = dict(logs) if logs else pythonify_logs(model.get_metrics_result())
        if val_data is not None and _validation_epochs(validation_freq, epoch):
            val_logs = run_evaluation(model, val_data, callbacks,
                                      steps=fit_data.validation_steps)
            if val_logs is None:
                warnings.warn(f"fit: argument 'validation_data' yielded no batches in "
                              f"epoch {epoch + 1}; this epoch has no validation metrics",
                              UserWarning, stacklevel=user_stacklevel())
            else:
                epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
        callbacks.on_epoch_end(epoch, epoch_logs)
        training_logs, skip = epoch_logs, 0
        if ran_out and iterator.one_shot:       # it cannot start a new pass: stop
            warn_ran_out_in_fit(epoch, epochs, batches.skip + batches.count, steps_per_epoch,
                                batches.size)
            break
        if ran_out:                             # the next epoch starts a new pass
            warn_epoch_ran_out(epoch, epochs, batches.skip + batches.count,
                               batches.expected, iterator.pass_length)
        if model.stop_training:
            break
    return training_logs


def _train_batches(model, batches, callbacks) -> dict:
    """One epoch's executions; the logs of the last."""
    logs = {}
    for begin, end, group in batches:
        callbacks.on_train_batch_begin(begin)
        # Fetched per execution: a callback may recompile (which drops the steps).
        logs = pythonify_logs(run_execution(model.make_train_function(), group, to_device))
        callbacks.on_train_batch_end(end, logs)
        if model.stop_training:
            break
    return logs


def run_evaluation(model, adapter, callbacks, what: str = "fit (validation)",
                   steps: int | None = None) -> dict | None:
    """The logs of one pass over ``adapter`` (``steps`` batches of it, when given); None
    when it yields no batch (and then no callback is called)."""
    # closed (its workers joined) however it ends
    with agree_on_steps(model, EpochIterator(adapter, steps), "test") as iterator, \
            iterator.epoch(steps_per_execution(model)) as batches:
        if batches.empty:
            return None
        model.reset_metrics()
        model.stop_evaluating = False       # a callback may set it to end the pass (Keras)
        callbacks.on_test_begin()
        logs = {}
        for begin, end, group in batches:
            callbacks.on_test_batch_begin(begin)
            logs = pythonify_logs(run_execution(model.make_test_function(), group,
                                                to_device))
            callbacks.on_test_batch_end(end, logs)
            if model.stop_evaluating:
                break
    if not model.stop_evaluating and batches.ran_short():
        warn_ran_out(what, batches.count, batches.expected, "the loss and metrics")
    if not logs:
        logs = pythonify_logs(model.get_metrics_result())
    callbacks.on_test_end(logs)
    return logs


def evaluate_loop(model, x, y, batch_size, verbose, sample_weight, steps, callbacks,
                  pipeline=None) -> dict:
    verbose = _verbose(verbose)
    batch_size = check.positive_int_or_none("evaluate", "batch_size", batch_size)
    steps = cap_steps(check.positive_int_or_none("evaluate", "steps", steps))
    data = make_adapter(x, y, sample_weight, batch_size=batch_size, steps=steps,
                        what="evaluate", pipeline=pipeline)
    with independent_run(model):
        callbacks = _callbacks(model, callbacks, verbose, 1, steps or data.num_batches, False)
        logs = run_evaluation(model, data, callbacks, what="evaluate", steps=steps)
    if logs is None:
        raise no_batches_error("evaluate", "x", x)
    return logs


def predict_loop(model, x, batch_size, verbose, steps, callbacks, pipeline=None):
    """Outputs written batch by batch into host arrays allocated after the first batch."""
    verbose = _verbose(verbose)
    batch_size = check.positive_int_or_none("predict", "batch_size", batch_size)
    steps = cap_steps(check.positive_int_or_none("predict", "steps", steps))
    data = make_adapter(x, batch_size=batch_size, steps=steps, what="predict",
                        pipeline=pipeline)
    size = steps_per_execution(model)
    with agree_on_steps(model, EpochIterator(data, steps), "predict") as iterator, \
            iterator.epoch(size) as batches:
        if batches.empty:
            raise no_batches_error("predict", "x", x)
        callbacks = _callbacks(model, callbacks, verbose, 1, iterator.num_batches, False)
        total = getattr(iterator.adapter, "size", None)     # DataParallel: all processes'
        if total is not None and steps:
            # Every execution draws `size` batches (Keras 3): steps rounds up to a multiple.
            total = min(total, math.ceil(steps / size) * size * data.batch_size)
        outputs = OutputBuffer(total)
        model.stop_predicting = False       # a callback may set it to end predict (Keras)
        callbacks.on_predict_begin()
        for begin, end, group in batches:
            callbacks.on_predict_batch_begin(begin)
            function = model.make_predict_function()
            outs = [function(to_device((batch[0], None, None))) for batch in group]
            for out in outs:
                outputs.add(out)
            callbacks.on_predict_batch_end(end, {"outputs": _concatenate(outs)})
            if model.stop_predicting:
                break
    if not model.stop_predicting and batches.ran_short():
        warn_ran_out("predict", batches.count, batches.expected, "the outputs")
    callbacks.on_predict_end()
    return outputs.result()


def _concatenate(outs: list):
    """The outputs of one execution's steps as one batch (Keras 3's predict logs)."""
    if len(outs) == 1:
        return outs[0]
    return tree.map_structure(lambda *parts: ops.concatenate(list(parts), axis=0), *outs)


__all__ = ["fit_loop", "evaluate_loop", "predict_loop", "pythonify_logs", "to_device"]
