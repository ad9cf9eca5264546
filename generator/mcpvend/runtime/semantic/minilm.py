"""all-MiniLM-L6-v2, run with numpy: the sentence embedding model of the hybrid ranker, no torch.

The files come from mcpvend's own `mcpvend-minilm` wheel (the tokenizer, and the weights as int8 with
one scale per 64 weights of a row), or from a local copy of the upstream model's directory (`[search]
model`). Either way a file is used only if its sha256 is one this module records: each file is read
once, hashed while numpy and the tokenizer import, and the bytes hashed are the bytes loaded. Nothing
is downloaded. The forward pass is BERT's (6 layers, 12 heads, 384 dimensions) followed by mean
pooling, as sentence-transformers runs this model; it reproduces the model card's similarities to
three digits (tests/test_semantic.py). BLAS runs on one thread: vectors are then the same bytes
whatever the machine's thread count, and a query does not wait for threads a busy machine cannot give it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DISTRIBUTION = "mcpvend-minilm==0.1.0"  # = the `semantic` extra of mcpvend
PACKAGE = "mcpvend_minilm"  # found, never imported: it holds files, no code
WEIGHTS, TOKENIZER = "model.safetensors", "tokenizer.json"
# The sha256 of every file this module loads; any other bytes are refused.
PACKAGED = {  # mcpvend-minilm 0.1.0, made from the upstream files by minilm/recipe.py
    WEIGHTS: "ab5a64abbf6ade23809a90abc09c428781794f1d2bd98d043a4d26dc696bb672",
    TOKENIZER: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
UPSTREAM = {  # sentence-transformers/all-MiniLM-L6-v2's own files
    WEIGHTS: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    TOKENIZER: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
SCALE = ".scale"  # an int8 matrix's float32 scales: `NAME.scale`, one per group of a row's weights
MAX_TOKENS = 256  # the model's own limit (sentence_bert_config.json)
HEADS = 12
_LAYER_NORM_EPS = 1e-12


class ModelUnavailable(ImportError):
    """The model's files or the libraries that read them cannot be loaded; the message says what to do."""


@dataclass(frozen=True)
class Source:
    """Where the model's files are, the digests they must have, and the name vectors made with them record."""

    directory: Path | None  # None: mcpvend-minilm is not installed
    digests: Mapping[str, str]
    kind: str  # whose files: in the name, and in what a refused file is not
    remedy: str  # what to do about a file that is refused

    @property
    def name(self) -> str:
        return f"all-MiniLM-L6-v2 ({self.kind}, sha256:{self.digests[WEIGHTS]}), mean pooled"


def _upstream(directory: Path) -> Source:
    return Source(directory, UPSTREAM, "float32, the upstream model's files", "copy the upstream files again")


def _packaged(directory: Path | None) -> Source:
    reinstall = f"pip install --force-reinstall '{DISTRIBUTION}'"
    return Source(directory, PACKAGED, f"int8, {DISTRIBUTION}", reinstall)


def source(directory: Path | None = None) -> Source:
    """The installed mcpvend-minilm's files, or those of the upstream model's directory given; nothing is read."""
    if directory is not None:
        return _upstream(directory)
    spec = importlib.util.find_spec(PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return _packaged(Path(locations[0]) if locations else None)


def model_name(directory: Path | None = None) -> str:
    """What vectors made with the model record (its files' kind and the weights' sha256), without looking for it."""
    return (_packaged(None) if directory is None else _upstream(directory)).name


def _read(found: Source) -> dict[str, bytes]:
    """Each file's bytes, once their sha256 is the one recorded; `ModelUnavailable` naming a file that is not."""
    assert found.directory is not None
    files = {}
    for name, expected in found.digests.items():
        path = found.directory / name
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ModelUnavailable(f"{path} cannot be read ({exc.strerror or exc})") from None
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected:
            raise ModelUnavailable(
                f"{path} has sha256 {actual[:16]}..., not {expected[:16]}... ({found.kind}): it is not the file "
                f"mcpvend knows, and is not used; {found.remedy}"
            )
        files[name] = data
    return files


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


def _rows(w: Mapping[str, Any], name: str, rows: Any = None) -> Any:
    """Matrix `name` as float32 (its `rows` only, if given): int8 ones are scaled back group by group."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    matrix = w[name] if rows is None else w[name][rows]
    if name + SCALE not in w:
        return matrix
    scale = w[name + SCALE] if rows is None else w[name + SCALE][rows]
    count, width = matrix.shape
    groups = matrix.reshape(count, scale.shape[1], width // scale.shape[1]).astype(np.float32)
    return (groups * scale[:, :, None]).reshape(count, width)


class MiniLM:
    """Embeds texts as unit vectors (float32, 384 dimensions), from the bytes of its two files."""

    def __init__(self, weights: bytes, tokenizer: bytes) -> None:
        import numpy as np  # type: ignore[import-not-found, unused-ignore]
        from safetensors.numpy import load  # type: ignore[import-not-found, unused-ignore]
        from tokenizers import Tokenizer  # type: ignore[import-not-found, unused-ignore]

        self.tokenizer = Tokenizer.from_str(tokenizer.decode("utf-8"))
        self.tokenizer.no_padding()  # the file pads to 128: pad tokens would be averaged in
        self.tokenizer.enable_truncation(MAX_TOKENS)
        w = load(weights)
        self._w = w  # the word embeddings stay as stored: a text needs a few of their 30,522 rows
        self.width = w["embeddings.word_embeddings.weight"].shape[1]
        self.position = _rows(w, "embeddings.position_embeddings.weight")
        self.token_type = _rows(w, "embeddings.token_type_embeddings.weight")[0]
        self.norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers: list[tuple[Any, ...]] = []
        while (p := f"encoder.layer.{len(self.layers)}.") + "attention.self.query.weight" in w:
            qkv = [_rows(w, f"{p}attention.self.{part}.weight") for part in ("query", "key", "value")]
            bias = [w[f"{p}attention.self.{part}.bias"] for part in ("query", "key", "value")]
            self.layers.append(
                (
                    np.ascontiguousarray(np.concatenate(qkv).T),
                    np.concatenate(bias),
                    np.ascontiguousarray(_rows(w, f"{p}attention.output.dense.weight").T),
                    w[f"{p}attention.output.dense.bias"],
                    w[f"{p}attention.output.LayerNorm.weight"],
                    w[f"{p}attention.output.LayerNorm.bias"],
                    np.ascontiguousarray(_rows(w, f"{p}intermediate.dense.weight").T),
                    w[f"{p}intermediate.dense.bias"],
                    np.ascontiguousarray(_rows(w, f"{p}output.dense.weight").T),
                    w[f"{p}output.dense.bias"],
                    w[f"{p}output.LayerNorm.weight"],
                    w[f"{p}output.LayerNorm.bias"],
                )
            )

    def _forward(self, ids: Sequence[int]) -> Any:
        import numpy as np  # type: ignore[import-not-found, unused-ignore]

        n = len(ids)
        words = _rows(self._w, "embeddings.word_embeddings.weight", list(ids))
        x = _layer_norm(words + self.position[:n] + self.token_type, *self.norm)
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
            return np.zeros((0, self.width), dtype=np.float32)
        with threadpool_limits(limits=1):
            rows = np.stack([self._forward(e.ids) for e in self.tokenizer.encode_batch(list(texts))]).astype(np.float32)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        norms[norms == 0] = 1
        return rows / norms


def load(found: Source) -> MiniLM:
    """The model from `found`'s files, or `ModelUnavailable` saying why and what to do.

    The files are read and hashed on a thread while numpy, safetensors and tokenizers import here (hashlib
    lets go of the interpreter while it hashes): checking every byte costs a load about nothing on two cores.
    """
    if found.directory is None:
        raise ModelUnavailable(f"it needs {DISTRIBUTION}, which is not installed: pip install 'mcpvend[semantic]'")
    with ThreadPoolExecutor(1, thread_name_prefix="mcpvend-minilm") as pool:
        reading = pool.submit(_read, found)
        try:
            import numpy  # type: ignore[import-not-found, unused-ignore]  # noqa: F401
            import safetensors.numpy  # type: ignore[import-not-found, unused-ignore]  # noqa: F401
            import threadpoolctl  # type: ignore[import-untyped, import-not-found, unused-ignore]  # noqa: F401
            import tokenizers  # type: ignore[import-not-found, unused-ignore]  # noqa: F401
        except ImportError as exc:
            raise ModelUnavailable(f"{exc}: pip install 'mcpvend[semantic]'") from None
        files = reading.result()
    try:
        return MiniLM(files[WEIGHTS], files[TOKENIZER])
    except Exception as exc:  # noqa: BLE001  known bytes: only another release of a reading library fails here
        raise ModelUnavailable(f"its files in {found.directory} cannot be loaded: {exc}") from None
