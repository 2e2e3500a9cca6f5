"""MixUp and CutMix: harness cases, mixing properties, labels mixed with the images'
weights, seeds, graph draws == eager draws, single images, argument errors."""
import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.MixUp, dict(alpha=0.4, seed=1), (3, 4, 5, 3), (3, 4, 5, 3), params=0),
    LayerCase(layers.CutMix, dict(factor=0.5, seed=1), (3, 4, 5, 3), (3, 4, 5, 3), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_harness(case, backend):
    run_layer_case(case)


rng = np.random.default_rng(0)
X = rng.uniform(0, 255, (8, 6, 7, 3)).astype("float32")
Y = np.eye(8, dtype="float32")


def _explain_mixup(x, y, out):
    """Recover (weight, partner) per example from the mixed labels and check the images."""
    for i in range(len(x)):
        lab = out["labels"].numpy()[i]
        assert np.isclose(lab.sum(), 1.0, atol=1e-5)
        partner = [j for j in np.flatnonzero(lab > 1e-6) if j != i]
        w = lab[i] if partner else 1.0
        j = partner[0] if partner else i
        if j != i:
            w = lab[i]
        want = w * x[i] + (1 - w) * x[j]
        np.testing.assert_allclose(out["images"].numpy()[i], want, rtol=1e-4, atol=1e-2)


def test_mixup_mixes_images_and_labels_with_one_weight():
    out = layers.MixUp(alpha=0.5, seed=3)({"images": X, "labels": Y})
    _explain_mixup(X, Y, out)
    assert not np.allclose(out["images"].numpy(), X)


def test_cutmix_pastes_a_box_and_weights_labels_by_its_area():
    out = layers.CutMix(seed=2)({"images": X, "labels": Y})
    images, labels = out["images"].numpy(), out["labels"].numpy()
    np.testing.assert_allclose(labels.sum(-1), 1.0, atol=1e-5)
    for i in range(8):
        changed = ~np.all(np.isclose(images[i], X[i]), axis=-1)
        partners = [j for j in np.flatnonzero(labels[i] > 1e-6) if j != i]
        if not changed.any():
            continue
        rows, cols = np.flatnonzero(changed.any(1)), np.flatnonzero(changed.any(0))
        assert changed[rows.min():rows.max() + 1, cols.min():cols.max() + 1].all()  # a box
        assert len(partners) == 1
        j = partners[0]
        np.testing.assert_allclose(images[i][changed], X[j][changed])
        assert labels[i, j] >= changed.sum() / 42 - 0.35      # area share (box edges are fractional)


@pytest.mark.parametrize("make", [lambda: layers.MixUp(seed=5), lambda: layers.CutMix(seed=5)])
def test_seeds_repeat_graph_equals_eager_and_inference_is_identity(make):
    np.testing.assert_array_equal(make()(X).numpy(), make()(X).numpy())
    eager, traced = make(), make()
    np.testing.assert_allclose(lamina.jit(lambda x: traced(x))(X).numpy(), eager(X).numpy(),
                               rtol=1e-6, atol=1e-3)
    np.testing.assert_array_equal(make()(X, training=False).numpy(), X)
    out = make()({"images": X, "labels": Y}, training=False)
    np.testing.assert_array_equal(out["labels"].numpy(), Y)


def test_cutmix_leaves_a_single_image():
    np.testing.assert_array_equal(layers.CutMix(seed=1)(X[0]).numpy(), X[0])


def test_errors():
    with pytest.raises(ValueError, match=r"m: argument 'alpha' must be a positive number; "
                       r"received 0"):
        layers.MixUp(alpha=0, name="m")
    with pytest.raises(ValueError, match=r"c: argument 'factor' must be a number or a pair"):
        layers.CutMix(factor=2.0, name="c")
    with pytest.raises(NotImplementedError, match="c2: dict inputs with key "
                       "'segmentation_masks' are not supported by CutMix"):
        layers.CutMix(name="c2")({"images": X, "segmentation_masks": X})
    with pytest.raises(ValueError, match="m3: you passed an input with a 'bounding_boxes' "
                       "key, but you didn't specify a bounding box format"):
        layers.MixUp(name="m3")({"images": X, "bounding_boxes": {
            "boxes": np.zeros((len(X), 1, 4)), "labels": np.zeros((len(X), 1))}})
