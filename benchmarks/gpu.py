"""The GPU path on a machine with an NVIDIA GPU: the cupy test suite, then MLP and VGG-style
CNN training on the cupy backend against PyTorch CUDA (when torch with CUDA is importable,
here or in ``--torch PYTHON``), as ratios measured in one run.

    PYTHONPATH=. python benchmarks/gpu.py [--skip-tests] [--torch PYTHON] [--quick]

Goal: cupy VGG training >= 0.7x PyTorch CUDA. Without a usable GPU it says why and exits 2.
The workloads are the CPU benchmarks' (benchmarks/peers.py): MLP 784-512-512-10 at batch
128 and the VGG-style CNN at batch 64, Adam, sparse crossentropy from logits.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _lamina(quick: bool) -> dict:
    sys.path.insert(0, HERE)
    import numpy as np
    from common import cnn, mlp
    import lamina as keras

    rng = np.random.default_rng(0)
    figures = {}
    with keras.backend.use("cupy") as backend:
        for name, build, shape, batch, n in (("mlp_train", mlp, (784,), 128, 8192),
                                             ("cnn_train", cnn, (32, 32, 3), 64, 2048)):
            n = n // 4 if quick else n
            x = rng.standard_normal((n, *shape)).astype("float32")
            y = rng.integers(0, 10, n)
            keras.utils.set_random_seed(0)
            model = build(keras)
            model.compile(optimizer=keras.optimizers.Adam(1e-3),
                          loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
            model.fit(x, y, batch_size=batch, epochs=1, verbose=0)    # warm-up / trace
            backend.synchronize()
            start = time.perf_counter()
            model.fit(x, y, batch_size=batch, epochs=2, verbose=0)
            backend.synchronize()
            figures[name] = 2 * (n // batch) * batch / (time.perf_counter() - start)
    return figures


_TORCH = r"""
import json, sys, time
import numpy as np, torch, torch.nn as nn
quick = {quick}
dev = torch.device("cuda")
torch.manual_seed(0)
def mlp():
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, 10))
def cnn():
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
        nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(8 * 8 * 64, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 10))
figures = {{}}
rng = np.random.default_rng(0)
for name, build, shape, batch, n in (("mlp_train", mlp, (784,), 128, 8192),
                                     ("cnn_train", cnn, (3, 32, 32), 64, 2048)):
    n = n // 4 if quick else n
    x = torch.from_numpy(rng.standard_normal((n, *shape)).astype("float32")).to(dev)
    y = torch.from_numpy(rng.integers(0, 10, n)).to(dev)
    model = build().to(dev)
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    loss = nn.CrossEntropyLoss()
    def epoch():
        perm = torch.randperm(n, device=dev)
        for i in range(0, n - batch + 1, batch):
            idx = perm[i:i + batch]
            opt.zero_grad(); loss(model(x[idx]), y[idx]).backward(); opt.step()
    epoch(); torch.cuda.synchronize()
    start = time.perf_counter()
    epoch(); epoch(); torch.cuda.synchronize()
    figures[name] = 2 * (n // batch) * batch / (time.perf_counter() - start)
print(json.dumps(figures))
"""


def _torch(python: str, quick: bool):
    done = subprocess.run([python, "-c", _TORCH.format(quick=quick)], capture_output=True,
                          text=True, timeout=1200)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"PyTorch CUDA not measured ({python}): {last}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--torch", default=sys.executable,
                        help="a Python with torch built for CUDA (default: this one)")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, ROOT)
    import lamina
    try:
        lamina.backend.get_backend("cupy")
    except (ImportError, RuntimeError) as error:
        print(f"no usable GPU: {str(error).splitlines()[0]}")
        sys.exit(2)
    if not args.skip_tests:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "gpu", "tests",
                               "-p", "no:cacheprovider"], cwd=ROOT, capture_output=True,
                              text=True)
        tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
        print(f"cupy tests (pytest -m gpu): {tail} [{time.perf_counter() - start:.0f} s]")
        if done.returncode != 0:
            failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
            print("\n".join(failed[:40]))
    ours = _lamina(args.quick)
    theirs = _torch(args.torch, args.quick)
    for name, value in ours.items():
        line = f"{name:10s} lamina cupy {value:10.0f} samples/s"
        if theirs:
            line += f"   PyTorch CUDA {theirs[name]:10.0f}   {value / theirs[name]:.2f}x"
        print(line)
    print("goal: cnn_train >= 0.7x PyTorch CUDA")


if __name__ == "__main__":
    main()
