"""keras.utils.timeseries_dataset_from_array and split_dataset with Keras's semantics."""
import numpy as np
import pytest

import lamina
from lamina.preprocessing import timeseries_dataset_from_array as preprocessing_timeseries
from lamina.utils import SampleDataset, split_dataset, timeseries_dataset_from_array


def test_windows_and_targets_follow_keras_docstring_example():
    # Keras's docstring: data[i : i + 10*2 : 2] windows, targets[i] is the window's first
    data = np.arange(100)
    ds = timeseries_dataset_from_array(data, data * 10, sequence_length=10, sampling_rate=2,
                                       sequence_stride=3, batch_size=4, start_index=5,
                                       end_index=90)
    starts = np.arange(0, 90 - 5 - 9 * 2, 3)                 # 23 windows
    x = np.concatenate([b[0] for b in ds])
    y = np.concatenate([b[1] for b in ds])
    assert len(ds) == 6 and x.shape == (23, 10)
    np.testing.assert_array_equal(x[:, 0], 5 + starts)
    np.testing.assert_array_equal(x[1], np.arange(8, 28, 2))
    np.testing.assert_array_equal(y, (5 + starts) * 10)
    assert preprocessing_timeseries is timeseries_dataset_from_array


def test_targets_limit_the_windows_and_none_gives_x_only():
    data = np.arange(20, dtype="float32").reshape(10, 2)
    ds = timeseries_dataset_from_array(data, np.arange(4), sequence_length=3)
    x, y = ds[0]
    assert x.shape == (4, 3, 2) and list(y) == [0, 1, 2, 3]
    only_x = timeseries_dataset_from_array(data, None, sequence_length=3, batch_size=100)
    assert only_x[0].shape == (8, 3, 2)


def test_shuffle_visits_every_window_once_per_epoch():
    data = np.arange(30)
    ds = timeseries_dataset_from_array(data, data, sequence_length=4, batch_size=5,
                                       shuffle=True, seed=3)
    epoch1 = np.concatenate([y for _, y in ds])
    epoch2 = np.concatenate([y for _, y in ds])
    assert sorted(epoch1) == sorted(epoch2) == list(range(27))
    assert list(epoch1) != list(range(27)) and list(epoch1) != list(epoch2)
    again = timeseries_dataset_from_array(data, data, sequence_length=4, batch_size=5,
                                          shuffle=True, seed=3)
    np.testing.assert_array_equal(np.concatenate([y for _, y in again]), epoch1)
    x, y = ds[0]
    np.testing.assert_array_equal(x[:, 0], y)             # windows stay with their targets


def test_timeseries_errors():
    data = np.arange(10)
    cases = [(dict(start_index=-1), "'start_index' must be 0 or greater"),
             (dict(start_index=10), "'start_index' must be lower than the length"),
             (dict(start_index=5, end_index=4), "'end_index' must be higher than start"),
             (dict(end_index=10), "'end_index' must be lower than the length"),
             (dict(end_index=-1), "'end_index' must be higher than 0"),
             (dict(sampling_rate=0), "'sampling_rate' must be higher than 0"),
             (dict(sampling_rate=10), "'sampling_rate' must be lower than the length"),
             (dict(sequence_stride=0), "'sequence_stride' must be higher than 0"),
             (dict(sequence_stride=10), "'sequence_stride' must be lower than the length"),
             (dict(format="np"), "argument 'format' must be 'tf' or 'grain'")]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            timeseries_dataset_from_array(data, None, 3, **kwargs)


def test_fit_on_timeseries_windows():
    lamina.utils.set_random_seed(0)
    series = np.sin(np.arange(200) / 5).astype("float32")
    ds = timeseries_dataset_from_array(series[:, None], series[5:], sequence_length=5,
                                       batch_size=32)
    model = lamina.Sequential([lamina.Input((5, 1)), lamina.layers.Flatten(),
                               lamina.layers.Dense(1)])
    model.compile("adam", "mse")
    history = model.fit(ds, epochs=5, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_split_arrays_by_count_and_fraction():
    x, y = np.arange(10), np.arange(10) * 2
    left, right = split_dataset((x, y), left_size=0.8)
    assert isinstance(left, SampleDataset) and (len(left), len(right)) == (8, 2)
    assert [tuple(map(int, s)) for s in right] == [(8, 16), (9, 18)]   # unbatched samples
    bx, by = left.batch(3)[2]
    np.testing.assert_array_equal(bx, [6, 7]) and np.testing.assert_array_equal(by, [12, 14])
    left, right = split_dataset(np.arange(10), left_size=3, right_size=0.5)
    assert [int(s) for s in left] == [0, 1, 2] and [int(s) for s in right] == [5, 6, 7, 8, 9]
    left, right = split_dataset([np.arange(10)], right_size=4)
    assert len(left) == 6


def test_split_shuffles_with_pythons_random_as_keras():
    import random
    expected = list(range(10))
    random.Random(42).shuffle(expected)     # Keras: random.seed(seed); random.shuffle(list)
    left, right = split_dataset(np.arange(10), left_size=6, shuffle=True, seed=42)
    assert [int(s) for s in left] + [int(s) for s in right] == expected


def test_split_a_batched_dataset_keeps_batches():
    ds = timeseries_dataset_from_array(np.arange(12), np.arange(12), sequence_length=2,
                                       batch_size=4)
    left, right = split_dataset(ds, left_size=0.5)
    assert left.batch_size == 4 and len(left) == 2
    x, y = right[0]
    assert x.shape == (4, 2) and list(y) == [6, 7, 8, 9]     # 11 windows: 6 left, 5 right


def test_split_errors():
    x = np.arange(10)
    with pytest.raises(ValueError, match="at least one of 'left_size' and 'right_size'"):
        split_dataset(x)
    with pytest.raises(TypeError, match="'left_size' must be an int, a float or None"):
        split_dataset(x, left_size="half")
    with pytest.raises(ValueError, match="'left_size' must be a positive int smaller than 10"):
        split_dataset(x, left_size=10)
    with pytest.raises(ValueError, match="'right_size' must be a positive int smaller"):
        split_dataset(x, right_size=1.5)
    with pytest.raises(ValueError, match="left_size \\+ right_size must be at most 1"):
        split_dataset(x, left_size=0.6, right_size=0.6)
    with pytest.raises(ValueError, match="must be at most the dataset's length 10"):
        split_dataset(x, left_size=6, right_size=6)
    with pytest.raises(ValueError, match="leave the right split empty"):
        split_dataset(np.arange(3), left_size=0.9)
    with pytest.raises(ValueError, match="received an empty tuple"):
        split_dataset((), left_size=1)
    with pytest.raises(ValueError, match="expected a list of numpy arrays; received int"):
        split_dataset([1, 2], left_size=1)
    with pytest.raises(ValueError, match="the arrays must have the same length"):
        split_dataset((x, x[:5]), left_size=1)
    with pytest.raises(TypeError, match="argument 'dataset' must be a numpy array"):
        split_dataset({"x": x}, left_size=1)
    with pytest.raises(ValueError, match="received an empty dataset"):
        split_dataset(np.zeros((0,)), left_size=1)
    with pytest.warns(UserWarning, match="'preferred_backend'"):
        split_dataset(x, left_size=2, preferred_backend="torch")
