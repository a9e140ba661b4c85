#!/usr/bin/env bash
# Builds the Python package's wheel once, into target/wheels/ (crawlsift-<version>-cp39-abi3-*.whl),
# with a pinned maturin in its own virtual environment (target/buildvenv). The build runs in the
# repository's target/ with the release profile, so the workspace crates `cargo build --release
# --workspace` compiled are reused (only pyo3 and crates/python are compiled again); the module is
# stripped (`strip = true` in pyproject.toml). The gates install this wheel: nothing after this
# step needs a Rust toolchain. Prints the wheel's path last.
set -euo pipefail
maturin_version=1.16.0 # keep in step with pyproject.toml's [build-system]
venv=target/buildvenv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/maturin" --version 2>/dev/null | grep -qx "maturin $maturin_version" ||
  "$venv/bin/pip" install -q "maturin==$maturin_version"
rm -f target/wheels/crawlsift-*.whl
start=$(date +%s)
"$venv/bin/maturin" build --release --locked --strip --out target/wheels >&2
wheels=(target/wheels/crawlsift-*.whl)
[ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] || { echo "build_wheel: expected one wheel in target/wheels" >&2; exit 1; }
echo "build_wheel: ${wheels[0]} ($(stat -c %s "${wheels[0]}") bytes) in $(($(date +%s) - start)) s" >&2
echo "${wheels[0]}"
