"""The keras-io "Text classification with Transformer" example, as written there (a
TokenAndPositionEmbedding that reads ``maxlen = ops.shape(x)[-1]``, a TransformerBlock with
MultiHeadAttention, LayerNormalization and Dropout), on small random data: it trains with
fit, and graph mode gives eager's losses and weights."""
import numpy as np

import lamina as keras
from lamina import layers, ops


class TransformerBlock(layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
        super().__init__()
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.ffn = keras.Sequential([layers.Dense(ff_dim, activation="relu"),
                                     layers.Dense(embed_dim)])
        self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
        self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = layers.Dropout(rate, seed=1)
        self.dropout2 = layers.Dropout(rate, seed=2)

    def call(self, inputs, training=False):
        attn_output = self.att(inputs, inputs)
        attn_output = self.dropout1(attn_output, training=training)
        out1 = self.layernorm1(inputs + attn_output)
        ffn_output = self.ffn(out1)
        ffn_output = self.dropout2(ffn_output, training=training)
        return self.layernorm2(out1 + ffn_output)


class TokenAndPositionEmbedding(layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim):
        super().__init__()
        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x):
        maxlen = ops.shape(x)[-1]
        positions = ops.arange(start=0, stop=maxlen, step=1)
        positions = self.pos_emb(positions)
        x = self.token_emb(x)
        return x + positions


def _train(eager):
    keras.utils.set_random_seed(3)
    vocab_size, maxlen, embed_dim = 50, 12, 8
    inputs = layers.Input(shape=(maxlen,))
    x = TokenAndPositionEmbedding(maxlen, vocab_size, embed_dim)(inputs)
    x = TransformerBlock(embed_dim, 2, 16)(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.1, seed=3)(x)
    x = layers.Dense(10, activation="relu")(x)
    outputs = layers.Dense(2, activation="softmax")(x)
    model = keras.Model(inputs=inputs, outputs=outputs)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"], run_eagerly=eager)
    rng = np.random.default_rng(0)
    x_train = rng.integers(0, vocab_size, (40, maxlen))
    y_train = rng.integers(0, 2, 40)
    history = model.fit(x_train, y_train, batch_size=16, epochs=2, verbose=0,
                        validation_data=(x_train[:10], y_train[:10]))
    return history.history, [w.numpy() for w in model.weights], model.predict(x_train, verbose=0)


def test_transformer_text_classification_graph_equals_eager():
    graph_history, graph_weights, graph_pred = _train(eager=False)
    eager_history, eager_weights, eager_pred = _train(eager=True)
    for key in ("loss", "accuracy", "val_loss"):
        np.testing.assert_allclose(graph_history[key], eager_history[key], rtol=1e-4, atol=1e-5)
    for g, e in zip(graph_weights, eager_weights):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(graph_pred, eager_pred, rtol=1e-4, atol=1e-5)
    assert graph_pred.shape == (40, 2)
    assert graph_history["loss"][1] < graph_history["loss"][0]
