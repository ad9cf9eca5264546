"""The wheel's build: recipe.py makes the package's two files from the source that MCPVEND_MINILM_SOURCE names."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE_VARIABLE = "MCPVEND_MINILM_SOURCE"


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Adds model.safetensors and tokenizer.json to the wheel, made by the recipe (the sdist holds the recipe)."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        location = os.environ.get(SOURCE_VARIABLE)
        if not location:
            raise RuntimeError(
                f"{SOURCE_VARIABLE} must name the upstream model's files (a model directory, or a wheel or zip that "
                "holds one): the wheel is built from them (see README.md)"
            )
        sys.path.insert(0, self.root)
        import recipe

        self._made = Path(tempfile.mkdtemp(prefix="mcpvend-minilm-"))
        try:
            files = recipe.build(Path(location), self._made)
        except recipe.SourceError as exc:
            raise RuntimeError(str(exc)) from None
        for name, path in files.items():
            build_data["force_include"][str(path)] = f"mcpvend_minilm/{name}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self.target_name == "wheel":
            shutil.rmtree(self._made, ignore_errors=True)
