"""keras.utils.image_dataset_from_directory: Keras's file order (index_directory run in
Keras 3.15.1 on the same tree), labels, splits and image loading; fit takes the result."""
import os

import numpy as np
import pytest

pytest.importorskip("PIL")

import lamina
from lamina import ops
from lamina.utils import image_dataset_from_directory, load_img, save_img

# (class folder, number of images); a_dogs also has nested/deep.png and b_cats a .txt
TREE = (("b_cats", 3), ("a_dogs", 4), ("c_owls", 2))
ALPHANUMERIC = ["a_dogs/img0.png", "a_dogs/img1.png", "a_dogs/img2.png", "a_dogs/img3.png",
                "a_dogs/nested/deep.png", "b_cats/img0.png", "b_cats/img1.png",
                "b_cats/img2.png", "c_owls/img0.png", "c_owls/img1.png"]
# keras.src.utils.dataset_utils.index_directory(..., shuffle=True, seed=7)
KERAS_SEED_7 = ["c_owls/img0.png", "b_cats/img0.png", "a_dogs/img0.png", "a_dogs/img2.png",
                "a_dogs/img1.png", "c_owls/img1.png", "b_cats/img2.png", "a_dogs/img3.png",
                "b_cats/img1.png", "a_dogs/nested/deep.png"]
KERAS_SEED_7_LABELS = [2, 1, 0, 0, 0, 2, 1, 0, 1, 0]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("images")
    rng = np.random.RandomState(0)
    for folder, count in TREE:
        os.makedirs(root / folder)
        for i in range(count):
            save_img(str(root / folder / f"img{i}.png"),
                     rng.randint(0, 256, size=(6 + i, 9, 3)).astype("uint8"), scale=False)
    os.makedirs(root / "a_dogs" / "nested")
    save_img(str(root / "a_dogs" / "nested" / "deep.png"),
             rng.randint(0, 256, size=(5, 5, 3)).astype("uint8"), scale=False)
    (root / "b_cats" / "notes.txt").write_text("not an image")
    os.makedirs(root / ".hidden")
    return str(root)


def relative(root, paths):
    return [os.path.relpath(p, root).replace(os.sep, "/") for p in paths]


def test_unshuffled_order_labels_and_class_names(tree, capsys):
    ds = image_dataset_from_directory(tree, image_size=(4, 5), batch_size=4, shuffle=False)
    assert "Found 10 files belonging to 3 classes." in capsys.readouterr().out
    assert ds.class_names == ["a_dogs", "b_cats", "c_owls"]
    assert relative(tree, ds.file_paths) == ALPHANUMERIC
    batches = list(ds)
    assert len(ds) == 3 and [b[0].shape for b in batches] == [(4, 4, 5, 3)] * 2 + [(2, 4, 5, 3)]
    labels = np.concatenate([y for _, y in batches])
    assert labels.dtype == np.int32
    np.testing.assert_array_equal(labels, [0, 0, 0, 0, 0, 1, 1, 1, 2, 2])


def test_images_are_resized_as_ops_image_resize(tree):
    for kwargs in ({}, {"crop_to_aspect_ratio": True}, {"pad_to_aspect_ratio": True},
                   {"interpolation": "nearest"}):
        ds = image_dataset_from_directory(tree, image_size=(4, 5), batch_size=2,
                                          shuffle=False, verbose=False, **kwargs)
        x, _ = ds[2]                                  # a_dogs/nested/deep.png is x[0]
        source = np.asarray(load_img(ds.file_paths[4]), dtype="float32")
        expected = ops.convert_to_numpy(ops.image.resize(source, (4, 5), **kwargs))
        assert x.dtype == np.float32
        np.testing.assert_allclose(x[0], expected, rtol=1e-6, atol=1e-4)
    # a 6x9 image cropped to 4:5 keeps its middle 6x7 columns 1..7
    ds = image_dataset_from_directory(tree, image_size=(6, 7), batch_size=1, shuffle=False,
                                      crop_to_aspect_ratio=True, verbose=False)
    source = np.asarray(load_img(ds.file_paths[0]), dtype="float32")
    np.testing.assert_allclose(ds[0][0][0], source[:, 1:8], atol=1e-4)


def test_shuffle_with_seed_follows_keras_file_order(tree):
    ds = image_dataset_from_directory(tree, image_size=(3, 3), batch_size=None, seed=7,
                                      verbose=False)
    assert relative(tree, ds.file_paths) == KERAS_SEED_7
    # every epoch visits each file once, in a new order drawn from the seed
    first = [int(y) for _, y in ds]
    second = [int(y) for _, y in ds]
    assert sorted(first) == sorted(second) == sorted(KERAS_SEED_7_LABELS)
    again = image_dataset_from_directory(tree, image_size=(3, 3), batch_size=None, seed=7,
                                         verbose=False)
    assert [int(y) for _, y in again] == first


def test_validation_split_subsets_as_keras(tree, capsys):
    train = image_dataset_from_directory(tree, image_size=(3, 3), validation_split=0.3,
                                         subset="training", seed=7)
    assert "Using 7 files for training." in capsys.readouterr().out
    val = image_dataset_from_directory(tree, image_size=(3, 3), validation_split=0.3,
                                       subset="validation", seed=7, verbose=False)
    assert relative(tree, train.file_paths) == KERAS_SEED_7[:7]
    assert relative(tree, val.file_paths) == KERAS_SEED_7[7:]
    both = image_dataset_from_directory(tree, image_size=(3, 3), validation_split=0.3,
                                        subset="both", seed=7, verbose=False)
    assert isinstance(both, list) and len(both) == 2
    assert both[0].file_paths == train.file_paths and both[1].file_paths == val.file_paths
    # the validation half is not reshuffled
    assert [int(y) for _, y in both[1].batch(None)] == KERAS_SEED_7_LABELS[7:]


def test_label_modes_and_class_names(tree):
    ds = image_dataset_from_directory(tree, image_size=(3, 3), label_mode="categorical",
                                      shuffle=False, verbose=False)
    y = ds[0][1]
    assert y.dtype == np.float32 and y.shape == (10, 3)
    np.testing.assert_array_equal(y.argmax(1), [0, 0, 0, 0, 0, 1, 1, 1, 2, 2])
    ds = image_dataset_from_directory(tree, image_size=(3, 3), label_mode="binary",
                                      class_names=["c_owls", "b_cats"], shuffle=False,
                                      verbose=False)
    assert ds.class_names == ["c_owls", "b_cats"]
    np.testing.assert_array_equal(ds[0][1], [[0], [0], [1], [1], [1]])
    ds = image_dataset_from_directory(tree, labels=None, image_size=(3, 3), shuffle=False,
                                      verbose=False)
    x = ds[0]
    assert isinstance(x, np.ndarray) and x.shape == (10, 3, 3, 3) and ds.class_names is None
    labels = [5, 5, 7, 5, 7, 5, 5, 7, 5, 7]       # one per file, in alphanumeric order
    ds = image_dataset_from_directory(tree, labels=labels, image_size=(3, 3),
                                      shuffle=False, verbose=False)
    assert ds.class_names == ["5", "7"]
    np.testing.assert_array_equal(ds[0][1], labels)


def test_color_modes_and_channels_first(tree):
    ds = image_dataset_from_directory(tree, image_size=(3, 4), color_mode="grayscale",
                                      data_format="channels_first", shuffle=False,
                                      verbose=False, batch_size=2)
    assert ds[0][0].shape == (2, 1, 3, 4)
    ds = image_dataset_from_directory(tree, image_size=3, color_mode="rgba", shuffle=False,
                                      verbose=False, batch_size=2)
    assert ds[0][0].shape == (2, 3, 3, 4)
    np.testing.assert_allclose(ds[0][0][..., 3], 255.0)


def test_follow_links(tree, tmp_path):
    root = tmp_path / "linked"
    os.makedirs(root / "only")
    try:
        os.symlink(os.path.join(tree, "c_owls"), root / "only" / "owls")
    except (OSError, NotImplementedError):
        pytest.skip("symbolic links are not available here")
    assert make_paths(root, follow_links=False) == []
    assert make_paths(root, follow_links=True) == ["only/owls/img0.png", "only/owls/img1.png"]


def make_paths(root, **kwargs):
    try:
        ds = image_dataset_from_directory(str(root), shuffle=False, verbose=False, **kwargs)
    except ValueError:                                   # "no images found"
        return []
    return relative(str(root), ds.file_paths)


def test_fit_on_an_image_dataset(tree):
    lamina.utils.set_random_seed(0)
    train, val = image_dataset_from_directory(tree, image_size=(8, 8), batch_size=4,
                                              validation_split=0.2, subset="both", seed=3,
                                              verbose=False)
    model = lamina.Sequential([lamina.Input((8, 8, 3)), lamina.layers.Rescaling(1 / 255),
                               lamina.layers.Flatten(), lamina.layers.Dense(3)])
    model.compile("adam", lamina.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(train, validation_data=val, epochs=3, verbose=0)
    assert len(history.history["loss"]) == 3 and "val_accuracy" in history.history
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert model.predict(val, verbose=0).shape == (2, 3)
    assert np.isfinite(model.evaluate(val, verbose=0)[0])


def test_errors(tree):
    make = image_dataset_from_directory
    cases = [
        (dict(labels="folders"), "argument 'labels' must be 'inferred', None or a list"),
        (dict(labels=[0] * 10, class_names=["a"]), "'class_names' can only be passed with"),
        (dict(label_mode="sparse"), "argument 'label_mode' must be 'int', 'categorical'"),
        (dict(color_mode="bgr"), "argument 'color_mode' must be one of"),
        (dict(image_size=(3, 3, 3)), "argument 'image_size' must be a tuple of 2 integers"),
        (dict(interpolation="area"), "TensorFlow resize method Lamina does not have"),
        (dict(crop_to_aspect_ratio=True, pad_to_aspect_ratio=True), "only one of"),
        (dict(format="torch"), "argument 'format' must be 'tf' or 'grain'"),
        (dict(validation_split=1.5, subset="training", seed=1), "between 0 and 1"),
        (dict(validation_split=0.2), "if 'subset' is set, 'validation_split' must be set"),
        (dict(validation_split=0.2, subset="test", seed=1), "'subset' must be 'training'"),
        (dict(validation_split=0.2, subset="training"), "pass a 'seed'"),
        (dict(class_names=["a_dogs", "zebras"]), "'class_names' must name sub-folders"),
        (dict(labels=[0, 1]), "'labels' must have one label per file; received 2 labels "
                              "for 10 files"),
        (dict(label_mode="binary"), "label_mode='binary' needs exactly 2 classes"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            make(tree, verbose=False, **kwargs)
    with pytest.raises(ValueError, match="'directory' must be an existing folder"):
        make(os.path.join(tree, "missing"))
    with pytest.raises(ValueError, match="no images found in directory"):
        make(os.path.join(tree, "a_dogs", "nested"), verbose=False)
    with pytest.raises(ValueError, match="'labels' can only be passed|class_names"):
        make(tree, labels=None, class_names=["a_dogs"], verbose=False)
    with pytest.raises(ValueError, match=r"label_mode='categorical' needs labels in \[0, 2\) "
                                         r"for 2 classes; received labels from 5 to 7"):
        make(tree, labels=[5, 7] * 5, label_mode="categorical", verbose=False)
    with pytest.warns(UserWarning, match="argument 'format'"):
        make(tree, format="grain", verbose=False)
    ds = make(tree, image_size=(3, 3), batch_size=4, shuffle=False, verbose=False)
    with pytest.raises(IndexError, match="SampleDataset: batch index 3 out of range for 3"):
        ds[3]
