"""Distillation losses: how far a student's outputs (or features) are from a teacher's."""
from __future__ import annotations

from .. import losses, ops
from ..registry import register_builtin, serialize_keras_object
from . import structures


def _as_loss(item):
    """A loss name -> the loss function; anything else (a Loss, a callable, None) as is."""
    if isinstance(item, str):
        return losses.get(item)
    return item


def _stacked_sum(values):
    """The sum of per-output terms (tensors, or 0.0 for an output without a loss)."""
    dtype = next((v.dtype for v in values if hasattr(v, "dtype")), "float32")
    return ops.sum(ops.stack([ops.cast(v, dtype) if hasattr(v, "dtype") else
                              ops.convert_to_tensor(v, dtype=dtype) for v in values]))


@register_builtin
class DistillationLoss:
    """Base class: ``compute_loss(teacher_outputs, student_outputs)`` returns a scalar.

    ``validate_outputs`` checks the two structures match before each computation;
    ``validate_model_compatibility(teacher, student)`` checks the models when the
    Distiller is created (nothing by default).
    """

    _keras_module = "keras.distillation"

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}: DistillationLoss subclasses must "
                                  f"implement compute_loss(teacher_outputs, student_outputs)")

    def validate_outputs(self, teacher_outputs, student_outputs):
        structures.assert_same(teacher_outputs, student_outputs,
                               f"{type(self).__name__}: teacher and student outputs")

    def validate_model_compatibility(self, teacher, student):
        pass


def _losses_of(owner: str, loss, message: str):
    loss = structures.map_structure(_as_loss, loss)
    if all(item is None for item in structures.leaves(loss)):
        raise ValueError(f"{owner}: {message}; received loss={loss!r}")
    return loss


@register_builtin
class FeatureDistillation(DistillationLoss):
    """``mean(loss(teacher_features, student_features))`` summed over the outputs; with
    ``teacher_layer_name``/``student_layer_name``, the features are those layers' outputs
    (the models must then be Functional or Sequential), else the models' final outputs."""

    def __init__(self, loss="mse", teacher_layer_name=None, student_layer_name=None):
        self.teacher_layer_name = teacher_layer_name
        self.student_layer_name = student_layer_name
        self.loss = _losses_of("FeatureDistillation", loss,
                               "argument 'loss' must contain at least one loss that is "
                               "not None")

    def validate_model_compatibility(self, teacher, student):
        if self.teacher_layer_name is None and self.student_layer_name is None:
            return
        subclassed = [role for role, model in (("teacher", teacher), ("student", student))
                      if getattr(model, "inputs", None) is None]
        if subclassed:
            raise ValueError(f"FeatureDistillation: layer names need Functional or "
                             f"Sequential models (with symbolic inputs and outputs); the "
                             f"{' and '.join(subclassed)} model(s) look subclassed. Use "
                             f"Functional/Sequential models, or leave the layer names out to "
                             f"distill the final outputs, or use LogitsDistillation")
        for role, model, name in (("teacher", teacher, self.teacher_layer_name),
                                  ("student", student, self.student_layer_name)):
            if name is not None:
                try:
                    model.get_layer(name=name)
                except ValueError as error:
                    raise ValueError(f"In {role} model: {error}") from None

    def validate_outputs(self, teacher_outputs, student_outputs):
        super().validate_outputs(teacher_outputs, student_outputs)
        structures.assert_same(self.loss, teacher_outputs,
                               "FeatureDistillation: the 'loss' structure and the outputs")

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        def term(loss_fn, teacher, student):
            return 0.0 if loss_fn is None else ops.mean(loss_fn(teacher, student))
        return _stacked_sum(structures.map_structures(term, self.loss, teacher_outputs,
                                                      student_outputs))

    def get_config(self) -> dict:
        return {"loss": structures.map_structure(serialize_keras_object, self.loss),
                "teacher_layer_name": self.teacher_layer_name,
                "student_layer_name": self.student_layer_name}

    @classmethod
    def from_config(cls, config: dict):
        config = dict(config)
        config["loss"] = _deserialize_losses(config["loss"])
        return cls(**config)


@register_builtin
class LogitsDistillation(DistillationLoss):
    """Compares logits softened by ``temperature``: each loss gets ``teacher / T`` and
    ``student / T``. A ``KLDivergence`` loss instance compares the softmax probabilities
    and is scaled by ``T**2`` (Hinton et al.); a loss given by name (the default
    ``"kl_divergence"``) or as a function receives the scaled logits as they are, as in
    Keras 3."""

    def __init__(self, temperature=3.0, loss="kl_divergence"):
        self.temperature = temperature
        self.loss = _losses_of("LogitsDistillation", loss,
                               "at least one loss must be not None")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise ValueError(f"LogitsDistillation: argument 'temperature' must be a number; "
                             f"received {temperature!r}")
        if temperature <= 0.0:
            raise ValueError(f"LogitsDistillation: argument 'temperature' must be positive; "
                             f"received {temperature!r}")

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        t = self.temperature

        def term(loss_fn, teacher, student):
            if loss_fn is None:
                return 0.0
            teacher, student = ops.divide(teacher, t), ops.divide(student, t)
            if isinstance(loss_fn, losses.KLDivergence):
                value = ops.mean(loss_fn(ops.softmax(teacher, axis=-1),
                                         ops.softmax(student, axis=-1)))
                return value * (t ** 2)
            return ops.mean(loss_fn(teacher, student))
        return _stacked_sum(structures.map_structures(term, self.loss, teacher_outputs,
                                                      student_outputs))

    def get_config(self) -> dict:
        return {"temperature": self.temperature,
                "loss": structures.map_structure(serialize_keras_object, self.loss)}

    @classmethod
    def from_config(cls, config: dict):
        config = dict(config)
        config["loss"] = _deserialize_losses(config["loss"])
        return cls(**config)


def _deserialize_losses(config):
    if isinstance(config, (list, tuple)):
        return [None if item is None else losses.deserialize(item) for item in config]
    if isinstance(config, dict) and "class_name" not in config:
        return {k: None if v is None else losses.deserialize(v) for k, v in config.items()}
    return losses.deserialize(config)
