#!/usr/bin/env bash
# Re-captures the lockfiles of published npm releases that tests/test_published_drift.py diffs.
# Needs the npm registry (npx downloads each release); the suite itself only reads the committed files.
# Usage: tests/data/published/capture.sh   (from the repository root, with `make test`'s venv)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/files" && echo "hello" > "$scratch/files/hello.txt"
capture() {  # SERVER PACKAGE VERSION ARG
  local server=$1 package=$2 version=$3 arg=$4
  printf '[servers.%s]\ncommand = "npx"\nargs = ["-y", "@modelcontextprotocol/%s@%s", "%s"]\n' \
    "$server" "$package" "$version" "$arg" > "$scratch/mcpvend.toml"
  (cd "$scratch" && mcpvend lock >/dev/null 2>&1 || true)
  cp "$scratch/lockfiles/$server.lock.json" "$here/$server-$version.lock.json"
  rm -rf "$scratch/lockfiles"
}
for version in 2025.9.25 2026.1.26 2026.8.31; do capture everything server-everything "$version" stdio; done
for version in 2025.7.29 2026.7.4 2026.8.31; do capture filesystem server-filesystem "$version" files; done
