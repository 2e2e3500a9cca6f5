"""keras.utils.text_dataset_from_directory and audio_dataset_from_directory (wav files
written with the standard library's ``wave``), with Keras's documented semantics."""
import os
import wave

import numpy as np
import pytest

from lamina.preprocessing import text_dataset_from_directory as preprocessing_text
from lamina.utils import audio_dataset_from_directory, text_dataset_from_directory
from lamina.utils.audio_dataset import read_wav


@pytest.fixture(scope="module")
def texts(tmp_path_factory):
    root = tmp_path_factory.mktemp("texts")
    for folder, words in (("pos", ["good", "great", "fine"]), ("neg", ["bad", "awful"])):
        os.makedirs(root / folder)
        for i, word in enumerate(words):
            (root / folder / f"{i}.txt").write_text(f"{word} movie", encoding="utf-8")
        (root / folder / "skip.md").write_text("ignored")
    return str(root)


def test_text_dataset_reads_strings_in_keras_order(texts, capsys):
    ds = text_dataset_from_directory(texts, batch_size=2, shuffle=False)
    assert "Found 5 files belonging to 2 classes." in capsys.readouterr().out
    assert ds.class_names == ["neg", "pos"]
    x, y = ds[0]
    assert x.dtype == object and list(x) == ["bad movie", "awful movie"]
    np.testing.assert_array_equal(y, [0, 0])
    assert [list(b[0]) for b in ds][2] == ["fine movie"]
    cut = text_dataset_from_directory(texts, max_length=3, batch_size=5, shuffle=False,
                                      label_mode="binary", verbose=False)
    x, y = cut[0]
    assert list(x) == ["bad", "awf", "goo", "gre", "fin"]
    np.testing.assert_array_equal(y, [[0], [0], [1], [1], [1]])
    assert preprocessing_text is text_dataset_from_directory


def test_text_dataset_split_and_errors(texts):
    train, val = text_dataset_from_directory(texts, validation_split=0.4, subset="both",
                                             seed=5, verbose=False)
    assert len(train.file_paths) == 3 and len(val.file_paths) == 2
    assert not set(train.file_paths) & set(val.file_paths)
    # keras.src.utils.dataset_utils.index_directory(shuffle=True, seed=5) order
    assert [os.path.relpath(p, texts) for p in train.file_paths + val.file_paths] == \
        [os.path.join(*p.split("/")) for p in KERAS_TEXT_SEED_5]
    with pytest.raises(ValueError, match="no text files found in directory"):
        text_dataset_from_directory(os.path.join(texts, "pos"), verbose=False)
    with pytest.raises(ValueError, match="argument 'label_mode' must be"):
        text_dataset_from_directory(texts, label_mode="one_hot")
    with pytest.raises(ValueError, match="argument 'format' must be 'tf' or 'grain'"):
        text_dataset_from_directory(texts, format="np")
    with pytest.raises(ValueError, match="label_mode='binary' needs exactly 2 classes"):
        text_dataset_from_directory(texts, label_mode="binary", class_names=["pos"],
                                    verbose=False)


# keras.src.utils.dataset_utils.index_directory(texts, "inferred", (".txt",), seed=5)
KERAS_TEXT_SEED_5 = ["pos/2.txt", "neg/0.txt", "neg/1.txt", "pos/0.txt", "pos/1.txt"]


def write_wav(path, samples, rate=8000, width=2):
    scale = {1: 127, 2: 32767, 4: 2 ** 31 - 1}[width]
    data = np.round(np.asarray(samples) * scale).astype({1: "int16", 2: "<i2",
                                                          4: "<i4"}[width])
    if width == 1:
        data = (data + 128).astype("uint8")
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1 if data.ndim == 1 else data.shape[1])
        f.setsampwidth(width)
        f.setframerate(rate)
        f.writeframes(data.tobytes())


@pytest.fixture(scope="module")
def sounds(tmp_path_factory):
    root = tmp_path_factory.mktemp("audio")
    os.makedirs(root / "high")
    os.makedirs(root / "low")
    write_wav(root / "high" / "a.wav", [0.5, -0.5, 0.25])
    write_wav(root / "high" / "b.wav", [0.5] * 5)
    write_wav(root / "low" / "a.wav", [-1.0, 0.0])
    return str(root)


def test_read_wav_as_tensorflow_decode_wav(tmp_path):
    write_wav(tmp_path / "s.wav", [0.5, -0.5, 0.25])
    audio, rate = read_wav(str(tmp_path / "s.wav"))
    assert rate == 8000 and audio.shape == (3, 1) and audio.dtype == np.float32
    np.testing.assert_allclose(audio[:, 0], [16384 / 32768, -16384 / 32768, 8192 / 32768])
    np.testing.assert_allclose(read_wav(str(tmp_path / "s.wav"), 5)[0][:, 0],
                               [0.5, -0.5, 0.25, 0, 0], atol=1e-4)
    np.testing.assert_allclose(read_wav(str(tmp_path / "s.wav"), 1)[0], [[0.5]], atol=1e-4)
    write_wav(tmp_path / "st.wav", np.array([[0.5, -0.25], [0.0, 1.0]]))
    np.testing.assert_allclose(read_wav(str(tmp_path / "st.wav"))[0],
                               [[0.5, -0.25], [0, 1]], atol=1e-4)
    write_wav(tmp_path / "u8.wav", [0.5, -0.5], width=1)
    np.testing.assert_allclose(read_wav(str(tmp_path / "u8.wav"))[0][:, 0],
                               [0.5, -0.5], atol=0.01)
    with wave.open(str(tmp_path / "s24.wav"), "wb") as f:
        f.setnchannels(1), f.setsampwidth(3), f.setframerate(8000)
        f.writeframes(b"\0" * 6)
    with pytest.raises(ValueError, match="has 24-bit samples"):
        read_wav(str(tmp_path / "s24.wav"))


def test_audio_dataset_pads_batches_and_labels(sounds):
    ds = audio_dataset_from_directory(sounds, batch_size=3, shuffle=False, verbose=False)
    assert ds.class_names == ["high", "low"]
    x, y = ds[0]
    assert x.shape == (3, 5, 1)                  # padded to the longest clip, as padded_batch
    np.testing.assert_allclose(x[0, :, 0], [0.5, -0.5, 0.25, 0, 0], atol=1e-4)
    np.testing.assert_allclose(x[2, :, 0], [-1, 0, 0, 0, 0], atol=1e-4)
    np.testing.assert_array_equal(y, [0, 0, 1])
    fixed = audio_dataset_from_directory(sounds, batch_size=3, shuffle=False, verbose=False,
                                         output_sequence_length=2, label_mode="categorical")
    x, y = fixed[0]
    assert x.shape == (3, 2, 1) and y.shape == (3, 2)
    ragged = audio_dataset_from_directory(sounds, batch_size=3, shuffle=False, verbose=False,
                                          ragged=True)
    assert [clip.shape for clip in ragged[0][0]] == [(3, 1), (5, 1), (2, 1)]
    same_rate = audio_dataset_from_directory(sounds, sampling_rate=8000, batch_size=1,
                                             shuffle=False, verbose=False)
    assert same_rate[0][0].shape == (1, 3, 1)
    train, val = audio_dataset_from_directory(sounds, validation_split=0.34, subset="both",
                                              seed=1, verbose=False)
    assert len(train.file_paths) == 2 and len(val.file_paths) == 1


def test_audio_dataset_errors(sounds):
    with pytest.raises(ValueError, match="'ragged' and 'output_sequence_length' cannot"):
        audio_dataset_from_directory(sounds, ragged=True, output_sequence_length=3)
    with pytest.raises(ValueError, match="argument 'sampling_rate' must be an int"):
        audio_dataset_from_directory(sounds, sampling_rate=8000.0)
    with pytest.raises(ValueError, match="'sampling_rate' must be higher than 0"):
        audio_dataset_from_directory(sounds, sampling_rate=0)
    ds = audio_dataset_from_directory(sounds, sampling_rate=16000, verbose=False)
    with pytest.raises(ValueError, match="sampled at 8000 Hz, not sampling_rate=16000"):
        ds[0]
    with pytest.raises(ValueError, match="no audio files found"):
        audio_dataset_from_directory(os.path.join(sounds, "low"), verbose=False)
    with pytest.raises(ValueError, match="argument 'labels' must be 'inferred', None"):
        audio_dataset_from_directory(sounds, labels="folders")
