"""``load_weights`` from legacy .h5 files: in order (Keras's default) or by layer name for
transfer learning, with ``skip_mismatch`` and a report of what was loaded and why not."""
import shutil

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.saving import WeightMismatchError, load_weights

from .legacy_files import keras_file, reference


def vgg(head=5, name="predictions", fc=16):
    """The architecture of the vgg_bn fixture, written in Lamina."""
    return lamina.Sequential([
        lamina.Input((12, 12, 3)),
        layers.Conv2D(8, 3, padding="same", name="block1_conv1"),
        layers.BatchNormalization(name="block1_bn1"), layers.Activation("relu"),
        layers.Conv2D(8, 3, padding="same", use_bias=False, name="block1_conv2"),
        layers.BatchNormalization(name="block1_bn2", center=False), layers.ReLU(),
        layers.MaxPooling2D(name="block1_pool"),
        layers.Conv2D(12, 3, padding="same", activation="relu", name="block2_conv1"),
        layers.BatchNormalization(name="block2_bn1", momentum=0.9),
        layers.AveragePooling2D(2, name="block2_pool"), layers.Flatten(),
        layers.Dense(fc, activation="relu", name="fc1"), layers.Dropout(0.3),
        layers.Dense(head, activation="softmax", name=name)])


def file_array(path, layer, weight):
    with h5py.File(path, "r") as f:
        group = f["model_weights"] if "model_weights" in f else f
        return group[layer][weight][()]


@pytest.mark.parametrize("name", ["vgg_bn_k2_weights.h5", "vgg_bn_k2.h5", "vgg_bn_k3.h5"])
def test_topological_loading_predicts_what_keras_predicted(name):
    path = keras_file("vgg_bn_k2").with_name(name)
    model = vgg()
    report = load_weights(model, path)
    ref = reference(keras_file(name.replace("_weights.h5", ".h5")[:-3]))
    np.testing.assert_allclose(model.predict(ref["x0"], verbose=0), ref["pred"], atol=1e-5)
    assert len(report.matched) == 8 and not report.skipped and not report.unused
    assert report.matched[1] == ("block1_bn1", "block1_bn1")


def test_by_name_transfer_reports_what_it_did():
    path = keras_file("vgg_bn_k2").with_name("vgg_bn_k2_weights.h5")
    model = vgg(head=7)                                     # a new head: 7 classes
    model.layers[-1].name = "predictions"
    head_before = model.layers[-1].kernel.numpy().copy()
    with pytest.warns(UserWarning, match=r"skipped predictions: layer 'predictions', weight "
                                         r"'predictions/kernel': expected shape \(16, 7\), "
                                         r"found \(16, 5\)"):
        report = load_weights(model, path, by_name=True, skip_mismatch=True)
    assert [mine for mine, _ in report.matched] == [
        "block1_conv1", "block1_bn1", "block1_conv2", "block1_bn2", "block2_conv1",
        "block2_bn1", "fc1"]
    assert [mine for mine, _ in report.skipped] == ["predictions"]
    np.testing.assert_array_equal(model.get_layer("block2_bn1").moving_variance.numpy(),
                                  file_array(path, "block2_bn1",
                                             "block2_bn1/moving_variance:0"))
    np.testing.assert_array_equal(model.layers[-1].kernel.numpy(), head_before)
    assert "skipped predictions" in str(report) and "7 layer(s) loaded" in str(report)


def test_by_name_reports_layers_missing_on_either_side():
    path = keras_file("vgg_bn_k2")
    model = lamina.Sequential([lamina.Input((12, 12, 3)),
                               layers.Conv2D(8, 3, padding="same", name="block1_conv1"),
                               layers.Flatten(), layers.Dense(2, name="new_head")])
    with pytest.warns(UserWarning, match=r"skipped new_head: no layer of that name"):
        report = load_weights(model, path, by_name=True)
    assert report.matched == [("block1_conv1", "block1_conv1")]
    assert "fc1" in report.unused and "predictions" in report.unused
    np.testing.assert_array_equal(model.layers[0].bias.numpy(),
                                  file_array(path, "block1_conv1", "block1_conv1/bias:0"))


def test_mismatches_raise_and_change_nothing(tmp_path):
    path = keras_file("vgg_bn_k2")
    model = vgg(fc=10)
    before = [w.numpy().copy() for w in model.weights]
    with pytest.raises(WeightMismatchError, match=r"vgg_bn_k2\.h5'.*layer 'fc1', weight "
                                                  r"'fc1/kernel': expected shape \(108, 10\), "
                                                  r"found \(108, 16\).*skip_mismatch=True"):
        load_weights(model, path)
    with pytest.raises(WeightMismatchError, match=r"layer 'fc1', weight 'fc1/kernel'"):
        load_weights(model, path, by_name=True)
    for weight, array in zip(model.weights, before):        # all or nothing
        np.testing.assert_array_equal(weight.numpy(), array)
    with pytest.warns(UserWarning, match=r"skipped fc1"):
        report = load_weights(model, path, skip_mismatch=True)
    assert len(report.matched) == 6          # fc1 and the head after it no longer fit
    assert [mine for mine, _ in report.skipped] == ["fc1", "predictions"]


def test_layer_count_mismatch_names_both_sides():
    model = lamina.Sequential([lamina.Input((12, 12, 3)), layers.Flatten(),
                               layers.Dense(5)])
    with pytest.raises(WeightMismatchError, match=r"layer count mismatch: the file holds "
                                                  r"weights for 8 layers \['block1_conv1'.*"
                                                  r"has 1 layers with weights.*by_name=True"):
        load_weights(model, keras_file("vgg_bn_k3"))


def test_weights_are_paired_by_name_within_a_layer(tmp_path):
    """A file listing a layer's weights in another order still loads each where it goes."""
    path = tmp_path / "swapped.h5"
    shutil.copy(keras_file("dense_bn_k2"), path)
    with h5py.File(path, "r+") as f:
        group = f["model_weights/batch_normalization"]
        names = list(group.attrs["weight_names"])
        group.attrs["weight_names"] = names[::-1]
    model = lamina.models.load_model(path)
    ref = reference(keras_file("dense_bn_k2"))
    np.testing.assert_allclose(model.predict(ref["x0"], verbose=0), ref["pred"], atol=1e-5)


def test_argument_errors(tmp_path):
    model = vgg()
    with pytest.raises(TypeError, match=r"load_weights: argument 'by_name' must be True or "
                                        r"False; received 'yes'"):
        load_weights(model, keras_file("vgg_bn_k2"), by_name="yes")
    with pytest.raises(TypeError, match=r"'objects_to_skip' is not supported for legacy"):
        load_weights(model, keras_file("vgg_bn_k2"), objects_to_skip=[model.layers[0]])
