#!/usr/bin/env python3
"""PyTorch reference for bench/training-bench: the same three models, one thread, batch 32.

Trains softmax regression, the MLP 784-200-200-10 and the CNN (conv 5x5 16 padded 2 -> ReLU -> pool 2,
conv 5x5 32 -> ReLU -> pool 2, dense 128 -> ReLU -> dense 10) with plain SGD (lr 0.05) on
Fashion-MNIST's first examples, and prints examples per CPU-second for each, the median of
--repetitions runs. Run it beside build/bench/training-bench on the same machine and compare
the ratios (docs/performance.md):

    /usr/bin/python3 bench/pytorch-reference.py   # Debian: python3-torch, libopenblas0-pthread
"""
import argparse
import gzip
import os
import statistics
import time

# One thread in OpenBLAS and OpenMP too, not only in torch's own pool: set before the import.
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[variable] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

DATA = "/usr/share/datasets/fashion-mnist"


def load_images(limit):
    """The first `limit` training images and labels, scaled to [0, 1] like fedran's loader."""
    def read(name, offset):
        path = os.path.join(DATA, name)
        opener = gzip.open if not os.path.exists(path) else open
        with opener(path if os.path.exists(path) else path + ".gz", "rb") as f:
            return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)
    x = read("train-images-idx3-ubyte", 16)[: limit * 784].reshape(limit, 784)
    y = read("train-labels-idx1-ubyte", 8)[:limit]
    return torch.tensor(x, dtype=torch.float32) / 255.0, torch.tensor(y, dtype=torch.int64)


def make(kind):
    if kind == "softmax":
        return nn.Linear(784, 10)
    if kind == "mlp":
        return nn.Sequential(nn.Linear(784, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(),
                             nn.Linear(200, 10))
    return nn.Sequential(nn.Unflatten(1, (1, 28, 28)), nn.Conv2d(1, 16, 5, padding=2), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(800, 128), nn.ReLU(), nn.Linear(128, 10))


def examples_per_second(kind, x, y, batch):
    torch.manual_seed(7)
    model = make(kind)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    start = time.process_time()
    for i in range(0, len(x), batch):
        optimiser.zero_grad()
        loss_fn(model(x[i:i + batch]), y[i:i + batch]).backward()
        optimiser.step()
    return len(x) / (time.process_time() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=6000, help="examples per run")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()
    torch.set_num_threads(1)
    x, y = load_images(args.examples)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread, batch {args.batch}")
    for kind in ("softmax", "mlp", "cnn"):
        examples_per_second(kind, x[:320], y[:320], args.batch)  # warm-up
        runs = [examples_per_second(kind, x, y, args.batch) for _ in range(args.repetitions)]
        print(f"{kind}: {statistics.median(runs):,.0f} examples/s "
              f"(min {min(runs):,.0f}, max {max(runs):,.0f})")


if __name__ == "__main__":
    main()
