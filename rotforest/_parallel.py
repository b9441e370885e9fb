"""The forests' threads: how trees are dealt to workers, how per-tree sums are added in
a fixed order, and the GIL-free passes over columns (the presort) in threads.

The forests' results never depend on the number of threads: each tree depends only on
its index, and sums over trees are added in blocks of ``_SUM_BLOCK`` in block order.
Tasks run in a pool of our own threads when joblib would run them in threads anyway
(see ``_own_threads``), otherwise through joblib's active backend (processes, a Dask
cluster)."""
from concurrent.futures import ThreadPoolExecutor
import threading
import time

import numpy as np
from joblib import Parallel, delayed
try:    # to tell whether joblib would run the tasks in threads anyway
    from joblib.parallel import get_active_backend as _active_backend
    from joblib._parallel_backends import ThreadingBackend as _ThreadingBackend
except ImportError:     # pragma: no cover (another joblib layout: always through joblib)
    _active_backend = None

from rotforest import _builder


# Trees are summed in blocks of this many, the blocks added in order, whatever the number
# of threads: a forest's probabilities are then the same to the last bit for every n_jobs.
_SUM_BLOCK = 8


def _own_threads():
    """Whether joblib would run tasks preferring threads in threads (no backend chosen by
    the caller, or the threading one): they may then run in a pool of our own.  joblib's
    threading backend polls for results every 10 ms, which costs a small fit as much as
    its work (a 100-tree rotation forest on 200 rows: 43 ms on one thread, 68 ms on two
    through joblib).  Other backends (processes, a Dask cluster) get the tasks through
    joblib."""
    if _active_backend is None:         # pragma: no cover
        return False
    return isinstance(_active_backend(prefer="threads")[0], _ThreadingBackend)


def _in_workers(fn, tasks, n_jobs):
    """``[fn(*task) for task in tasks]``, in order, the tasks run by ``n_jobs`` workers:
    threads (see _own_threads), or joblib's active backend."""
    tasks = list(tasks)
    n_jobs = min(n_jobs, len(tasks))
    if n_jobs <= 1:
        return [fn(*task) for task in tasks]
    if _own_threads():
        with ThreadPoolExecutor(n_jobs) as pool:
            return list(pool.map(lambda task: fn(*task), tasks))
    return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(fn)(*task) for task in tasks)


# A forest's own threads pay for themselves only when each tree keeps its thread busy
# well beyond the Python that every tree runs (its draws, the builder's arguments, the
# tree object: some 50 to 150 us, holding the GIL, which the other threads wait for when
# their own GIL-free calls end).  Measured on 2 cores (AMD EPYC, 100 trees, 2026-11-25):
# two threads took longer than one for trees of under 0.2 ms (iris 18 against 8 ms,
# breast_cancer's random forest 24 against 15 ms), were about 10% faster for trees of
# 0.3 ms and 1.2 to 1.7 times as fast for trees of 0.5 ms and more.  So a fit grows its
# first two trees alone, times the second (the first pays for first calls), and gives
# the others one thread when that tree took under _TREE_SECONDS_TO_THREAD, else a thread
# per _TREE_SECONDS_PER_THREAD of it (two at least, n_jobs at most): the Python of all
# trees runs one thread at a time, so more threads than a tree's time over twice that
# Python only wait.
_TREE_SECONDS_TO_THREAD = 250e-6
_TREE_SECONDS_PER_THREAD = 150e-6
# From this many cells (rows x features) a tree takes milliseconds (3 ms and more here):
# every thread asked for is given, without the first two trees grown alone.
_CELLS_UNTIMED = 1 << 18


def _threads_for(seconds, n_jobs, n_trees):
    """How many threads to give n_trees trees like one that took ``seconds`` alone."""
    if seconds < _TREE_SECONDS_TO_THREAD:
        return 1
    return max(1, min(n_jobs, n_trees, max(2, int(seconds / _TREE_SECONDS_PER_THREAD))))


def _grow_in_threads(grow, task, new, n_jobs, cells):
    """The trees of the tree indices ``new``, in order: ``grow(*task(chunk))`` returns
    the list of trees of a contiguous chunk of indices.  Up to ``n_jobs`` workers (see
    _in_workers); with the forest's own threads, on data of fewer than _CELLS_UNTIMED
    ``cells``, the first two trees are grown first on the calling thread, and the
    second's time says how many threads the others get (see _threads_for).  Each tree
    depends only on its index, so the trees are the same whatever the number of
    threads."""
    trees = []
    workers = max(1, min(n_jobs, len(new)))
    if workers > 1 and len(new) > 2 and cells < _CELLS_UNTIMED and _own_threads():
        trees.extend(grow(*task(new[:1])))
        start = time.perf_counter()
        trees.extend(grow(*task(new[1:2])))
        new = new[2:]
        workers = _threads_for(time.perf_counter() - start, workers, len(new))
    for part in _in_workers(grow, [task(chunk) for chunk in _chunks(new, workers)],
                            workers):
        trees.extend(part)
    return trees


def _in_order(fn, items, n_jobs):
    """``fn(item)`` for each item, yielded in order, computed by ``n_jobs`` threads (or
    joblib's active backend, see _own_threads) at most ``2 * n_jobs`` ahead of the
    caller."""
    if not _own_threads():
        yield from Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
            delayed(fn)(item) for item in items)
        return
    items = iter(items)
    with ThreadPoolExecutor(n_jobs) as pool:
        ahead = []
        for item in items:
            ahead.append(pool.submit(fn, item))
            if len(ahead) >= 2 * n_jobs:
                yield ahead.pop(0).result()
        while ahead:
            yield ahead.pop(0).result()


def _sum_over_trees(n_trees, n_jobs, block_sum):
    """The sum of ``block_sum(trees)`` over consecutive ranges of ``_SUM_BLOCK`` tree
    indices, added in block order; the blocks are computed in ``n_jobs`` threads, each
    returning a new array."""
    blocks = [range(a, min(a + _SUM_BLOCK, n_trees)) for a in range(0, n_trees, _SUM_BLOCK)]
    n_jobs = min(n_jobs, len(blocks))
    if n_jobs == 1:
        parts = map(block_sum, blocks)
    else:   # a generator keeps the order and holds only the blocks not yet added
        parts = _in_order(block_sum, blocks, n_jobs)
    total = None
    for part in parts:
        if total is None:
            total = part
        else:
            total += part
    return total


# A thread of the per-column passes gets 2^15 cells at least, some 0.3 ms of sorting:
# below that, starting the threads costs more than they save.
_CELLS_PER_THREAD_SHIFT = 15


def column_ranges_in_threads(fn, n_columns, n_threads):
    """``[fn(start, stop) for consecutive ranges of the columns]``, in order: one range
    per thread, ``n_threads`` at most (one: the whole range on the calling thread).
    Always threads: this is local work, for passes that run without the GIL."""
    n_threads = max(1, min(n_threads, n_columns))
    if n_threads == 1:
        return [fn(0, n_columns)]
    bounds = np.linspace(0, n_columns, n_threads + 1).astype(int)
    with ThreadPoolExecutor(n_threads) as pool:
        return list(pool.map(lambda ab: fn(int(ab[0]), int(ab[1])),
                             zip(bounds[:-1], bounds[1:])))


def _by_columns_in_threads(work, source, n_features, width, n_threads, dtype=np.uint32):
    """``work(source, out, start, stop)`` filling the rows of an ``(n_features, width)``
    array, the features shared between threads (the builder's passes run without the
    GIL)."""
    out = np.empty((n_features, width), dtype=dtype)
    column_ranges_in_threads(lambda a, b: work(source, out, a, b), n_features,
                             min(n_threads, n_features * width >> _CELLS_PER_THREAD_SHIFT))
    return out


def _presort_in_threads(X, n_threads):
    """The forest's one presort (see :func:`_builder.presort`)."""
    return _by_columns_in_threads(_builder.presort, X, X.shape[1],
                                  _builder.keys_width(X.shape[0]), n_threads)


def _ranks_in_threads(keys, n_samples, n_threads, col_top=None):
    """The dense ranks of the presort (see :func:`_builder.dense_ranks`), which the trees'
    nodes read when they sort their samples (``col_top``: the keys' column_tops, when
    the caller has them)."""
    return _by_columns_in_threads(_builder.dense_ranks, keys, keys.shape[0], n_samples,
                                  n_threads, _builder.rank_dtype(keys, n_samples, col_top))



def _chunks(items, n_parts):
    """Deal items to n_parts contiguous chunks of nearly equal size."""
    n_parts = max(1, min(n_parts, len(items)))
    bounds = np.linspace(0, len(items), n_parts + 1).astype(int)
    return [items[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


class _Progress:
    """Thread-safe 'trees done / total, elapsed' reporting for verbose >= 1."""

    def __init__(self, total, verbose):
        self.total, self.verbose, self.done = total, verbose, 0
        self.start = time.perf_counter()
        self.lock = threading.Lock()
        self.every = 1 if verbose > 1 else max(1, total // 10)

    def __getstate__(self):   # a process-based joblib backend pickles the reporter
        state = dict(self.__dict__)
        del state["lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.lock = threading.Lock()

    def __call__(self):
        with self.lock:
            self.done += 1
            if self.done % self.every == 0 or self.done == self.total:
                print(f"[rotforest] built {self.done} / {self.total} trees, "
                      f"{time.perf_counter() - self.start:.1f} s elapsed", flush=True)
