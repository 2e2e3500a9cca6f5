"""preprocess_input / decode_predictions of keras.applications.mobilenet, .mobilenet_v2,
.mobilenet_v3 and .efficientnet."""
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.applications import efficientnet, mobilenet, mobilenet_v2, mobilenet_v3


@pytest.mark.parametrize("module", [mobilenet, mobilenet_v2])
def test_scales_pixels_to_minus_one_one(module):
    pixels = np.array([[[0, 127, 255]]], dtype="uint8")
    out = module.preprocess_input(pixels)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_allclose(out, [[[-1.0, 127 / 127.5 - 1, 1.0]]], rtol=1e-6)


def test_float64_arrays_keep_their_dtype_and_are_not_modified():
    pixels = np.array([0.0, 51.0, 255.0])
    out = mobilenet_v2.preprocess_input(pixels)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, [-1.0, -0.6, 1.0])
    np.testing.assert_array_equal(pixels, [0.0, 51.0, 255.0])


def test_tensors_stay_tensors_eager_and_symbolic():
    out = mobilenet.preprocess_input(lamina.ops.convert_to_tensor([255.0, 0.0]))
    assert lamina.ops.is_tensor(out)
    np.testing.assert_allclose(lamina.ops.convert_to_numpy(out), [1.0, -1.0])
    image = layers.Input((4, 4, 3))
    model = lamina.Model(image, mobilenet_v2.preprocess_input(image))
    np.testing.assert_allclose(model.predict(np.full((1, 4, 4, 3), 51.0), verbose=0),
                               np.full((1, 4, 4, 3), -0.6), rtol=1e-6)


def test_data_format_is_checked():
    with pytest.raises(ValueError, match=r"preprocess_input: argument 'data_format' must be "
                                         r"None, 'channels_first' or 'channels_last'; "
                                         r"received 'nhwc'"):
        mobilenet.preprocess_input(np.zeros((1, 2, 2, 3)), data_format="nhwc")


@pytest.mark.parametrize("module", [mobilenet_v3, efficientnet])
def test_models_that_preprocess_themselves_pass_input_through(module):
    pixels = np.arange(12.0).reshape(1, 2, 2, 3)
    assert module.preprocess_input(pixels) is pixels
    assert module.preprocess_input(pixels, data_format="channels_last") is pixels


@pytest.mark.parametrize("module", [mobilenet, mobilenet_v2, mobilenet_v3, efficientnet])
def test_decode_predictions_is_the_shared_imagenet_decoder(module, tmp_path, monkeypatch):
    import json
    from lamina.applications import preprocessing as shared
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    (tmp_path / "models").mkdir()
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    (tmp_path / "models" / "imagenet_class_index.json").write_text(json.dumps(index))
    preds = np.zeros((1, 1000), dtype="float32")
    preds[0, [3, 7]] = [0.9, 0.1]
    decoded = module.decode_predictions(preds, top=2)
    assert decoded == shared.decode_predictions(preds, top=2)
    assert [(wnid, name) for wnid, name, _ in decoded[0]] == [("n00000003", "class_3"),
                                                              ("n00000007", "class_7")]
