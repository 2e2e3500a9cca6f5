"""Writes keras_outputs.npz: Keras 3.15.1's outputs for fixed weights and inputs.

Run by hand with a Keras install (never by the tests, which only read the .npz):
``KERAS_BACKEND=jax /work/kerasenv/bin/python tests/layers/keras11/make_fixtures.py``.
Each entry ``<key>`` stores ``<key>/x`` (the input), ``<key>/w<i>`` (the weights, in
``layer.weights`` order, drawn from a fixed generator), ``<key>/y`` (Keras's output) and
``<key>/names`` (the weight paths' last parts, in order).
"""
import pathlib

import numpy as np
import keras
from keras import layers

SPECS = {
    "conv3d_transpose_valid": (lambda: layers.Conv3DTranspose(3, (2, 3, 2)), (2, 3, 4, 3, 2)),
    "conv3d_transpose_same_s2": (lambda: layers.Conv3DTranspose(
        2, 3, strides=(2, 1, 2), padding="same"), (1, 3, 3, 4, 2)),
    "conv3d_transpose_outpad": (lambda: layers.Conv3DTranspose(
        2, (3, 2, 2), strides=2, padding="valid", output_padding=1), (1, 2, 3, 2, 1)),
    "conv3d_transpose_dilated_cf": (lambda: layers.Conv3DTranspose(
        2, 2, dilation_rate=2, padding="same", data_format="channels_first"), (1, 2, 3, 3, 4)),
    "conv_lstm1d": (lambda: layers.ConvLSTM1D(2, 3, padding="same", return_sequences=True),
                    (2, 3, 5, 2)),
    "conv_lstm2d": (lambda: layers.ConvLSTM2D(3, (2, 3), strides=(1, 2)), (2, 4, 4, 5, 2)),
    "conv_lstm2d_cf_backwards": (lambda: layers.ConvLSTM2D(
        2, 2, data_format="channels_first", go_backwards=True, return_sequences=True,
        unit_forget_bias=False), (1, 3, 2, 3, 3)),
    "conv_lstm3d": (lambda: layers.ConvLSTM3D(2, 2, padding="same"), (1, 2, 2, 3, 2, 1)),
    "rms_normalization": (lambda: layers.RMSNormalization(), (2, 3, 4)),
    "rms_normalization_axes": (lambda: layers.RMSNormalization(axis=[-2, -1], epsilon=0.1),
                               (2, 3, 4)),
    "gqa": (lambda: layers.GroupQueryAttention(3, 4, 2), [(2, 3, 5), (2, 4, 5)]),
    "gqa_gate_causal": (lambda: layers.GroupQueryAttention(2, 2, 1, use_gate=True),
                        [(1, 4, 3), (1, 4, 3)]),
    "gqa_window_scores": (lambda: layers.GroupQueryAttention(2, 4, 4, sliding_window=2,
                                                             use_bias=False),
                          [(1, 5, 3), (1, 5, 3)]),
    "reversible_embedding_tied": (lambda: layers.ReversibleEmbedding(7, 3), [(2, 3)]),
    "reversible_embedding_untied": (lambda: layers.ReversibleEmbedding(
        7, 3, tie_weights=False, logit_soft_cap=2.0), [(2, 3)]),
    "stft_log": (lambda: layers.STFTSpectrogram(frame_length=16, frame_step=5), (2, 40, 1)),
    "stft_magnitude_same_expand": (lambda: layers.STFTSpectrogram(
        mode="magnitude", frame_length=10, frame_step=4, fft_length=16, padding="same",
        expand_dims=True, window="hamming", periodic=True), (1, 30, 2)),
    "stft_psd_cf": (lambda: layers.STFTSpectrogram(
        mode="psd", frame_length=8, data_format="channels_first", scaling="spectrum"),
        (2, 2, 24)),
    "stft_stft_none": (lambda: layers.STFTSpectrogram(
        mode="stft", frame_length=8, frame_step=8, window=None, scaling=None), (1, 32, 2)),
    "stft_real_cf_expand": (lambda: layers.STFTSpectrogram(
        mode="real", frame_length=6, frame_step=3, fft_length=8, expand_dims=True,
        data_format="channels_first"), (1, 2, 20)),
    "stft_imag": (lambda: layers.STFTSpectrogram(mode="imag", frame_length=4, frame_step=2),
                  (1, 10, 1)),
    "mel_default_small": (lambda: layers.MelSpectrogram(
        fft_length=64, sequence_stride=16, num_mel_bins=10, sampling_rate=8000), (2, 200)),
    "mel_no_db_hamming": (lambda: layers.MelSpectrogram(
        fft_length=32, sequence_stride=10, sequence_length=20, window="hamming",
        num_mel_bins=6, sampling_rate=4000, min_freq=100.0, max_freq=1500.0,
        power_to_db=False, mag_exp=1.0), (1, 90)),
    "mel_db_top": (lambda: layers.MelSpectrogram(
        fft_length=32, sequence_stride=8, num_mel_bins=8, top_db=20.0, ref_power=0.5,
        sampling_rate=16000), (2, 64)),
    "spectral_dense": (lambda: layers.SpectralNormalization(layers.Dense(3)), (2, 4)),
    "spectral_conv_3iter": (lambda: layers.SpectralNormalization(
        layers.Conv2D(2, 2), power_iterations=3), (1, 4, 4, 2)),
}

CALL_KWARGS = {"gqa_gate_causal": dict(use_causal_mask=True),
               "gqa_window_scores": dict(return_attention_scores=True)}


def run(key, make, shape, rng):
    layer = make()
    if isinstance(shape, list):
        x = [rng.standard_normal(s).astype("float32") for s in shape]
        kwargs = CALL_KWARGS.get(key, {})
        call = lambda: layer(*x, **kwargs)  # noqa: E731
        if key.startswith("reversible"):        # ids forward, then hidden vectors back
            x.append(rng.integers(0, 7, (2, 4)).astype("int32"))
            call = lambda: (layer(x[1]), layer(x[0], reverse=True))  # noqa: E731
    else:
        x = rng.standard_normal(shape).astype("float32")
        call = lambda: layer(x)  # noqa: E731
    call()
    weights = [rng.standard_normal(tuple(w.shape)).astype("float32") * 0.5
               for w in layer.weights]
    if key.startswith("stft"):       # the layer's own initial kernels, as the test builds them
        weights = [np.asarray(w) for w in layer.weights]
    layer.set_weights(weights)
    if key.startswith("spectral"):      # a training call: kernel and vector_u are updated
        y = layer(x, training=True)
        out = {f"{key}/after{i}": np.asarray(w) for i, w in enumerate(layer.weights)}
        out.update({f"{key}/y": np.asarray(y), f"{key}/x": x})
        out.update({f"{key}/names": np.array([w.path.split("/", 1)[-1]
                                              for w in layer.weights])})
        out.update({f"{key}/w{i}": w for i, w in enumerate(weights)})
        return out
    y = call()
    if isinstance(y, tuple):
        out = {f"{key}/y{i}": np.asarray(t) for i, t in enumerate(y)}
    else:
        out = {f"{key}/y": np.asarray(y)}
    if isinstance(x, list):
        out.update({f"{key}/x{i}": t for i, t in enumerate(x)})
    else:
        out[f"{key}/x"] = x
    out.update({
           f"{key}/names": np.array([w.path.split("/", 1)[-1] for w in layer.weights])})
    out.update({f"{key}/w{i}": w for i, w in enumerate(weights)})
    return out


OP_SPECS = {   # key: (op name, input shape, output_size, data_format)
    "op_adaptive_average_1d": ("adaptive_average_pool", (2, 7, 3), 3, "channels_last"),
    "op_adaptive_max_1d": ("adaptive_max_pool", (2, 7, 3), 3, "channels_last"),
    "op_adaptive_average_2d": ("adaptive_average_pool", (2, 5, 7, 2), (2, 3), "channels_last"),
    "op_adaptive_max_2d_cf": ("adaptive_max_pool", (2, 2, 5, 7), (3, 4), "channels_first"),
    "op_adaptive_average_3d": ("adaptive_average_pool", (1, 5, 4, 3, 2), (2, 2, 2),
                               "channels_last"),
    "op_adaptive_max_3d": ("adaptive_max_pool", (1, 5, 4, 3, 2), (3, 2, 2), "channels_last"),
}


def run_op(key, name, shape, output_size, data_format, rng):
    x = rng.standard_normal(shape).astype("float32")
    y = getattr(keras.ops, name)(x, output_size, data_format=data_format)
    return {f"{key}/x": x, f"{key}/y": np.asarray(y)}


INIT_SPECS = {   # key: (STFT arguments, shape)
    "init_stft_hann": (dict(), (8, 1, 5)),
    "init_stft_hamming_imag_spectrum_periodic": (
        dict(side="imag", window="hamming", scaling="spectrum", periodic=True), (6, 1, 4)),
    "init_stft_blackman_none": (dict(window="blackman", scaling=None), (7, 1, 3)),
    "init_stft_bartlett": (dict(window="bartlett", periodic=True), (5, 1, 3)),
    "init_stft_boxcar": (dict(window="boxcar"), (4, 1, 3)),
    "init_stft_no_window": (dict(window=None, side="imag"), (4, 1, 3)),
}


def main():
    data = {}
    for key, (kwargs, shape) in INIT_SPECS.items():
        data[f"{key}/y"] = np.asarray(keras.initializers.STFT(**kwargs)(shape))
    for i, (key, spec) in enumerate(sorted(OP_SPECS.items())):
        data.update(run_op(key, *spec, np.random.default_rng(100 + i)))
    for i, (key, (make, shape)) in enumerate(sorted(SPECS.items())):
        data.update(run(key, make, shape, np.random.default_rng(i)))
    path = pathlib.Path(__file__).with_name("keras_outputs.npz")
    np.savez_compressed(path, **data)
    print(f"wrote {len(SPECS)} cases to {path}")


if __name__ == "__main__":
    main()
