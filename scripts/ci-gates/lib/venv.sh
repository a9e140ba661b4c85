# Sourced by the gates that need Python packages (not a gate: .ci/run runs only
# scripts/ci-gates/*.sh). gate_venv NAME "PKG==VER ...": makes or reuses the pinned venv
# target/gate-venv-NAME (run from the repository root), remade when the pins change; its
# progress goes to stderr. Exits with "NAME gate FAILED" when pip cannot install the pins: a gate
# fails, never skips.
gate_venv() {
  local name=$1 pkgs=$2 venv
  venv=$(pwd)/target/gate-venv-$name
  if [ ! -f "$venv/.installed" ] || [ "$(cat "$venv/.installed")" != "$pkgs" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    # shellcheck disable=SC2086
    "$venv/bin/pip" install -q $pkgs >&2 || { echo "$name gate FAILED: cannot install $pkgs" >&2; exit 1; }
    echo "$pkgs" > "$venv/.installed"
  fi
  VENV=$venv
}
