#!/usr/bin/env bash
# Installs the REAL GitHub Copilot CLI (@github/copilot 1.0.102, proprietary; its native
# binary comes as the npm package of the platform, @github/copilot-linux-x64) that
# internal/testbed/hosts runs with a model of its own (BYOK: COPILOT_PROVIDER_BASE_URL, no
# account), into testdata/hosts/copilot/node_modules, as testdata/hosts/copilot/package-lock.json
# pins it (scripts/npm-host.sh does the work).
HOST_DIR=copilot
HOST_LABEL="@github/copilot 1.0.102"
HOST_BIN=node_modules/@github/copilot-linux-x64/copilot
HOST_WANT="GitHub Copilot CLI 1.0.102."
host_version() { COPILOT_AUTO_UPDATE=false "$HOST_BIN" --version | head -1; }
source "$(dirname "$0")/npm-host.sh"
