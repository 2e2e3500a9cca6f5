"""preprocess_input equals Keras's (caffe, torch, tf; both layouts; 3D and 4D; numpy
arrays in place as Keras, tensors through ops) and decode_predictions reads the class
index from the models cache folder."""
import json
import os

import numpy as np
import pytest

import lamina
from lamina.applications import densenet, preprocessing, resnet, resnet_v2, vgg16, vgg19
from lamina.applications.preprocessing import decode_predictions, preprocess_input
from lamina.applications.weights import WeightsUnavailableError

from .keras_reference import fixture

REFERENCE = fixture("preprocess.json")
CASES = [key.split("|") for key in REFERENCE if key != "input"]


def _input(fmt: str, rank: int):
    x = np.asarray(REFERENCE["input"], dtype="float32")
    x = x if rank == 4 else x[0]
    if fmt == "channels_first":
        x = np.moveaxis(x, -1, 0 if rank == 3 else 1)
    return np.ascontiguousarray(x)


@pytest.mark.parametrize("mode, fmt, rank", CASES)
def test_numpy_equals_keras(mode, fmt, rank):
    y = preprocess_input(_input(fmt, int(rank)), data_format=fmt, mode=mode)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, REFERENCE[f"{mode}|{fmt}|{rank}"], rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("mode, fmt, rank", CASES)
def test_tensor_equals_keras(mode, fmt, rank):
    y = preprocess_input(lamina.ops.convert_to_tensor(_input(fmt, int(rank))),
                         data_format=fmt, mode=mode)
    assert isinstance(y, lamina.Tensor)
    np.testing.assert_allclose(y.numpy(), REFERENCE[f"{mode}|{fmt}|{rank}"], rtol=1e-6,
                               atol=1e-5)


def test_float_arrays_are_overwritten_like_keras_and_ints_become_floatx():
    x = _input("channels_last", 4)
    y = preprocess_input(x, mode="torch")
    assert np.shares_memory(x, y)
    ints = np.full((1, 2, 2, 3), 255, dtype="uint8")
    out = preprocess_input(ints, mode="tf")
    assert out.dtype == np.float32 and np.all(out == 1.0) and np.all(ints == 255)


def test_symbolic_input_inside_a_model():
    inputs = lamina.Input((2, 2, 3))
    model = lamina.Model(inputs, vgg16.preprocess_input(inputs))
    x = _input("channels_last", 4)
    np.testing.assert_allclose(model.predict(x, verbose=0),
                               REFERENCE["caffe|channels_last|4"], rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("module, mode", [(vgg16, "caffe"), (vgg19, "caffe"),
                                          (resnet, "caffe"), (resnet_v2, "tf"),
                                          (densenet, "torch")])
def test_each_family_uses_keras_mode(module, mode):
    y = module.preprocess_input(_input("channels_last", 4))
    np.testing.assert_allclose(y, REFERENCE[f"{mode}|channels_last|4"], rtol=1e-6, atol=1e-5)


def test_bad_mode_and_data_format():
    with pytest.raises(ValueError, match=r"argument 'mode' must be one of 'caffe', 'tf' or "
                       r"'torch'; received mode='keras'"):
        preprocess_input(_input("channels_last", 4), mode="keras")
    with pytest.raises(ValueError, match=r"argument 'data_format' must be 'channels_first' "
                       r"or 'channels_last'; received data_format='nhwc'"):
        preprocess_input(_input("channels_last", 4), data_format="nhwc")


@pytest.fixture
def class_index(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    monkeypatch.setattr(preprocessing, "_CLASS_INDEX", None)
    folder = tmp_path / "models"
    folder.mkdir()
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    path = folder / "imagenet_class_index.json"
    path.write_text(json.dumps(index))
    return path


def test_decode_predictions_reads_the_local_class_index(class_index):
    preds = np.zeros((2, 1000), dtype="float32")
    preds[0, [7, 3, 999]] = [0.5, 0.3, 0.2]
    preds[1, 42] = 1.0
    decoded = vgg16.decode_predictions(preds, top=3)
    assert [(w, n) for w, n, _ in decoded[0]] == [("n00000007", "class_7"),
                                                  ("n00000003", "class_3"),
                                                  ("n00000999", "class_999")]
    assert [s for _, _, s in decoded[0]] == pytest.approx([0.5, 0.3, 0.2])
    assert decoded[1][0][:2] == ("n00000042", "class_42") and len(decoded[1]) == 3
    assert len(resnet.decode_predictions(lamina.ops.convert_to_tensor(preds))[0]) == 5


def test_decode_predictions_without_the_file_says_where_to_put_it(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    monkeypatch.setattr(preprocessing, "_CLASS_INDEX", None)
    expected = os.path.join(str(tmp_path), "models", "imagenet_class_index.json")
    with pytest.raises(WeightsUnavailableError) as info:
        decode_predictions(np.zeros((1, 1000)))
    assert expected in str(info.value)
    assert ("https://storage.googleapis.com/download.tensorflow.org/data/"
            "imagenet_class_index.json") in str(info.value)


def test_decode_predictions_refuses_a_wrong_class_index(class_index):
    class_index.write_text(json.dumps({"0": ["n0", "zero"]}))
    with pytest.raises(WeightsUnavailableError, match=r"is not ImageNet's "
                       r"imagenet_class_index.json \(ValueError: expected 1000 entries"):
        decode_predictions(np.zeros((1, 1000)))


def test_decode_predictions_needs_a_batch_of_1000_scores():
    with pytest.raises(ValueError, match=r"expected a batch of predictions of shape "
                       r"\(samples, 1000\); received an array of shape \(2, 10\)"):
        decode_predictions(np.zeros((2, 10)))
