"""The resize_images op (``resize`` of sizes known only when run) and its gradient op: the
forward equals the composed ``resize`` of known sizes; the gradient is its adjoint."""
import numpy as np
import pytest

from lamina import ops
from lamina.ops.image_resize_dynamic import ResizeImages, ResizeImagesGrad
from tests.harness import case, rand, run_case

SETTINGS = [dict(method="bilinear"), dict(method="bicubic", crop=True),
            dict(method="nearest", pad=True, fill_value=0.0),
            dict(method="lanczos3", antialias=True)]


def _composed(x, method="bilinear", antialias=False, crop=False, pad=False, fill_value=0.0):
    return ops.image.resize(x, (4, 3), interpolation=method, antialias=antialias,
                            crop_to_aspect_ratio=crop, pad_to_aspect_ratio=pad,
                            fill_value=fill_value).numpy()


def _linear_map(shape, attrs):
    """The matrix of the composed resize of inputs of ``shape`` (float64)."""
    columns = []
    for i in range(int(np.prod(shape))):
        basis = np.zeros(int(np.prod(shape)))
        basis[i] = 1.0
        columns.append(_composed(basis.reshape(shape), **attrs).ravel())
    return np.array(columns).T


CASES = [case("resize_images", lambda x, a=a: ResizeImages(x, height=4, width=3, **a),
              lambda x, a=a: _composed(x, **a), [rand(1, 3, 5, 2)], label=a["method"])
         for a in SETTINGS] + [
    case("resize_images_grad",
         lambda g, x, a=a: ResizeImagesGrad(g, x, height=4, width=3, **a),
         lambda g, x, a=a: (_linear_map(x.shape, a).T @ g.ravel()).reshape(x.shape),
         [rand(1, 4, 3, 1), rand(1, 3, 5, 1)], grad_argnums=(0,), label=a["method"])
    for a in SETTINGS]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)
