"""``TensorBoard``: logs for TensorBoard (Keras 3's arguments, run folders and tags), with
no TensorFlow: the event files are written by tensorboardX (``pip install
lamina[tensorboard]``), and ``tensorboard --logdir logs`` shows them.

- ``log_dir/train`` and ``log_dir/validation`` runs; per epoch ``epoch_loss``,
  ``epoch_<metric>``, ``epoch_learning_rate`` (train), ``epoch_steps_per_second`` with
  ``write_steps_per_second``; after each evaluation ``evaluation_<name>_vs_iterations``
  (validation run, step = the optimizer's iterations);
- ``update_freq="batch"`` or N: ``batch_<name>`` (and ``batch_steps_per_second``) every N
  training batches, step = the global batch count from 1;
- ``histogram_freq``: ``<weight path>/histogram`` of every layer weight every N epochs;
  ``write_images`` adds ``<weight path>/image`` (kernels as grayscale pictures);
- ``write_graph``: the model's JSON (tag ``keras``, the conceptual graph) and Lamina's
  traced train-step graph (the op graph) in the train run;
- ``embeddings_freq``: each Embedding's matrix as a TSV with a ``projector_config.pbtxt``
  that TensorBoard's Projector reads (see tensorboard_projector.py).

Faults (the policy a user loses least with: the model and its training matter more than
its logs): when the logs cannot be written -- a full disk, a file-size limit, a log dir
that cannot be made, a writer thread that does not answer within
``LAMINA_TENSORBOARD_TIMEOUT`` seconds (default 60) -- one
:class:`~lamina.callbacks.tensorboard_file.TensorBoardWriteWarning` names the log dir and
the OS error, logging stops for the rest of that fit, and training goes on; the records
written before stay readable. Weights with NaN or +-inf get histograms of their finite
values and one warning naming the weight (TensorFlow's histogram makes every bucket edge
NaN then). No writer thread or file stays open after ``fit``, whatever ended it.
"""
from __future__ import annotations

import os
import time
import warnings

from ..registry import register_builtin
from ..core.ignored_arguments import warn_ignored
from .callback import Callback
from .tensorboard_events import EventWriter, _tensorboardx
from .tensorboard_file import TensorBoardWriteWarning, writer_timeout
from .tensorboard_graph import to_graph_def, traced_train_graph
from .tensorboard_projector import ProjectorWriter
from ..traceback_filter import user_stacklevel


def _check_profile_batch(profile_batch):
    """Keras's accepted forms: an int >= 0, a pair (start, stop), or "start,stop"."""
    message = (f"TensorBoard: argument 'profile_batch' must be a non-negative integer or "
               f"a pair of positive integers (start, stop) with start <= stop; received "
               f"{profile_batch!r}")
    value = profile_batch
    if isinstance(value, str):
        try:
            value = [int(part) for part in value.split(",")]
        except ValueError:
            raise ValueError(message) from None
        value = value[0] if len(value) == 1 else value
    if isinstance(value, bool):
        raise ValueError(message)
    if isinstance(value, int):
        start = stop = value
    elif isinstance(value, (tuple, list)) and len(value) == 2 and \
            all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        start, stop = value
    else:
        raise ValueError(message)
    if start < 0 or stop < start:
        raise ValueError(message)
    return start, stop


def _check_update_freq(update_freq):
    if update_freq == "batch":
        return 1
    if update_freq == "epoch":
        return "epoch"
    if isinstance(update_freq, int) and not isinstance(update_freq, bool) and update_freq > 0:
        return update_freq
    raise ValueError(f"TensorBoard: argument 'update_freq' must be 'batch', 'epoch' or a "
                     f"positive integer; received {update_freq!r}")


@register_builtin
class TensorBoard(Callback):
    """Write TensorBoard logs while ``fit``/``evaluate`` run.

    Needs the ``tensorboardX`` extra. Under ``DataParallel`` only process 0 writes.

    Args:
        log_dir: The folder the event files are written to (``train/`` and
            ``validation/`` under it). Defaults to ``"logs"``.
        histogram_freq: Every how many epochs to write histograms of the weights; ``0``
            (default) writes none.
        write_graph: If ``True`` (default), write the model's graph.
        write_images: If ``True``, write the weights as images.
        write_steps_per_second: If ``True``, log the training steps per second.
        update_freq: ``"epoch"`` (default), ``"batch"``, or an int number of batches
            between writes of the training losses and metrics.
        profile_batch: Not supported: there is no profiler for Lamina's kernels; anything
            other than ``0`` gives a warning and nothing is profiled.
        embeddings_freq: Every how many epochs to write the ``Embedding`` layers for the
            projector; ``0`` (default) writes none.
        embeddings_metadata: ``None``, a metadata file name, or a dict of layer name to
            file name, for the projector.

    Raises:
        ValueError: If ``histogram_freq``, ``embeddings_freq`` or ``update_freq`` is not
            one of the values above.

    Example:

    >>> model.fit(x, y, validation_split=0.2, callbacks=[TensorBoard("logs")])
    $ tensorboard --logdir logs
    """

    _keras_module = "keras.callbacks"

    chief_only = True            # under DataParallel, process 0 alone writes events

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True,
                 write_images=False, write_steps_per_second=False, update_freq="epoch",
                 profile_batch=0, embeddings_freq=0, embeddings_metadata=None):
        super().__init__()
        _tensorboardx()                          # the extra's error now, not mid-fit
        for name, value in (("histogram_freq", histogram_freq),
                            ("embeddings_freq", embeddings_freq)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"TensorBoard: argument '{name}' must be a non-negative "
                                 f"integer (epochs; 0 turns it off); received {value!r}")
        if embeddings_metadata is not None and not isinstance(embeddings_metadata,
                                                              (str, dict)):
            raise TypeError(f"TensorBoard: argument 'embeddings_metadata' must be None, a "
                            f"file name or a dict of layer name -> file name; received "
                            f"{embeddings_metadata!r}")
        self.log_dir = os.fspath(log_dir) if isinstance(log_dir, os.PathLike) \
            else str(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = _check_update_freq(update_freq)
        self.profile_batch = profile_batch
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        if _check_profile_batch(profile_batch) != (0, 0):
            warn_ignored("TensorBoard", "profile_batch", profile_batch,
                         "there is no TensorFlow/JAX profiler for Lamina's kernels (Keras "
                         "itself refuses it on its numpy backend); nothing is profiled")
        self._timeout = writer_timeout()
        self._writers: dict[str, EventWriter] = {}
        self._stopped = False           # the logs could not be written: log nothing more
        self._warned_nonfinite = False
        self._global_train_batch = 0
        self._batch_start_time = 0.0
        self._epoch_start_time = 0.0
        self._epoch_start_iterations = 0
        self._graph_pending = False
        self._training = False

    # ------------------------------------------------------------------ writers
    def _writer(self, run: str) -> EventWriter:
        if run not in self._writers:
            self._writers[run] = EventWriter(os.path.join(self.log_dir, run), self._timeout)
            if self._stopped:
                self._writers[run].stop()
        return self._writers[run]

    def _close_writers(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._check_writers()

    def _check_writers(self) -> None:
        """After a write: a writer that failed stops all logging, with one warning."""
        for writer in self._writers.values():
            if writer.error is not None:
                self._stop_logging(writer.error)
                return

    def _stop_logging(self, why: str) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._graph_pending = False
        for writer in self._writers.values():
            writer.stop()
        warnings.warn(f"TensorBoard: cannot write the logs in {self.log_dir!r} ({why}); "
                      f"TensorBoard logging stops for this fit, training goes on",
                      TensorBoardWriteWarning, stacklevel=user_stacklevel())

    def set_model(self, model) -> None:
        super().set_model(model)
        self._close_writers()
        self._writers = {}
        self._stopped = False               # a new fit tries again
        self._warned_nonfinite = False
        self._graph_pending = bool(self.write_graph)
        if self.write_graph:
            try:
                text = model.to_json()
            except Exception as error:      # a subclassed model without a config
                warn_ignored("TensorBoard", "write_graph (model config)", True,
                             f"the model's config could not be written as JSON "
                             f"({type(error).__name__}: {error}); only the op graph is "
                             f"written")
            else:
                self._writer("train").model_json("keras", text, step=0)
                self._check_writers()
        if self.embeddings_freq:
            self._projector = ProjectorWriter(self.log_dir, model, self.embeddings_metadata)
            if not self._projector.layers:
                warn_ignored("TensorBoard", "embeddings_freq", self.embeddings_freq,
                             f"{model.name} has no Embedding layer; no projector data is "
                             f"written")

    # ------------------------------------------------------------------ hooks
    def on_train_begin(self, logs=None):
        self._global_train_batch = 0
        self._training = True

    def on_train_end(self, logs=None):
        if self._graph_pending:
            self._write_graph()
        if self._graph_pending:
            warn_ignored("TensorBoard", "write_graph", True,
                         "the train step never ran as a graph (run_eagerly=True, a step "
                         "that could not be traced, or a single batch, which builds the "
                         "model eagerly); no op graph was written")
            self._graph_pending = False
        self._training = False
        self._close_writers()

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self.write_steps_per_second:
            self._batch_start_time = time.time()

    def on_train_batch_end(self, batch, logs=None):
        if self._graph_pending:
            self._write_graph()
        step = self._global_train_batch
        if self.update_freq == "epoch" or step % self.update_freq:
            return
        writer = self._writer("train")
        if self.write_steps_per_second:
            elapsed = max(time.time() - self._batch_start_time, 1e-9)
            writer.scalar("batch_steps_per_second", 1.0 / elapsed, step)
        for name, value in _scalars(logs):
            writer.scalar(f"batch_{name}", value, step)
        self._check_writers()

    def on_epoch_begin(self, epoch, logs=None):
        if self.write_steps_per_second:
            self._epoch_start_iterations = self._iterations()
            self._epoch_start_time = time.time()

    def on_epoch_end(self, epoch, logs=None):
        self._log_epoch_metrics(epoch, logs or {})
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0 and not self._stopped:
            try:
                self._projector.write(epoch)
            except OSError as error:
                self._stop_logging(f"{type(error).__name__}: {error}")
        self._check_writers()

    def on_test_end(self, logs=None):
        if getattr(self.model, "optimizer", None) is None:
            return
        writer = self._writer("validation")
        for name, value in _scalars(logs):
            writer.scalar(f"evaluation_{name}_vs_iterations", value, self._iterations())
        if self._training:
            writer.flush()
            self._check_writers()
        else:                              # evaluate() alone: no on_train_end closes it
            self._close_writers()

    # ------------------------------------------------------------------ helpers
    def _iterations(self) -> int:
        optimizer = getattr(self.model, "optimizer", None)
        iterations = getattr(optimizer, "iterations", None)
        if iterations is None:
            return 0
        return int(iterations.numpy()) if hasattr(iterations, "numpy") else int(iterations)

    def _collect_learning_rate(self, logs: dict) -> dict:
        """``logs`` with the rate (``learning_rate``, or ``learning_rate_<name>`` for each
        optimizer of a MultiOptimizer) added; Keras 3's name and contract."""
        optimizer = getattr(self.model, "optimizer", None)
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)
        if optimizer is None:
            return logs
        if hasattr(optimizer, "optimizers"):
            logs.update({f"learning_rate_{o.name}": _number(o.learning_rate)
                         for o in optimizer.optimizers})
        else:
            logs["learning_rate"] = _number(optimizer.learning_rate)
        return logs

    def _log_epoch_metrics(self, epoch: int, logs: dict) -> None:
        if not logs:
            return
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        validation = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        train = self._collect_learning_rate(train)
        if self.write_steps_per_second:
            elapsed = max(time.time() - self._epoch_start_time, 1e-9)
            train["steps_per_second"] = \
                (self._iterations() - self._epoch_start_iterations) / elapsed
        for run, values in (("train", train), ("validation", validation)):
            if values:
                writer = self._writer(run)
                for name, value in _scalars(values):
                    writer.scalar(f"epoch_{name}", value, epoch)
                writer.flush()

    def _log_weights(self, epoch: int) -> None:
        writer = self._writer("train")
        for layer in self.model.layers:
            for weight in layer.weights:
                name = weight.path.replace(":", "_")
                values = weight.numpy()
                left_out = writer.histogram(f"{name}/histogram", values, epoch)
                if any(left_out) and not self._warned_nonfinite:
                    self._warned_nonfinite = True
                    nan, positive, negative = left_out
                    warnings.warn(
                        f"TensorBoard: weight {weight.path!r} has {nan} NaN, {positive} "
                        f"+inf and {negative} -inf values at epoch {epoch}; they are left "
                        f"out of its histogram ({values.size - sum(left_out)} finite "
                        f"values binned)", UserWarning, stacklevel=user_stacklevel())
                if self.write_images:
                    image = _weight_image(values)
                    if image is not None:
                        writer.image(f"{name}/image", image, epoch)
        writer.flush()

    def _write_graph(self) -> None:
        graph = traced_train_graph(self.model)
        if graph is None:
            return
        writer = self._writer("train")
        writer.graph(to_graph_def(graph, self.model))
        writer.flush()
        self._graph_pending = False
        self._check_writers()

    def get_config(self) -> dict:
        return {"log_dir": self.log_dir, "histogram_freq": self.histogram_freq,
                "write_graph": self.write_graph, "write_images": self.write_images,
                "write_steps_per_second": self.write_steps_per_second,
                "update_freq": self.update_freq,
                "profile_batch": self.profile_batch,
                "embeddings_freq": self.embeddings_freq,
                "embeddings_metadata": self.embeddings_metadata}

    @classmethod
    def from_config(cls, config: dict) -> "TensorBoard":
        return cls(**config)


def _number(value) -> float:
    return float(value.numpy()) if hasattr(value, "numpy") else float(value)


def _scalars(logs):
    """(name, float) for every number in ``logs`` (Keras skips nothing but writes only
    scalars; a non-scalar value here would be a metric returning an array)."""
    if not isinstance(logs, dict):
        return []
    out = []
    for name, value in logs.items():
        try:
            out.append((name, _number(value)))
        except (TypeError, ValueError):
            continue
    return out


def _weight_image(values):
    """Keras's picture of a weight: a bias as one row, a 2-D kernel with its longer side
    across, a 3-D kernel as its last-axis slices side by side (Keras's one image per
    slice, tiled), a 4-D conv kernel as a grid (input channels down, filters across)."""
    w = values.squeeze()
    if w.ndim == 1:
        return w.reshape(1, -1)
    if w.ndim == 2:
        return w.T if w.shape[0] > w.shape[1] else w
    if w.ndim == 3:                       # (h, w, channels) channels-last slices
        h, width, channels = w.shape
        return w.transpose(0, 2, 1).reshape(h, channels * width)
    if w.ndim == 4:                       # (h, w, in, out)
        h, width, inputs, filters = w.shape
        return w.transpose(2, 0, 3, 1).reshape(inputs * h, filters * width)
    return None
