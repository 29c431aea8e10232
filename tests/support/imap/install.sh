#!/bin/sh
# Installs Dovecot (IMAP, LMTP and submission) for the IMAP tests (tests/mail_imap.rs,
# through tests/imap_server/mod.rs), which start their own Dovecot on free
# loopback ports with a configuration in a temporary directory.
#
#   sh tests/support/imap/install.sh            # from anywhere
#
# Debian/Ubuntu only (apt-get, as root or through `sudo -n`). Quick and
# silent when Dovecot is already there. A freshly installed package must not
# leave the system's own Dovecot running (it would hold ports 143/993 and
# serve nobody): it is stopped and disabled right after the installation,
# and only then, so that a Dovecot someone set up on purpose is left alone.
set -eu

# LMTP delivers the tests' mails; submission is the SMTP server of the
# OAuth tests (tests/imap_tests/login.rs).
libexec_has_lmtp() {
    for d in /usr/lib/dovecot /usr/libexec/dovecot; do
        [ -x "$d/lmtp" ] && [ -x "$d/submission" ] && return 0
    done
    return 1
}

dovecot_bin() {
    command -v dovecot 2>/dev/null || { [ -x /usr/sbin/dovecot ] && echo /usr/sbin/dovecot; } || true
}

# tests/imap_server/mod.rs writes a Dovecot 2.3 configuration; 2.4 (Debian
# 13) changed the syntax.
check_version() {
    version=$("$(dovecot_bin)" --version 2>/dev/null | head -n 1)
    case "$version" in
        2.3.*) ;;
        *)
            echo "tests/support/imap/install.sh: Dovecot $version is installed, but the IMAP tests" >&2
            echo "write a Dovecot 2.3 configuration (Debian 12's dovecot-imapd); they will fail." >&2
            exit 1
            ;;
    esac
}

if [ -n "$(dovecot_bin)" ] && libexec_has_lmtp; then
    check_version
    exit 0
fi

sudo=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo="sudo -n"
    else
        echo "tests/support/imap/install.sh: Dovecot is missing and this user can neither install" >&2
        echo "packages nor use sudo without a password. Install it as root with:" >&2
        echo "    apt-get install dovecot-imapd dovecot-lmtpd dovecot-submissiond" >&2
        exit 1
    fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "tests/support/imap/install.sh: Dovecot is missing and there is no apt-get here;" >&2
    echo "install Dovecot 2.3 with its IMAP, LMTP and submission services by hand." >&2
    exit 1
fi

echo "tests/support/imap/install.sh: installing dovecot-imapd, dovecot-lmtpd and dovecot-submissiond" >&2
# Another apt run (another build on this machine) may hold the lock a while.
$sudo apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null 2>&1 || true
DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
    --no-install-recommends dovecot-imapd dovecot-lmtpd dovecot-submissiond >/dev/null

# The package starts the system Dovecot where it can (systemd, or an init
# script that policy-rc.d allows): stop it and keep it from coming back.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    $sudo systemctl disable --now dovecot.service dovecot.socket >/dev/null 2>&1 || true
else
    $sudo invoke-rc.d dovecot stop >/dev/null 2>&1 || true
    $sudo update-rc.d dovecot disable >/dev/null 2>&1 || true
fi
# Whatever started it: the system master's pid file says whether one runs.
if [ -s /run/dovecot/master.pid ] && kill -0 "$(cat /run/dovecot/master.pid)" 2>/dev/null; then
    $sudo "$(dovecot_bin)" stop >/dev/null 2>&1 || true
fi

if [ -z "$(dovecot_bin)" ] || ! libexec_has_lmtp; then
    echo "tests/support/imap/install.sh: the installation did not leave a dovecot with LMTP and submission" >&2
    exit 1
fi
check_version
echo "tests/support/imap/install.sh: Dovecot $version installed" >&2
