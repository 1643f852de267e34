"""Fork safety of the numpy the resident front holds: a process that imports what the
front imports (``preload_numpy``, ``PRELOAD``, then ``gc.freeze``) forks ``--children``
children one after another; each finds a query's nearest rows of a 1,000 x 384 matrix
through numpy, as a served command's search by meaning does.

    python bench/front_numpy_fork.py [--children 300]

Prints the parent's threads after the imports (1 wanted: no BLAS pool to fork), then
the children hung (no exit within 20 s), failed and wrong (rows unlike the parent's).
"""

from __future__ import annotations

import argparse
import gc
import os
import signal
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--children", type=int, default=300)
    args = parser.parse_args()
    from chitin.front import server

    server.preload_numpy()
    server.preload(server.PRELOAD)
    import numpy as np

    from chitin.index import vector_search
    from chitin.index.vector_files import MATRIX

    print(f"threads after the front's imports: {len(os.listdir('/proc/self/task'))}")
    gc.freeze()
    folder = Path(tempfile.mkdtemp(prefix="front-numpy-fork-"))
    matrix = np.random.default_rng(3).standard_normal((1000, 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    (folder / MATRIX).write_bytes(matrix.tobytes())
    query = [float(x) for x in matrix[17]]

    def nearest() -> list[int]:
        return [r for r, _ in vector_search.nearest_rows(folder, 384, query, range(1000), 20, 1000)]

    wanted = nearest()
    counts = {"hung": 0, "failed": 0, "wrong": 0}
    for _ in range(args.children):
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(reader)
            try:
                right = vector_search.numpy_loaded() and nearest() == wanted
                os.write(writer, b"ok" if right else b"wrong")
                os._exit(0)
            except BaseException:
                os._exit(3)
        os.close(writer)
        deadline = time.monotonic() + 20.0
        while (status := os.waitpid(pid, os.WNOHANG))[0] == 0:
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                counts["hung"] += 1
                break
            time.sleep(0.002)
        said = os.read(reader, 8)
        os.close(reader)
        if status[0] == 0:
            continue
        if status[1] != 0:
            counts["failed"] += 1
        elif said != b"ok":
            counts["wrong"] += 1
    (folder / MATRIX).unlink()
    folder.rmdir()
    print(f"children {args.children}: {counts}")


if __name__ == "__main__":
    main()
