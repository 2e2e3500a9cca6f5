"""First layers, on the raw input: Embedding (half of them with LoRA) and CategoryEncoding
read integer ids, Discretization bins floats. Nothing has a gradient through them (ids;
piecewise-constant bins), so they only come first, where nothing trainable feeds them --
and never in a GAN, whose generator trains through the discriminator's first layer.

``first(r, name)`` -> (input shape, vocabulary or 0 for a float input, constructor codes).
"""
from __future__ import annotations

NAMES = ("Embedding", "CategoryEncoding", "Discretization")
BOUNDARIES = ["[0.0]", "[-0.5, 0.0, 0.5]", "[-1.0, -0.2, 0.3, 1.1]"]


def first(r, name=None):
    name = name or r.choice(NAMES)
    vocab, length = r.randint(5, 12), r.randint(3, 7)
    if name == "Embedding":
        lora = f", lora_rank={r.randint(1, 2)}" if r.random() < 0.5 else ""
        return (length,), vocab, [f"layers.Embedding({vocab}, {r.randint(2, 4)}{lora})"]
    if name == "CategoryEncoding":
        mode = r.choice(["multi_hot", "count", "one_hot"])
        shape = (1,) if mode == "one_hot" else (length,)
        return shape, vocab, [f"layers.CategoryEncoding(num_tokens={vocab}, "
                              f"output_mode={mode!r})"]
    bounds = r.choice(BOUNDARIES)
    if r.random() < 0.3:            # bin indices (int64) into an Embedding
        bins = bounds.count(",") + 2
        return (length,), 0, [f"layers.Discretization(bin_boundaries={bounds})",
                              f"layers.Embedding({bins}, {r.randint(2, 4)})"]
    mode = r.choice(["one_hot", "multi_hot", "count"])
    return (length,), 0, [f"layers.Discretization(bin_boundaries={bounds}, "
                          f"output_mode={mode!r})"]
