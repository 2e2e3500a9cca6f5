"""``Distiller``: train a student model against labels and a frozen teacher's outputs."""
from __future__ import annotations

from .. import metrics, ops
from ..models.model import Model
from ..models.sequential import Sequential
from ..registry import deserialize_keras_object, register_builtin, serialize_keras_object
from . import structures
from .distillation_loss import _as_loss


@register_builtin
class Distiller(Model):
    """A model whose loss is ``student_loss_weight * student_loss + (1 -
    student_loss_weight) * sum(weight_i * distillation_loss_i)``.

    The teacher is frozen (``teacher.trainable = False``) and runs in inference mode; the
    student is the model that trains, and ``distiller(x)`` is the student's prediction.
    ``compile(loss=...)`` gives the student loss (against the labels); each distillation
    loss compares the teacher's and the student's final outputs, or, for a
    ``FeatureDistillation`` with layer names, those layers' outputs. The logs hold
    ``student_loss``, ``distillation_loss`` and ``total_loss`` besides ``loss``.
    """

    _keras_module = "keras.distillation"

    def __init__(self, teacher, student, distillation_losses, distillation_loss_weights=None,
                 student_loss_weight=0.5, name="distiller", **kwargs):
        super().__init__(name=name, **kwargs)
        _check_models(teacher, student)
        self.teacher = teacher
        self.student = student
        if isinstance(student_loss_weight, bool) or \
                not isinstance(student_loss_weight, (int, float)):
            raise ValueError(f"Distiller: argument 'student_loss_weight' must be a number; "
                             f"received {student_loss_weight!r}")
        if not 0.0 <= student_loss_weight <= 1.0:
            raise ValueError(f"Distiller: argument 'student_loss_weight' must be between 0.0 "
                             f"and 1.0; received {student_loss_weight!r}")
        self.student_loss_weight = student_loss_weight
        if distillation_losses is None:
            raise ValueError("Distiller: argument 'distillation_losses' cannot be None; give "
                             "a distillation loss (e.g. LogitsDistillation or "
                             "FeatureDistillation) or a list of them")
        if not isinstance(distillation_losses, (list, tuple)):
            distillation_losses, distillation_loss_weights = [distillation_losses], [1.0]
        elif distillation_loss_weights is None:
            distillation_loss_weights = [1.0] * len(distillation_losses)
        elif len(distillation_loss_weights) != len(distillation_losses):
            raise ValueError(f"Distiller: argument 'distillation_loss_weights' must have one "
                             f"weight per distillation loss ({len(distillation_losses)}); "
                             f"received {len(distillation_loss_weights)}")
        self.__dict__["distillation_losses"] = list(distillation_losses)
        self.distillation_loss_weights = list(distillation_loss_weights)
        for loss in self.distillation_losses:
            loss.validate_model_compatibility(teacher, student)
        self._teacher_feature_extractor = _feature_extractor(
            teacher, _layer_names(self.distillation_losses, "teacher_layer_name"))
        self._student_feature_extractor = _feature_extractor(
            student, _layer_names(self.distillation_losses, "student_layer_name"))
        self.teacher.trainable = False
        self.student_loss_tracker = metrics.Mean(name="student_loss")
        self.distillation_loss_tracker = metrics.Mean(name="distillation_loss")
        self.total_loss_tracker = metrics.Mean(name="total_loss")

    def compile(self, optimizer="adam", loss=None, metrics=None, **kwargs):
        """``loss`` is the student loss (required), applied to labels and predictions."""
        if loss is None:
            raise ValueError("Distiller.compile: argument 'loss' (the student loss) cannot "
                             "be None")
        if metrics is not None and not isinstance(metrics, (list, tuple)):
            raise ValueError(f"Distiller.compile: argument 'metrics' must be a list or tuple; "
                             f"received {metrics!r}")
        self._student_loss = structures.map_structure(_as_loss, loss)
        self._student_loss_for_serialization = loss
        super().compile(optimizer=optimizer, loss=None, metrics=metrics, **kwargs)

    def call(self, inputs, training=None, **kwargs):
        return self.student(inputs, training=training, **kwargs)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        if y_pred is None:
            y_pred = self(x, training=training)
        student_loss = 0.0
        if self.student_loss_weight > 0.0 and y is not None:
            terms = structures.map_structures(lambda fn, t, p: fn(t, p), self._student_loss,
                                              y, y_pred)
            student_loss = ops.sum(ops.stack(terms)) if len(terms) > 1 else terms[0]
            if len(getattr(student_loss, "shape", ())) > 0:
                student_loss = ops.mean(student_loss)
        distillation_loss = 0.0
        if self.student_loss_weight < 1.0:
            teacher_features = self._teacher_features(x)
            student_features = self._student_features(x, y_pred)
            for loss, weight in zip(self.distillation_losses, self.distillation_loss_weights):
                if getattr(loss, "teacher_layer_name", None) is not None:
                    teacher_out = _features(loss, teacher_features, "teacher")
                    student_out = _features(loss, student_features, "student")
                else:
                    teacher_out, student_out = teacher_features["final_output"], y_pred
                loss.validate_outputs(teacher_out, student_out)
                value = loss.compute_loss(teacher_out, student_out)
                if len(getattr(value, "shape", ())) > 0:
                    raise ValueError(f"Distiller: distillation loss {type(loss).__name__} "
                                     f"returned a loss of shape {tuple(value.shape)}; "
                                     f"compute_loss must return a scalar")
                distillation_loss = ops.add(distillation_loss, ops.multiply(weight, value))
        total = ops.add(ops.multiply(self.student_loss_weight, student_loss),
                        ops.multiply(1.0 - self.student_loss_weight, distillation_loss))
        self.student_loss_tracker.update_state(student_loss)
        self.distillation_loss_tracker.update_state(distillation_loss)
        self.total_loss_tracker.update_state(total)
        return total

    def _teacher_features(self, x) -> dict:
        if self._teacher_feature_extractor is not None:
            return self._teacher_feature_extractor(x, training=False)
        return {"final_output": self.teacher(x, training=False)}

    def _student_features(self, x, y_pred) -> dict:
        if self._student_feature_extractor is not None:
            return self._student_feature_extractor(x, training=True)
        return {"final_output": y_pred}

    def reset_metrics(self) -> None:
        super().reset_metrics()
        for tracker in (self.student_loss_tracker, self.distillation_loss_tracker,
                        self.total_loss_tracker):
            tracker.reset_state()

    def get_config(self) -> dict:
        return {"name": self.name, "trainable": self.trainable,
                "teacher": serialize_keras_object(self.teacher),
                "student": serialize_keras_object(self.student),
                "distillation_losses": [serialize_keras_object(loss)
                                        for loss in self.distillation_losses],
                "distillation_loss_weights": self.distillation_loss_weights,
                "student_loss_weight": self.student_loss_weight}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        config = dict(config)
        for key in ("teacher", "student"):
            config[key] = deserialize_keras_object(config[key], custom_objects=custom_objects)
        config["distillation_losses"] = [
            deserialize_keras_object(loss, custom_objects=custom_objects)
            for loss in config["distillation_losses"]]
        return cls(**config)


def _check_models(teacher, student) -> None:
    for role, model in (("teacher", teacher), ("student", student)):
        if not isinstance(model, Model):
            raise ValueError(f"Distiller: the {role} must be a lamina Model; received "
                             f"{type(model).__name__}")
    t_in, s_in = getattr(teacher, "inputs", None), getattr(student, "inputs", None)
    t_out, s_out = getattr(teacher, "outputs", None), getattr(student, "outputs", None)
    for context, first, second in (("input", t_in, s_in), ("output", t_out, s_out)):
        if first is None or second is None:
            continue
        for a, b in zip(structures.leaves(first), structures.leaves(second)):
            _check_shapes(tuple(a.shape), tuple(b.shape), context)
            if a.dtype != b.dtype:
                raise ValueError(f"Distiller: teacher and student {context} dtypes must "
                                 f"match; teacher {a.dtype}, student {b.dtype}")


def _check_shapes(first, second, context: str) -> None:
    if len(first) != len(second) or any(a is not None and b is not None and a != b
                                         for a, b in zip(first, second)):
        raise ValueError(f"Distiller: teacher and student {context} shapes are incompatible; "
                         f"teacher {first}, student {second} (every known dimension must "
                         f"match)")


def _layer_names(losses, attribute: str) -> list:
    names = []
    for loss in losses:
        name = getattr(loss, attribute, None)
        if name and name not in names:
            names.append(name)
    return names


def _feature_extractor(model, layer_names):
    """A functional model from ``model``'s inputs to its final output and the outputs of
    ``layer_names`` (a dict keyed by ``"final_output"`` and the names); None if no names."""
    if not layer_names:
        return None
    if getattr(model, "inputs", None) is None:
        raise ValueError(f"Distiller: cannot extract features from {model.name}: the model "
                         f"has no symbolic inputs")
    final = model.layers[-1].output if isinstance(model, Sequential) else model.output
    outputs = {"final_output": final}
    for name in layer_names:
        outputs[name] = model.get_layer(name=name).output
    return Model(inputs=model.inputs, outputs=outputs,
                 name=f"{model.name}_multi_feature_extractor")


def _features(loss, features: dict, role: str):
    name = getattr(loss, f"{role}_layer_name") or "final_output"
    if name not in features:
        raise RuntimeError(f"Distiller: {type(loss).__name__} targets {role} layer "
                           f"'{name}', which is not among the extracted features "
                           f"{sorted(features)}")
    return features[name]
