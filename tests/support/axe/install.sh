#!/bin/sh
# Installs axe-core (Deque's accessibility checker, JavaScript) into
# target/axe, where the browser tests (tests/serve_browser.rs) look for
# node_modules/axe-core/axe.min.js and inject it into each page they check.
#
#   sh tests/support/axe/install.sh            # from anywhere
#   STARRY_AXE_DIR=/some/dir sh tests/support/axe/install.sh
#
# Needs npm (Debian: apt-get install npm). Quick when it is there already.
# Nothing of this is part of starry itself: the pages never load it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dir=${STARRY_AXE_DIR:-$root/target/axe}
version="4.10"

if [ -f "$dir/node_modules/axe-core/axe.min.js" ] \
    && grep -q "\"version\": \"$version\." "$dir/node_modules/axe-core/package.json"; then
    exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "tests/support/axe/install.sh: npm is missing (Debian: apt-get install npm)" >&2; exit 1; }
mkdir -p "$dir"
npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "axe-core@~$version.0" >&2
test -f "$dir/node_modules/axe-core/axe.min.js"
echo "axe-core $(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$dir/node_modules/axe-core/package.json") installed in $dir"
