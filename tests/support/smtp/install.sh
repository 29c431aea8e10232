#!/bin/sh
# Installs the test SMTP server (Python aiosmtpd) into target/smtp-venv, where
# the mail tests (tests/mail_*.rs) look for it first.
#
#   sh tests/support/smtp/install.sh            # from the repository root
#   STARRY_SMTP_VENV=/some/dir sh tests/support/smtp/install.sh
#
# Needs python3 (>= 3.8) with the venv module (Debian: apt-get install python3-venv)
# and the openssl command line tool (Debian: apt-get install openssl) to make the
# throw-away test certificates. Nothing of this is linked into starry itself.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
venv=${STARRY_SMTP_VENV:-$root/target/smtp-venv}
python=${PYTHON:-python3}

if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "aiosmtpd==1.4.6"
"$venv/bin/python" -c "import aiosmtpd; print('aiosmtpd', aiosmtpd.__version__, 'installed in $venv')"
command -v openssl >/dev/null 2>&1 || echo "warning: the openssl command is missing; the TLS tests will be skipped" >&2
