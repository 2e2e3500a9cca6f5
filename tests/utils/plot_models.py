"""The models of tests/fixtures/make_plot_model_references.py, built with Lamina."""
import lamina
from lamina import layers, ops


def nested():
    i = lamina.Input((8,), name="inner_in")
    h = layers.Dense(16, activation="relu", name="inner_dense")(i)
    o = layers.Dense(4, name="inner_out")(h)
    inner = lamina.Model(i, o, name="inner")
    x = lamina.Input((8,), name="x")
    y = layers.Dense(8, activation="tanh", name="pre")(x)
    y = inner(y)
    y = layers.Dense(2, activation="softmax", name="head")(y)
    return lamina.Model(x, y, name="outer")


def multi():
    a = lamina.Input((16,), name="image")
    b = lamina.Input((4,), name="meta", dtype="float32")
    fa = layers.Dense(8, activation="relu", name="img_dense")(a)
    fb = layers.Dense(8, name="meta_dense")(b)
    frozen = layers.Dense(8, name="frozen")
    frozen.trainable = False
    fb = frozen(fb)
    c = layers.Concatenate(name="concat")([fa, fb])
    o1 = layers.Dense(3, activation="softmax", name="cls")(c)
    o2 = layers.Dense(1, name="reg")(c)
    return lamina.Model([a, b], [o1, o2], name="multi")


def shared():
    a = lamina.Input((5,), name="left")
    b = lamina.Input((5,), name="right")
    s = layers.Dense(3, name="shared")
    o = layers.Add(name="add")([s(a), s(b)])
    return lamina.Model([a, b], o, name="siamese")


def residual():
    x = lamina.Input((4,), name="x")
    y = layers.Dense(4, name="d")(x)
    return lamina.Model(x, ops.add(y, x), name="residual")


def deep():
    seq = lamina.Sequential([lamina.Input((6,)), layers.Dense(5, name="s1"),
                             layers.Dense(4, name="s2")], name="seq")
    i = lamina.Input((6,), name="mid_in")
    mid = lamina.Model(i, layers.Dense(3, name="mid_out")(seq(i)), name="mid")
    x = lamina.Input((6,), name="top_in")
    return lamina.Model(x, layers.Dense(2, name="top_out")(mid(x)), name="deep")


def vgg():
    return lamina.Sequential([
        lamina.Input((32, 32, 3)),
        layers.Conv2D(8, 3, padding="same", activation="relu", name="block1_conv1"),
        layers.Conv2D(8, 3, padding="same", activation="relu", name="block1_conv2"),
        layers.MaxPooling2D(name="block1_pool"),
        layers.Conv2D(16, 3, padding="same", activation="relu", name="block2_conv1"),
        layers.MaxPooling2D(name="block2_pool"),
        layers.Flatten(name="flatten"),
        layers.Dense(32, activation="relu", name="fc1"),
        layers.Dropout(0.5, name="dropout"),
        layers.Dense(10, activation="softmax", name="predictions"),
    ], name="vgg")


BUILDERS = {"outer": nested, "multi": multi, "siamese": shared, "residual": residual,
            "deep": deep, "vgg": vgg}


def key_names(model, names=None) -> dict:
    """DOT node key -> layer (or op) name, nested models included."""
    from lamina.utils.plotting.graph import is_graph_model
    names = {} if names is None else names
    for layer in model.layers:
        names[str(id(layer))] = layer.name
        if is_graph_model(layer):
            key_names(layer, names)
    for step in getattr(model, "_steps", []):
        if not hasattr(step, "layer"):
            names[str(id(step.node))] = step.node.op.name
    return names
