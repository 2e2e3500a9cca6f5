"""Adafactor, Ftrl, Lamb, ScheduleFreeAdamW and Muon against Keras 3.15.1's own numbers
(keras_reference_new.py): five steps on fixed variables and gradients, with weight decay,
clipping and non-default hyperparameters, and the optimizer's variables as Keras names them."""
import numpy as np
import pytest

import lamina
from lamina import optimizers

from . import keras_reference_new as ref
from .helpers import A, B, W0, make_variables, quadratic_gradient, train


def _case_id(case):
    name, kwargs, _ = case
    return name + "-" + "-".join(sorted(kwargs))


@pytest.mark.parametrize("case", ref.CASES, ids=[_case_id(c) for c in ref.CASES])
def test_five_steps_match_keras(backend, case):
    name, kwargs, want = case
    opt = getattr(optimizers, name)(**kwargs)
    variables = make_variables("float32")
    got = train(opt, variables, 5)
    for g, w, start in zip(got, want["weights"], make_variables("float32")):
        np.testing.assert_allclose(g, np.array(w, "float32"), rtol=2e-5, atol=2e-6)
        assert not np.allclose(g, start.numpy())
    assert [v.name for v in opt.variables] == want["names"]
    assert int(opt.iterations) == 5


def _train_single(opt, w0, a, b, path, steps):
    variable = lamina.Variable(np.array(w0, "float32"), name=path.split("/")[-1])
    variable.path = path
    a, b = np.array(a, "float32"), np.array(b, "float32")
    for _ in range(steps):
        grad = lamina.ops.add(lamina.ops.multiply(variable, a), b)
        opt.apply_gradients([(grad, variable)])
    return variable.numpy()


def test_adafactor_factors_the_last_two_axes_of_a_3d_variable(backend):
    data = ref.ADAFACTOR_3D
    opt = optimizers.Adafactor(learning_rate=0.3)
    got = _train_single(opt, data["w0"], data["a"], data["b"], "conv/kernel", 4)
    np.testing.assert_allclose(got, data["weights"], rtol=2e-5, atol=2e-6)
    assert [v.name for v in opt.variables] == data["names"]
    assert [v.shape for v in opt.variables[2:]] == [(2, 2), (2, 3), (2, 2, 3)]


def test_adafactor_keeps_keras_int32_placeholders_for_vectors():
    opt = optimizers.Adafactor()
    opt.build(make_variables("float64"))
    placeholders = opt.variables[5:7]
    assert [(v.shape, v.dtype) for v in placeholders] == [((), "int32"), ((), "int32")]
    assert opt.variables[7].dtype == "float64" and opt.variables[2].shape == (2,)


def test_muon_tall_kernel_and_embedding_match_keras(backend):
    w0, a, b = W0[0].T, A[0].T, B[0].T
    got = _train_single(optimizers.Muon(0.1), w0, a, b, "dense/kernel", 4)
    np.testing.assert_allclose(got, ref.MUON_TALL, rtol=2e-5, atol=2e-6)
    opt = optimizers.Muon(0.1)
    got = _train_single(opt, w0, a, b, "embedding/embeddings", 2)
    np.testing.assert_allclose(got, ref.MUON_EMBEDDING, rtol=2e-5, atol=2e-6)
    assert [v.name for v in opt.variables] == ref.MUON_EMBEDDING_NAMES


@pytest.mark.parametrize("name", ["Adafactor", "Ftrl", "Lamb", "ScheduleFreeAdamW", "Muon"])
def test_float64_follows_float32(name):
    kwargs = {"learning_rate": 0.1}
    got = {}
    for dtype in ("float32", "float64"):
        variables = make_variables(dtype)
        got[dtype] = train(getattr(optimizers, name)(**kwargs), variables, 3)
        assert all(v.dtype == dtype for v in variables)
    for a, b in zip(got["float32"], got["float64"]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_quadratic_gradient_is_used():
    # The fixtures assume helpers' problem; a change there must fail here first.
    (w,) = make_variables("float32")[:1]
    np.testing.assert_allclose(quadratic_gradient(0, w.numpy()),
                               [[1.1, -6.2, 0.55], [0.5, 0.7, -2.35]], rtol=1e-6)
