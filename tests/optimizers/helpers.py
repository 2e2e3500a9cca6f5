"""Shared pieces of the optimizer tests: a small quadratic problem, a runner that trains
Lamina variables on it, and the numpy golden value to compare against."""
import numpy as np

import lamina
from lamina import ops

from . import numpy_reference
from lamina.ops.core import to_backend_tensor

# loss = sum(0.5 * A * w^2 + B * w) per weight, so the gradient is A * w + B.
W0 = [np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.5]]), np.array([0.3, -0.7, 2.0])]
A = [np.array([[1.0, 3.0, 0.5], [2.0, 0.1, 1.5]]), np.array([0.8, 2.5, 1.0])]
B = [np.array([[0.1, -0.2, 0.3], [0.0, 0.4, -0.1]]), np.array([-0.3, 0.2, 0.05])]

RTOL = {"float32": 2e-6, "float64": 1e-12}


def make_variables(dtype, weights=W0, paths=("dense/kernel", "dense/bias")):
    variables = []
    for w, path in zip(weights, paths):
        v = lamina.Variable(np.array(w, dtype=dtype), dtype=dtype, name=path.split("/")[-1])
        v.path = path
        variables.append(v)
    return variables


def quadratic_gradient(i, w):
    """The gradient ``A * w + B`` with Lamina ops (for a Variable) or numpy (for arrays)."""
    if isinstance(w, np.ndarray):
        return A[i].astype(w.dtype) * w + B[i].astype(w.dtype)
    a = to_backend_tensor(A[i].astype(w.dtype), backend=w.backend)
    b = to_backend_tensor(B[i].astype(w.dtype), backend=w.backend)
    return ops.add(ops.multiply(a, w), b)


def train(optimizer, variables, steps):
    for _ in range(steps):
        grads = [quadratic_gradient(i, v) for i, v in enumerate(variables)]
        optimizer.apply_gradients(zip(grads, variables))
    return [v.numpy() for v in variables]


def check_golden(optimizer, name, dtype, steps=5, **hp):
    """Train ``optimizer`` for ``steps`` steps and compare with the numpy reference."""
    variables = make_variables(dtype)
    got = train(optimizer, variables, steps)
    lr = float(optimizer.learning_rate)
    want = numpy_reference.run(name, W0, quadratic_gradient, steps, lr, dtype,
                               weight_decay=optimizer.weight_decay, **hp)
    for g, w in zip(got, want):
        assert g.dtype == np.dtype(dtype)
        np.testing.assert_allclose(g, w, rtol=RTOL[dtype], atol=RTOL[dtype] * 1e-2)
    # The weights really moved, so the comparison is not trivially true.
    assert not np.allclose(got[0], np.array(W0[0], dtype=dtype))
    return got


def one_step(optimizer, w, g, dtype="float32"):
    """Apply one gradient ``g`` to a variable starting at ``w``; returns its new value."""
    variable = lamina.Variable(np.array(w, dtype=dtype), dtype=dtype, name="w")
    optimizer.apply_gradients([(ops.convert_to_tensor(np.array(g, dtype=dtype)), variable)])
    return variable.numpy()
