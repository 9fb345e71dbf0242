#!/usr/bin/env bash
# Installs the Python MCP peers the tests run, each in a venv of its own under
# testdata/pyenv (git-ignored), exactly as its requirements file under
# testdata/pypeers pins it: mcp1 (the Python SDK's last 1.x), mcp2 (its current
# 2.x and FastMCP). Safe to run again: it skips a venv whose stamp matches its
# requirements file and interpreter (FORCE=1 reinstalls anyway). PYTHON picks
# the interpreter (default python3, 3.10 or newer, with the venv module:
# Debian's python3-venv, which scripts/deps-debian.sh installs).
set -euo pipefail
cd "$(dirname "$0")/../testdata"
python=${PYTHON:-python3}
envs=(mcp1 mcp2)

say() { echo "deps-python: $*" >&2; }

if ! command -v "$python" >/dev/null 2>&1; then
  say "$python not found; install Python 3.10+ (Debian/Ubuntu: apt-get install -y python3 python3-venv)"
  exit 1
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  say "$("$python" --version 2>&1) is too old; the MCP Python SDK needs 3.10+ (set PYTHON to a newer one)"
  exit 1
fi
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
  say "$python has no venv module with pip; install it (Debian/Ubuntu: apt-get install -y python3-venv)"
  exit 1
fi

for env in "${envs[@]}"; do
  req=pypeers/$env.txt
  dir=pyenv/$env
  stamp=$dir/.deps-python-stamp
  want="$(sha256sum "$req" | cut -d' ' -f1) $("$python" -c 'import sys; print(sys.version.split()[0])')"
  if [ "${FORCE:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    say "testdata/$dir is up to date"
    continue
  fi
  say "installing testdata/$dir from testdata/$req"
  "$python" -m venv --clear "$dir"
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --require-virtualenv -r "$req"
  echo "$want" >"$stamp"
done
