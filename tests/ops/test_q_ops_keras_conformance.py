"""Keras behaviours its own ops tests check (issue 22): scan's argument errors carry
Keras's phrases, op outputs have ``_keras_history``, ``arange`` refuses a None stop, and
the sampling image ops keep an unknown batch size unknown (and agree with eager mode
once the graph runs)."""
import numpy as np
import pytest

import lamina as keras
from lamina import ops
from lamina.errors import ArgumentTypeError


def test_scan_errors_carry_keras_phrases():
    xs = np.array([1.0, 2.0], dtype="float32")
    with pytest.raises(ValueError, match="must be an positive integer or boolean."):
        ops.scan(lambda c, x: (c + x, c), np.float32(0), xs, unroll=-1)
    with pytest.raises(ValueError, match="to scan over and"):
        ops.scan(lambda c, x: (c, c), np.float32(0), xs=None, length=None)


def test_op_outputs_have_keras_history():
    x = keras.KerasTensor((2,), dtype="float32")
    assert not hasattr(x, "_keras_history")          # nothing made it, as in Keras
    y = ops.cast(x, "float16")
    op, node_index, tensor_index = y._keras_history
    assert op is y.node.op and op.name == "cast" and tensor_index == 0
    assert ops.saturate_cast(x, "float16")._keras_history[2] == 0
    z = keras.layers.Dense(3)(keras.Input((4,)))
    assert z._keras_history is z.history and z._keras_history[0].name.startswith("dense")


def test_arange_refuses_none():
    with pytest.raises(ArgumentTypeError, match="arange: argument 'stop' must be a number; "
                                                "received stop=None"):
        ops.arange(None)
    with pytest.raises(ValueError):                  # Keras raises ValueError
        ops.arange(None, dtype="int32")
    assert ops.arange(3).numpy().tolist() == [0, 1, 2]


@pytest.mark.parametrize("which", ["affine", "perspective"])
def test_sampling_image_ops_keep_unknown_batch(which):
    images = np.arange(2 * 5 * 6 * 2, dtype="float32").reshape(2, 5, 6, 2)
    transform = np.array([[1, 0.2, -1, 0.1, 1, 0.5, 0, 0],
                          [0.9, 0, 1, 0, 1.1, -0.5, 0, 0]], dtype="float32")
    start = np.array([[[0, 0], [5, 0], [0, 4], [5, 4]]] * 2, dtype="float32")
    end = start + np.array([[[0.5, 0], [0, 0.3], [0, 0], [-0.2, 0]]], dtype="float32")
    inp = keras.Input((5, 6, 2))
    if which == "affine":
        second = keras.Input((8,))
        out = ops.image.affine_transform(inp, second)
        arg = transform
        eager = ops.image.affine_transform(images, transform)
    else:
        second, third = keras.Input((4, 2)), keras.Input((4, 2))
        out = ops.image.perspective_transform(inp, second, third)
        arg = start
        eager = ops.image.perspective_transform(images, start, end)
    assert out.shape == (None, 5, 6, 2)
    if which == "affine":
        graph = keras.Model([inp, second], out).predict([images, arg], verbose=0)
    else:
        graph = keras.Model([inp, second, third], out).predict([images, arg, end], verbose=0)
    np.testing.assert_allclose(graph, eager.numpy(), rtol=1e-6, atol=1e-5)
    assert np.abs(eager.numpy()).sum() > 0


def test_crop_images_of_unknown_size():
    x = keras.KerasTensor((None, 10, 3))
    with pytest.raises(ValueError, match="When the height of the images is unknown"):
        ops.image.crop_images(x, 2, 3, 4, 5)
    with pytest.raises(ValueError, match="When the width of the images is unknown"):
        ops.image.crop_images(keras.KerasTensor((10, None, 3)), 2, 3, 4, 5)
    crop = dict(top_cropping=2, left_cropping=3, target_height=4, target_width=2)
    assert ops.image.crop_images(keras.KerasTensor((None, None, 3)), **crop).shape == (4, 2, 3)
    assert ops.image.crop_images(keras.KerasTensor((None, 7, 8, 3)), **crop).shape == (
        None, 4, 2, 3)
    assert ops.image.crop_images(keras.KerasTensor((3, None, None)), data_format=
                                 "channels_first", **crop).shape == (3, 4, 2)
    # the traced crop of an image of unknown height runs as eager mode does, and fails
    # when the window does not fit, as eager mode does
    image = np.arange(7 * 8 * 3, dtype="float32").reshape(7, 8, 3)
    traced = keras.jit(lambda im: ops.image.crop_images(im, **crop), batch_polymorphic=True)
    np.testing.assert_array_equal(np.asarray(traced(image)), image[2:6, 3:5])
    np.testing.assert_array_equal(ops.image.crop_images(image, **crop).numpy(),
                                  image[2:6, 3:5])
    with pytest.raises(ValueError, match="does not fit"):
        ops.image.crop_images(image[:5], **crop)
    with pytest.raises(ValueError, match="does not fit"):
        traced(image[:5])
