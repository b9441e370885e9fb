"""What the benchmark scripts share: the machine header that every table states (with
whether rotforest's AVX-512 kernels ran), the versions, a best-of-n timer, and the
shared data sets' loading and row sampling.  Import it from a script in this folder
(``from common import ...``); the scripts put this folder on the path."""
import glob
import os
import platform
import time

import numpy as np
import sklearn

import rotforest


def best_time(fn, repeat=1):
    """The best wall time of ``repeat`` calls of fn, and the last call's result."""
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def kernels():
    """Which of rotforest's split kernels run here: "AVX-512" or "portable" (no AVX-512
    on the processor, or ROTFOREST_NO_AVX512 set)."""
    from rotforest import _builder
    previous = _builder._set_simd(True)      # what the processor allows ...
    _builder._set_simd(previous)             # ... put back as the environment set it
    return "AVX-512" if previous else "portable"


def machine_description():
    """CPU model, cores, AVX-512 (and whether rotforest's kernels use it), memory and
    OS, as far as this platform tells."""
    cpu, avx512, mem = platform.processor() or platform.machine(), False, None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                elif line.startswith("flags"):
                    avx512 = "avx512f" in line.split()
                    break
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) / 2 ** 20      # kB -> GiB
    except OSError:
        pass
    parts = [cpu, f"{os.cpu_count()} cores"]
    if avx512:
        parts.append("AVX-512")
    parts.append(f"rotforest kernels: {kernels()}")
    if mem is not None:
        parts.append(f"{mem:.0f} GB")
    parts.append(f"{platform.system()} {platform.machine()}")
    return ", ".join(parts)


def versions():
    out = [f"Python {platform.python_version()}", f"rotforest {rotforest.__version__}",
           f"scikit-learn {sklearn.__version__}", f"numpy {np.__version__}"]
    try:
        import aeon
        out.append(f"aeon {aeon.__version__}")
    except ImportError:
        pass
    return ", ".join(out)


def load_folder(folder):
    """name -> (X, y) for every NAME.npz in ``folder`` (read without pickle)."""
    paths = sorted(glob.glob(os.path.join(folder, "*.npz")))
    if not paths:
        raise SystemExit(f"no .npz data sets in {folder!r}")
    out = {}
    for path in paths:
        with np.load(path, allow_pickle=False) as data:
            out[os.path.basename(path)[:-4]] = (data["X"].astype(np.float64), data["y"])
    return out


def prepared(X, y, max_rows, n_folds, rng, task="classification"):
    """At most ``max_rows`` rows drawn at random; classes with fewer rows than folds
    dropped (stratified folds need one per fold)."""
    if max_rows is not None and len(y) > max_rows:
        keep = np.sort(rng.choice(len(y), max_rows, replace=False))
        X, y = X[keep], y[keep]
    if task == "regression":
        return X, y.astype(np.float64)
    classes, counts = np.unique(y, return_counts=True)
    ok = np.isin(y, classes[counts >= n_folds])
    return X[ok], y[ok]
