"""The arguments MobileNet, MobileNetV2, MobileNetV3 and EfficientNet share with Keras:
`weights` (None, a path, or "imagenet" looked up in $LAMINA_HOME/models and never
downloaded), `input_shape`/`input_tensor`, `pooling`, `classifier_activation`, and the
errors and warnings Keras gives for each."""
import os

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.applications import (EfficientNetB0, MobileNet, MobileNetV2, MobileNetV3Large,
                                 MobileNetV3Small)
from lamina.applications.model_setup import PretrainedWeightsUnavailableError

SMALL = dict(input_shape=(32, 32, 3), include_top=False)


@pytest.fixture
def lamina_home(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMINA_HOME", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("build, file_name, url", [
    (lambda: MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), include_top=False),
     "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96_no_top.h5",
     "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"),
    (lambda: MobileNetV2(alpha=0.5),
     "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.5_224.h5",
     "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"),
    (lambda: MobileNet(alpha=0.25, input_shape=(128, 128, 3), include_top=False),
     "mobilenet_2_5_128_tf_no_top.h5",
     "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"),
    (lambda: EfficientNetB0(include_top=False), "efficientnetb0_notop.h5",
     "https://storage.googleapis.com/keras-applications/"),
    (lambda: MobileNetV3Small(input_shape=(224, 224, 3)),
     "weights_mobilenet_v3_small_224_1.0_float.h5",
     "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/"),
    (lambda: MobileNetV3Large(minimalistic=True, include_top=False, input_shape=(224, 224, 3)),
     "weights_mobilenet_v3_large_minimalistic_224_1.0_float_no_top_v2.h5",
     "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/"),
])
def test_imagenet_without_local_file_names_file_address_and_folder(lamina_home, build,
                                                                   file_name, url):
    folder = os.path.join(str(lamina_home), "models")
    with pytest.raises(PretrainedWeightsUnavailableError) as info:
        build()
    message = str(info.value)
    assert f"'{file_name}'" in message
    assert url + file_name in message
    assert repr(os.path.join(folder, file_name)) in message
    assert isinstance(info.value, FileNotFoundError)


def test_imagenet_loads_the_file_placed_in_the_models_folder(lamina_home):
    source = MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), include_top=False, weights=None)
    os.makedirs(lamina_home / "models")
    source.save(str(lamina_home / "models" /
                    "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96_no_top.h5"))
    loaded = MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), include_top=False,
                         weights="imagenet")
    fresh = MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), include_top=False, weights=None)
    assert all(np.array_equal(a, b) for a, b in zip(source.get_weights(), loaded.get_weights()))
    assert not all(np.array_equal(a, b)
                   for a, b in zip(source.get_weights(), fresh.get_weights()))


def test_weights_path_that_does_not_exist():
    with pytest.raises(ValueError, match=r"MobileNetV2: argument 'weights' must be None .* "
                                         r"received weights='no/such/file.weights.h5'"):
        MobileNetV2(weights="no/such/file.weights.h5")


@pytest.mark.parametrize("build", [MobileNet, MobileNetV2, MobileNetV3Small, EfficientNetB0])
def test_imagenet_with_other_classes(build):
    with pytest.raises(ValueError, match=r"with weights='imagenet' and include_top=True, "
                                         r"argument 'classes' must be 1000; received "
                                         r"classes=10"):
        build(classes=10)


def test_imagenet_alpha_and_depth_multiplier_checks():
    with pytest.raises(ValueError, match=r"MobileNetV2: .* 'alpha' must be one of 0.35, "
                                         r"0.50, 0.75, 1.0, 1.3 or 1.4; received 0.6"):
        MobileNetV2(alpha=0.6)
    with pytest.raises(ValueError, match=r"MobileNet: .* 'alpha' must be one of 0.25, 0.50, "
                                         r"0.75 or 1.0; received 0.6"):
        MobileNet(alpha=0.6)
    with pytest.raises(ValueError, match=r"'depth_multiplier' must be 1; received 2"):
        MobileNet(depth_multiplier=2)
    with pytest.raises(ValueError, match=r"MobileNetV3Small: .* 'alpha' must be 0.75 or 1.0 "
                                         r"\(1.0 when minimalistic=True\); received "
                                         r"alpha=0.75, minimalistic=True"):
        MobileNetV3Small(alpha=0.75, minimalistic=True)


def test_imagenet_odd_size_warns_and_asks_for_the_224_file(lamina_home):
    with pytest.warns(UserWarning, match="loading the weights for 224x224"):
        with pytest.raises(PretrainedWeightsUnavailableError,
                           match="kernels_1.0_224_no_top.h5"):
            MobileNetV2(input_shape=(100, 100, 3), include_top=False)


@pytest.mark.parametrize("build", [MobileNet, MobileNetV2, EfficientNetB0])
def test_input_shape_checks(build):
    with pytest.raises(ValueError, match=r"the input must be at least 32x32; received "
                                         r"input_shape=\(31, 40, 3\)"):
        build(input_shape=(31, 40, 3), include_top=False, weights=None)
    with pytest.raises(ValueError, match=r"'input_shape' must be a tuple of three integers; "
                                         r"received input_shape=\(32, 32\)"):
        build(input_shape=(32, 32), include_top=False, weights=None)
    with pytest.raises(ValueError, match=r"with weights='imagenet' the input must have 3 "
                                         r"channels; received input_shape=\(64, 64, 1\)"):
        build(input_shape=(64, 64, 1), include_top=False)
    with pytest.raises(ValueError, match=r"with include_top=True and weights='imagenet', "
                                         r"argument 'input_shape' must be \(2\d\d, 2\d\d, 3\)"):
        build(input_shape=(64, 64, 3))
    with pytest.raises(ValueError, match=r"with include_top=True, argument 'input_shape' must "
                                         r"be static; received input_shape=\(None, 64, 3\)"):
        build(input_shape=(None, 64, 3), weights=None)


def test_unusual_channel_count_warns():
    with pytest.warns(UserWarning, match=r"usually expects 1 or 3 input channels; "
                                         r"input_shape=\(32, 32, 4\) has 4"):
        model = MobileNetV2(input_shape=(32, 32, 4), include_top=False, weights=None,
                            alpha=0.35)
    assert model.input_shape == (None, 32, 32, 4)


def test_v3_input_size_check():
    with pytest.raises(ValueError, match=r"MobileNetV3Large: the input must be at least "
                                         r"32x32; received input_shape=\(16, 16, 3\)"):
        MobileNetV3Large(input_shape=(16, 16, 3), weights=None)


@pytest.mark.parametrize("build", [MobileNet, MobileNetV2, MobileNetV3Small, EfficientNetB0])
def test_classifier_activation_must_be_softmax_or_none_with_pretrained_weights(build):
    with pytest.raises(ValueError, match=r"with pretrained weights, argument "
                                         r"'classifier_activation' must be None or 'softmax'; "
                                         r"received classifier_activation='relu'"):
        build(classifier_activation="relu", weights=_dummy_path())


def _dummy_path():
    # an existing file: the activation is checked before any weights are read
    return os.path.abspath(__file__)


@pytest.mark.parametrize("build, pooling, shape", [
    (MobileNet, None, (None, 1, 1, 256)), (MobileNet, "avg", (None, 256)),
    (MobileNetV2, "max", (None, 1280)), (MobileNetV3Small, "avg", (None, 576)),
    (MobileNetV3Small, None, (None, 1, 1, 576)), (EfficientNetB0, "max", (None, 1280)),
])
def test_pooling(build, pooling, shape):
    kwargs = dict(alpha=0.25) if build is MobileNet else {}
    model = build(pooling=pooling, weights=None, **SMALL, **kwargs)
    assert model.output_shape == shape


def test_classifier_activation_applies_on_top():
    model = MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, classes=7, weights=None,
                        classifier_activation="sigmoid")
    out = model.predict(np.random.default_rng(0).uniform(-1, 1, (2, 32, 32, 3)), verbose=0)
    assert out.shape == (2, 7) and (out > 0).all() and (out < 1).all()
    assert not np.allclose(out.sum(axis=1), 1.0)


def test_unbounded_input_shape_without_top():
    model = MobileNetV3Small(include_top=False, weights=None)
    assert model.input_shape == (None, None, None, 3)
    assert MobileNetV2(include_top=False, weights=None).input_shape == (None, None, None, 3)


def test_input_tensor_is_the_model_input():
    image = layers.Input((64, 64, 3), name="image")
    for build in (MobileNet, MobileNetV2, MobileNetV3Small, EfficientNetB0):
        kwargs = dict(alpha=0.25) if build is MobileNet else {}
        model = build(input_tensor=image, include_top=False, weights=None, **kwargs)
        assert model.inputs[0] is image
        assert model.output_shape[1:3] == (2, 2)


def test_input_tensor_must_be_symbolic_and_agree_with_input_shape():
    with pytest.raises(ValueError, match=r"MobileNetV2: the shape of 'input_tensor' must "
                                         r"agree with 'input_shape'"):
        MobileNetV2(input_tensor=layers.Input((64, 64, 3)), input_shape=(96, 96, 3),
                    include_top=False, weights=None)
    with pytest.raises(ValueError, match=r"MobileNetV3Small: argument 'input_tensor' must be "
                                         r"a symbolic tensor"):
        MobileNetV3Small(input_tensor=np.zeros((1, 64, 64, 3)), input_shape=(64, 64, 3),
                         weights=None)


def test_model_names_follow_keras():
    assert MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), weights=None,
                       include_top=False).name == "mobilenetv2_0.35_96"
    assert MobileNet(alpha=0.5, input_shape=(100, 100, 3), weights=None,
                     include_top=False).name == "mobilenet_0.50_100"
    assert MobileNet(weights=None, name="mine", **SMALL).name == "mine"
    assert MobileNetV3Small(weights=None, **SMALL).name == "MobileNetV3Small"
    assert EfficientNetB0(weights=None, **SMALL).name == "efficientnetb0"
