"""numpy's part that every provider shares. Imported by the providers that compute
vectors (local_model.py, remote.py), which load numpy anyway; naming a provider does not."""

from __future__ import annotations

import numpy as np


def normalized(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (cosine similarity is then a dot product), as float32."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    result: np.ndarray = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
    return result
