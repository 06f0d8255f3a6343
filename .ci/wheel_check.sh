#!/usr/bin/env bash
# Installs in parts: build a wheel from the tree, install it into a bare venv with no extras
# (`import toolkit` and a decorated call must work; every adapter must name its missing extra),
# then each extra alone into its own venv (its modules and adapters must import).
# Packages come from pip as configured on this machine (its local indexes work offline).
set -euo pipefail
cd "$(dirname "$0")/.."
py="${PY:-python3}"
[ -x .venv/bin/python ] && py=.venv/bin/python
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pip_q=(--quiet --disable-pip-version-check --no-input)

quiet() {  # pip notes that a local index lacks a package are noise here
  "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
}

quiet "$py" -m pip wheel "${pip_q[@]}" --no-deps -w "$work/dist" . >/dev/null
wheel="$(ls "$work"/dist/mcp_toolkit-*.whl)"
echo "wheel check: built $(basename "$wheel")"

# What ships: the two packages only (no examples/, tests/, bench/ or notebooks/).
"$py" - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
tops = {n.split("/")[0] for n in names if not n.startswith("mcp_toolkit-")}
if tops != {"toolkit", "adapters"}:
    sys.exit(f"wheel check FAILED: the wheel ships {sorted(tops)}, expected toolkit and adapters")
PY

venv() {  # venv DIR SPEC: a fresh venv with only SPEC installed
  "$py" -m venv "$1"
  quiet "$1/bin/python" -m pip install "${pip_q[@]}" "$2"
}

venv "$work/bare" "$wheel"
(cd "$work" && "$work/bare/bin/python" "$OLDPWD/.ci/wheel_check.py" bare) >"$work/needs"
echo "wheel check: bare install imports toolkit and runs a decorated call"

extras="$("$py" -c 'import sys; sys.path.insert(0, "."); from adapters._extras import EXTRAS; print(" ".join(EXTRAS))')"
for extra in $extras; do
  packages="$(grep "=${extra}\$" "$work/needs" | cut -d= -f1 | tr '\n' ' ' || true)"
  venv "$work/$extra" "${wheel}[${extra}]"
  # shellcheck disable=SC2086
  (cd "$work" && "$work/$extra/bin/python" "$OLDPWD/.ci/wheel_check.py" extra "$extra" $packages)
  echo "wheel check: [$extra] alone makes ${packages:-its modules }importable"
  rm -rf "${work:?}/$extra"
done
echo "wheel check: passed"
