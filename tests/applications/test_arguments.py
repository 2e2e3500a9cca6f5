"""Keras's arguments of the applications: include_top, weights (None, a file, "imagenet"
from the models cache folder), input_tensor, input_shape, pooling, classes,
classifier_activation, and their errors."""
import os

import numpy as np
import pytest

import lamina
from lamina import applications
from lamina.applications import DenseNet121, ResNet50, ResNet50V2, VGG16
from lamina.applications.weights import WeightsUnavailableError, models_dir
from lamina.saving import WeightMismatchError

from .keras_reference import FIXTURES


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    return tmp_path


def test_models_dir_follows_lamina_home(home):
    assert models_dir() == os.path.join(str(home), "models")


def test_imagenet_without_the_file_says_what_to_download_and_where(home):
    with pytest.raises(WeightsUnavailableError) as info:
        ResNet50(include_top=False, input_shape=(32, 32, 3))
    message = str(info.value)
    assert ("https://storage.googleapis.com/tensorflow/keras-applications/resnet/"
            "resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5") in message
    assert os.path.join(str(home), "models",
                        "resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5") in message
    with pytest.raises(WeightsUnavailableError, match=r"keras-applications/vgg16/"
                       r"vgg16_weights_tf_dim_ordering_tf_kernels\.h5"):
        VGG16()


def test_imagenet_file_in_the_cache_folder_loads_by_layer_name(home):
    source = DenseNet121(weights=None, include_top=False, input_shape=(32, 32, 3))
    os.makedirs(home / "models")
    # Keras's ImageNet files are legacy HDF5 files; a whole-model .h5 has the same groups.
    source.save(str(home / "models" / "densenet121_weights_tf_dim_ordering_tf_kernels_notop.h5"))
    x = np.random.default_rng(0).uniform(0, 255, (1, 32, 32, 3)).astype("float32")
    model = DenseNet121(weights="imagenet", include_top=False, input_shape=(32, 32, 3))
    np.testing.assert_allclose(model.predict(x, verbose=0), source.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)


def test_weights_file_path_keras3_format(tmp_path):
    source = ResNet50V2(weights=None, include_top=False, input_shape=(32, 32, 3),
                        pooling="max")
    path = str(tmp_path / "r.weights.h5")
    source.save_weights(path)
    model = ResNet50V2(weights=path, include_top=False, input_shape=(32, 32, 3),
                       pooling="max")
    x = np.random.default_rng(1).uniform(-1, 1, (2, 32, 32, 3)).astype("float32")
    np.testing.assert_array_equal(model.predict(x, verbose=0), source.predict(x, verbose=0))


def test_legacy_file_of_another_architecture_is_refused_naming_the_layers():
    with pytest.raises(WeightMismatchError, match=r"no weights for the layers "
                       r"\['conv1_conv', 'conv1_bn'.*include_top must match"):
        DenseNet121(weights=os.path.join(FIXTURES, "tiny.h5"), include_top=False,
                    input_shape=(32, 32, 3))


@pytest.mark.parametrize("weights", ["imagenett", "/no/such/file.h5", 3])
def test_bad_weights_argument(weights):
    with pytest.raises(ValueError, match=r"VGG16: argument 'weights' must be None .*"
                       r"received weights="):
        VGG16(weights=weights)


def test_imagenet_with_a_top_needs_1000_classes():
    with pytest.raises(ValueError, match=r"ResNet50: with weights='imagenet' and "
                       r"include_top=True, argument 'classes' must be 1000; received "
                       r"classes=10"):
        ResNet50(classes=10)


def test_imagenet_with_a_top_needs_the_default_input_shape(home):
    with pytest.raises(ValueError, match=r"argument 'input_shape' must be \(224, 224, 3\); "
                       r"received input_shape=\(64, 64, 3\)"):
        ResNet50(input_shape=(64, 64, 3))


@pytest.mark.parametrize("shape, message", [
    ((16, 16, 3), r"ResNet50: the input must be at least 32x32; received "
                  r"input_shape=\(16, 16, 3\)"),
    ((32, 32), r"argument 'input_shape' must be a tuple of three integers"),
    ((None, None, 3), r"with include_top=True, argument 'input_shape' must be static")])
def test_input_shape_errors(shape, message):
    with pytest.raises(ValueError, match=message):
        ResNet50(weights=None, input_shape=shape, include_top=shape != (32, 32))


def test_imagenet_needs_three_channels(home):
    with pytest.raises(ValueError, match=r"with weights='imagenet' the input must have 3 "
                       r"channels; received input_shape=\(32, 32, 1\)"):
        ResNet50(include_top=False, input_shape=(32, 32, 1))


def test_unusual_channel_count_warns():
    with pytest.warns(UserWarning, match=r"usually expects 1 or 3 input channels; "
                      r"input_shape=\(32, 32, 5\) has 5"):
        model = VGG16(weights=None, include_top=False, input_shape=(32, 32, 5))
    assert model.get_layer("block1_conv1").kernel.shape == (3, 3, 5, 64)


def test_pretrained_top_takes_only_softmax_or_none(home):
    with pytest.raises(ValueError, match=r"ResNet50: with pretrained weights, argument "
                       r"'classifier_activation' must be None or 'softmax'; received "
                       r"classifier_activation='relu'"):
        ResNet50(classifier_activation="relu")


def test_headless_default_input_is_any_size():
    model = ResNet50(weights=None, include_top=False)
    assert tuple(model.inputs[0].shape) == (None, None, None, 3)
    assert tuple(model.outputs[0].shape) == (None, None, None, 2048)


@pytest.mark.parametrize("pooling, shape, last", [
    (None, (None, 1, 1, 1024), "relu"), ("avg", (None, 1024), "avg_pool"),
    ("max", (None, 1024), "max_pool")])
def test_pooling(pooling, shape, last):
    model = DenseNet121(weights=None, include_top=False, input_shape=(32, 32, 3),
                        pooling=pooling)
    assert tuple(model.outputs[0].shape) == shape
    assert model.layers[-1].name == last


def test_vgg_pooling_layers_are_keras_unnamed_ones():
    model = VGG16(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="max")
    assert type(model.layers[-1]).__name__ == "GlobalMaxPooling2D"
    assert model.layers[-2].name == "block5_pool"


def test_classes_classifier_activation_and_a_forward_pass():
    model = ResNet50(weights=None, input_shape=(32, 32, 3), classes=7,
                     classifier_activation=None, name="small")
    assert model.name == "small"
    top = model.get_layer("predictions")
    assert top.units == 7 and top.activation is lamina.activations.get(None)
    x = np.random.default_rng(2).uniform(0, 255, (2, 32, 32, 3)).astype("float32")
    logits = model.predict(x, verbose=0)
    assert logits.shape == (2, 7) and not np.allclose(logits.sum(axis=1), 1.0)
    soft = ResNet50(weights=None, input_shape=(32, 32, 3), classes=7)
    np.testing.assert_allclose(soft.predict(x, verbose=0).sum(axis=1), 1.0, rtol=1e-5)


def test_input_tensor_is_used():
    inputs = lamina.Input((32, 32, 3), name="image")
    features = lamina.layers.Rescaling(1.0 / 255)(inputs)
    model = VGG16(weights=None, include_top=False, input_tensor=features, pooling="avg")
    assert model.inputs[0] is inputs
    assert type(model.layers[1]).__name__ == "Rescaling"
    assert tuple(model.outputs[0].shape) == (None, 512)


def test_submodules_export_keras_names():
    for module, names in [(applications.vgg16, ["VGG16"]), (applications.vgg19, ["VGG19"]),
                          (applications.resnet, ["ResNet50", "ResNet101", "ResNet152"]),
                          (applications.resnet50, ["ResNet50"]),
                          (applications.resnet_v2, ["ResNet50V2", "ResNet101V2",
                                                    "ResNet152V2"]),
                          (applications.densenet, ["DenseNet121", "DenseNet169",
                                                   "DenseNet201"])]:
        for name in names + ["preprocess_input", "decode_predictions"]:
            assert callable(getattr(module, name)), (module.__name__, name)
    assert lamina.applications.VGG16 is applications.vgg16.VGG16
