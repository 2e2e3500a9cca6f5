"""RandomElasticTransform and MaxNumBoundingBoxes: harness cases, displacement size,
seeds, graph == eager, argument errors, the bounding-box limitation."""
import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.RandomElasticTransform, dict(factor=0.5, scale=0.5, seed=1),
              (2, 8, 8, 2), (2, 8, 8, 2), params=0),
    LayerCase(layers.MaxNumBoundingBoxes, dict(max_number=4), (2, 5, 5, 3), (2, 5, 5, 3),
              params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_harness(case, backend):
    run_layer_case(case)


X = np.random.default_rng(4).uniform(0, 255, (4, 16, 12, 3)).astype("float32")


def test_elastic_identity_without_scale_or_probability_and_warps_otherwise():
    np.testing.assert_array_equal(layers.RandomElasticTransform(scale=0.0, seed=1)(X).numpy(),
                                  X)
    np.testing.assert_array_equal(layers.RandomElasticTransform(factor=0.0, seed=1)(X)
                                  .numpy(), X)
    smooth = np.broadcast_to(np.linspace(0, 255, 12, dtype="float32")[None, None, :, None],
                             X.shape).copy()
    y = layers.RandomElasticTransform(factor=(1.0, 1.0), scale=(1.0, 1.0), seed=2)(smooth)
    y = y.numpy()
    assert not np.allclose(y, smooth)
    assert y.min() >= 0 and y.max() <= 255
    # a horizontal ramp stays roughly a ramp: displacements are a few pixels, smooth
    assert np.abs(y - smooth).mean() < 0.25 * 255


def test_elastic_seeds_repeat_graph_equals_eager_inference_identity():
    def make():
        return layers.RandomElasticTransform(seed=6)
    np.testing.assert_array_equal(make()(X).numpy(), make()(X).numpy())
    eager, traced = make(), make()
    np.testing.assert_allclose(lamina.jit(lambda x: traced(x))(X).numpy(), eager(X).numpy(),
                               rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(make()(X, training=False).numpy(), X)


def test_max_num_bounding_boxes_pads_and_trims_like_keras():
    # Keras 3.15.1: MaxNumBoundingBoxes(max_number=3) on one image with 2 boxes gives
    # boxes [[2, 1, 4, 3], [6, 4, 8, 6], [-1, -1, -1, -1]] (float32), labels [1, 2, -1]
    layer = layers.MaxNumBoundingBoxes(3, bounding_box_format="xyxy", name="m")
    np.testing.assert_array_equal(layer(X).numpy(), X)
    boxes = {"boxes": np.array([[2, 1, 4, 3], [6, 4, 8, 6]]), "labels": np.array([1, 2])}
    out = layer({"images": X[0], "bounding_boxes": boxes})
    np.testing.assert_array_equal(out["images"].numpy(), X[0])
    assert out["bounding_boxes"]["boxes"].dtype == "float32"
    np.testing.assert_array_equal(out["bounding_boxes"]["boxes"].numpy(),
                                  [[2, 1, 4, 3], [6, 4, 8, 6], [-1, -1, -1, -1]])
    np.testing.assert_array_equal(out["bounding_boxes"]["labels"].numpy(), [1, 2, -1])
    many = {"boxes": np.ones((2, 5, 4)), "labels": np.arange(10).reshape(2, 5)}
    out = layer({"images": X[:2], "bounding_boxes": many})
    assert tuple(out["bounding_boxes"]["boxes"].shape) == (2, 3, 4)
    np.testing.assert_array_equal(out["bounding_boxes"]["labels"].numpy(),
                                  [[0, 1, 2], [5, 6, 7]])
    assert layer.compute_output_shape({"images": (2, 5, 5, 3), "bounding_boxes": {
        "boxes": (2, 5, 4), "labels": (2, 5)}})["bounding_boxes"] == {
            "boxes": (2, 3, 4), "labels": (2, 3)}


@pytest.mark.parametrize("make, error, match", [
    (lambda: layers.RandomElasticTransform(interpolation="bicubic", name="x"),
     NotImplementedError, r"x: unknown interpolation 'bicubic'"),
    (lambda: layers.RandomElasticTransform(fill_mode="zeros", name="x"),
     NotImplementedError, r"x: unknown fill_mode 'zeros'"),
    (lambda: layers.RandomElasticTransform(scale="big", name="x"), ValueError,
     r"x: argument 'scale' must be a number or a pair of numbers; received 'big'"),
    (lambda: layers.RandomElasticTransform(factor=2.0, name="x"), ValueError,
     r"x: argument 'factor' must be"),
    (lambda: layers.MaxNumBoundingBoxes(0, name="x"), ValueError,
     r"x: argument 'max_number' must be a positive int; received 0"),
])
def test_argument_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()
