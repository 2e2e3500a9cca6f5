"""keras.distillation against Keras 3.15.1's numbers (tests/fixtures/distillation_keras.json,
written by tests/fixtures/make_distillation_references.py), eager and graph mode."""
import json
import pathlib

import numpy as np
import pytest

import lamina
from lamina import layers, losses
from lamina.distillation import (DistillationLoss, Distiller, FeatureDistillation,
                                 LogitsDistillation)

F = json.loads((pathlib.Path(__file__).parents[1] / "fixtures" /
                "distillation_keras.json").read_text())
T, S, T2, S2 = (np.array(F[k], "float32") for k in ("T", "S", "T2", "S2"))
X, Y = np.array(F["X"], "float32"), np.array(F["Y"], "float32")

LOSS_CASES = [
    ("logits_default", lambda: LogitsDistillation(), (T, S)),
    ("logits_t2", lambda: LogitsDistillation(temperature=2.0), (T, S)),
    ("logits_kl_instance",
     lambda: LogitsDistillation(temperature=2.0, loss=losses.KLDivergence()), (T, S)),
    ("logits_cce", lambda: LogitsDistillation(temperature=1.5,
                                              loss="categorical_crossentropy"), (T, S)),
    ("logits_list", lambda: LogitsDistillation(temperature=2.0, loss=["mse", None]),
     ([T, T2], [S, S2])),
    ("logits_list2", lambda: LogitsDistillation(temperature=2.0,
                                                loss=["mse", losses.KLDivergence()]),
     ([T, T2], [S, S2])),
    ("feature_mse", lambda: FeatureDistillation(), (T, S)),
    ("feature_cos", lambda: FeatureDistillation(loss="cosine_similarity"), (T, S)),
    ("feature_list", lambda: FeatureDistillation(loss=["mae", "mse"]), ([T, T2], [S, S2])),
]


@pytest.mark.parametrize("key, make, inputs", LOSS_CASES, ids=[c[0] for c in LOSS_CASES])
def test_losses_match_keras(key, make, inputs):
    loss = make()
    np.testing.assert_allclose(loss.compute_loss(*inputs).numpy(), F[key], rtol=1e-6)
    compiled = lamina.jit(lambda a, b: loss.compute_loss(a, b))
    np.testing.assert_allclose(compiled(*inputs).numpy(), F[key], rtol=1e-6)


def test_loss_configs_round_trip():
    for loss in (LogitsDistillation(temperature=2.0, loss=["mse", None]),
                 FeatureDistillation(loss="mae", teacher_layer_name="a")):
        restored = type(loss).from_config(loss.get_config())
        assert restored.get_config() == loss.get_config()
        np.testing.assert_allclose(
            restored.compute_loss([T, T2] if isinstance(loss.loss, list) else T,
                                  [S, S2] if isinstance(loss.loss, list) else S).numpy(),
            loss.compute_loss([T, T2] if isinstance(loss.loss, list) else T,
                              [S, S2] if isinstance(loss.loss, list) else S).numpy())
    assert LogitsDistillation(temperature=2.0).get_config()["temperature"] == 2.0
    assert FeatureDistillation(teacher_layer_name="a").get_config()["student_layer_name"] \
        is None


def test_loss_errors():
    with pytest.raises(ValueError, match="LogitsDistillation: argument 'temperature' must be "
                                         "positive; received 0"):
        LogitsDistillation(temperature=0)
    with pytest.raises(ValueError, match="argument 'temperature' must be a number; received "
                                         "'hot'"):
        LogitsDistillation(temperature="hot")
    with pytest.raises(ValueError, match="LogitsDistillation: at least one loss must be not "
                                         "None"):
        LogitsDistillation(loss=[None, None])
    with pytest.raises(ValueError, match="FeatureDistillation: argument 'loss' must contain "
                                         "at least one loss that is not None"):
        FeatureDistillation(loss=None)
    with pytest.raises(ValueError, match="teacher and student outputs: the structures do not "
                                         r"match; received \[\*, \*\] and \*"):
        LogitsDistillation().validate_outputs([T, T2], S)
    with pytest.raises(ValueError, match="the 'loss' structure and the outputs"):
        FeatureDistillation(loss=["mse", "mae"]).validate_outputs(T, S)
    with pytest.raises(NotImplementedError, match="DistillationLoss subclasses must "
                                                  "implement compute_loss"):
        DistillationLoss().compute_loss(T, S)


def _dense_weights(shape, seed):
    return np.random.default_rng(seed).normal(scale=0.5, size=shape).astype("float32")


def _models():
    ti = lamina.Input((6,))
    h = layers.Dense(4, activation="relu", name="t_hidden")(ti)
    teacher = lamina.Model(ti, layers.Dense(3, name="t_out")(h), name="teacher")
    si = lamina.Input((6,))
    h = layers.Dense(4, activation="tanh", name="s_hidden")(si)
    student = lamina.Model(si, layers.Dense(3, name="s_out")(h), name="student")
    for model, base in ((teacher, 0), (student, 10)):
        model.set_weights([_dense_weights(w.shape, base + k)
                           for k, w in enumerate(model.get_weights())])
    return teacher, student


def _distiller(case):
    teacher, student = _models()
    if case == "logits":
        return Distiller(teacher, student, [LogitsDistillation(temperature=2.0)],
                         student_loss_weight=0.3)
    return Distiller(teacher, student,
                     [LogitsDistillation(temperature=2.0),
                      FeatureDistillation(loss="mse", teacher_layer_name="t_hidden",
                                          student_layer_name="s_hidden")],
                     distillation_loss_weights=[1.0, 0.5], student_loss_weight=0.3)


@pytest.mark.parametrize("case", ["logits", "both"])
@pytest.mark.parametrize("run_eagerly", [True, False])
def test_distiller_fit_matches_keras(case, run_eagerly):
    distiller = _distiller(case)
    teacher_before = distiller.teacher.get_weights()
    distiller.compile(optimizer=lamina.optimizers.SGD(0.1), loss="mse",
                      run_eagerly=run_eagerly)
    assert len(distiller.trainable_weights) == F[f"{case}_trainable"] == 4
    history = distiller.fit(X, Y, epochs=3, batch_size=4, verbose=0, shuffle=False)
    expected = F[f"{case}_history"]
    assert sorted(history.history) == sorted(expected)
    for key, values in expected.items():
        np.testing.assert_allclose(history.history[key], values, rtol=1e-5)
    for got, want in zip(distiller.student.get_weights(), F[f"{case}_student"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for got, want in zip(distiller.teacher.get_weights(), teacher_before):
        np.testing.assert_array_equal(got, want)                 # the teacher is frozen
    logs = distiller.evaluate(X, Y, verbose=0, return_dict=True)
    for key, value in F[f"{case}_eval"].items():
        np.testing.assert_allclose(logs[key], value, rtol=1e-5)
    np.testing.assert_allclose(distiller.predict(X, verbose=0),
                               distiller.student.predict(X, verbose=0), rtol=1e-6)


def test_student_only_and_distillation_only_weights():
    for weight, zero in ((1.0, "distillation_loss"), (0.0, "student_loss")):
        teacher, student = _models()
        distiller = Distiller(teacher, student, LogitsDistillation(),
                              student_loss_weight=weight)
        distiller.compile(optimizer="sgd", loss="mse")
        logs = distiller.evaluate(X, Y, verbose=0, return_dict=True)
        assert logs[zero] == 0.0 and logs["total_loss"] > 0.0


def test_distiller_config_round_trip():
    distiller = _distiller("both")
    config = distiller.get_config()
    assert config["student_loss_weight"] == 0.3
    assert config["distillation_loss_weights"] == [1.0, 0.5]
    restored = Distiller.from_config(config)
    restored.student.set_weights(distiller.student.get_weights())
    restored.teacher.set_weights(distiller.teacher.get_weights())
    np.testing.assert_allclose(restored.predict(X, verbose=0),
                               distiller.predict(X, verbose=0), rtol=1e-6)
    assert [type(l).__name__ for l in restored.distillation_losses] == \
        ["LogitsDistillation", "FeatureDistillation"]


def test_distiller_errors():
    teacher, student = _models()
    with pytest.raises(ValueError, match="Distiller: the teacher must be a lamina Model; "
                                         "received Dense"):
        Distiller(layers.Dense(2), student, LogitsDistillation())
    with pytest.raises(ValueError, match="'student_loss_weight' must be between 0.0 and 1.0; "
                                         "received 1.5"):
        Distiller(teacher, student, LogitsDistillation(), student_loss_weight=1.5)
    with pytest.raises(ValueError, match="'student_loss_weight' must be a number"):
        Distiller(teacher, student, LogitsDistillation(), student_loss_weight="half")
    with pytest.raises(ValueError, match="'distillation_losses' cannot be None"):
        Distiller(teacher, student, None)
    with pytest.raises(ValueError, match="one weight per distillation loss \\(1\\); received "
                                         "2"):
        Distiller(teacher, student, [LogitsDistillation()],
                  distillation_loss_weights=[1.0, 2.0])
    other = lamina.Sequential([lamina.Input((5,)), layers.Dense(3)])
    with pytest.raises(ValueError, match=r"teacher and student input shapes are "
                                         r"incompatible; teacher \(None, 5\), student "
                                         r"\(None, 6\)"):
        Distiller(other, student, LogitsDistillation())
    with pytest.raises(ValueError, match="In teacher model: .*no layer named 'nope'"):
        Distiller(teacher, student, FeatureDistillation(teacher_layer_name="nope"))

    class Sub(lamina.Model):
        def call(self, x):
            return x
    with pytest.raises(ValueError, match="the student model\\(s\\) look subclassed"):
        Distiller(teacher, Sub(), FeatureDistillation(student_layer_name="s_hidden"))
    distiller = Distiller(teacher, student, LogitsDistillation())
    with pytest.raises(ValueError, match="Distiller.compile: argument 'loss' \\(the student "
                                         "loss\\) cannot be None"):
        distiller.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="argument 'metrics' must be a list or tuple"):
        distiller.compile(optimizer="sgd", loss="mse", metrics="mae")


def test_compute_loss_errors():
    class PerSample(DistillationLoss):
        def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
            return lamina.ops.mean(teacher_outputs - student_outputs, axis=-1)
    teacher, student = _models()
    distiller = Distiller(teacher, student, PerSample())
    distiller.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    with pytest.raises(ValueError, match=r"distillation loss PerSample returned a loss of "
                                         r"shape \(8,\); compute_loss must return a scalar"):
        distiller.evaluate(X, Y, batch_size=8, verbose=0)
    feature = FeatureDistillation(teacher_layer_name="t_hidden", student_layer_name="s_hidden")
    distiller = Distiller(*_models(), feature)
    feature.teacher_layer_name = "t_out"           # changed after the extractors were made
    distiller.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    with pytest.raises(RuntimeError, match="FeatureDistillation targets teacher layer "
                                           "'t_out', which is not among the extracted "
                                           "features"):
        distiller.evaluate(X, Y, verbose=0)
