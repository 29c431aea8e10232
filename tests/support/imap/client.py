#!/usr/bin/env python3
"""A second IMAP client (Python's imaplib, standard library only) for
starry's IMAP tests: it checks the test Dovecot from outside starry.

  client.py --port P --security tls|starttls|plain --ca CA.pem \
            [--host localhost] --user USER 'ACTION ARGS' ['ACTION ARGS' ...]

The password comes from the environment variable STARRY_IMAP_PASSWORD (not
the command line, where `ps` shows it). The certificate is verified against
the CA file and the host name. It logs in, then runs each action (one
argument each, its words separated by spaces) in the same session:

  capabilities            what the server announces after the login
  list                    the folders
  fetch FOLDER            every message: UID, flags and raw bytes (base64)
  search FOLDER CRITERIA  UID SEARCH CRITERIA (e.g. ALL), with its duration
  flag FOLDER UID FLAG..  UID STORE UID +FLAGS (FLAG..)
  move FOLDER UID TARGET  UID MOVE UID TARGET (TARGET created when missing)

It prints one line of JSON: {"results": [one per action]}, or
{"error": KIND, "message": TEXT} with exit code 1, KIND being tls (the
certificate was refused), auth (the login was refused), io (the connection
failed or was dropped) or imap (any other refusal).
"""

import argparse
import base64
import imaplib
import json
import os
import re
import ssl
import sys
import time


def connect(a):
    ctx = ssl.create_default_context(cafile=a.ca) if a.ca else ssl.create_default_context()
    if a.security == "tls":
        return imaplib.IMAP4_SSL(a.host, a.port, ssl_context=ctx, timeout=30)
    m = imaplib.IMAP4(a.host, a.port, timeout=30)
    if a.security == "starttls":
        m.starttls(ssl_context=ctx)
    return m


def check(typ, data, what):
    if typ != "OK":
        raise imaplib.IMAP4.error("%s: %s %r" % (what, typ, data))
    return data


def action(m, words):
    name, args = words[0], words[1:]
    if name == "capabilities":
        return sorted(m.capabilities)
    if name == "list":
        folders = []
        for line in check(*m.list(), "LIST"):
            # (\\HasNoChildren) "." NAME
            folders.append(re.sub(r'^\([^)]*\) (?:"[^"]*"|NIL) ', "", line.decode()).strip('"'))
        return sorted(folders)
    if name == "fetch":
        check(*m.select(args[0], readonly=True), "SELECT")
        messages = []
        data = check(*m.uid("FETCH", "1:*", "(UID FLAGS BODY.PEEK[])"), "FETCH")
        for item in data:
            if not isinstance(item, tuple):
                continue
            head, raw = item
            uid = int(re.search(rb"UID (\d+)", head).group(1))
            flags = re.search(rb"FLAGS \(([^)]*)\)", head).group(1).decode().split()
            messages.append({"uid": uid, "flags": flags, "raw": base64.b64encode(raw).decode()})
        return messages
    if name == "search":
        check(*m.select(args[0], readonly=True), "SELECT")
        start = time.monotonic()
        data = check(*m.uid("SEARCH", *args[1:]), "SEARCH")
        seconds = time.monotonic() - start
        return {"uids": [int(x) for x in b" ".join(data).split()], "seconds": seconds}
    if name == "flag":
        check(*m.select(args[0]), "SELECT")
        check(*m.uid("STORE", args[1], "+FLAGS", "(%s)" % " ".join(args[2:])), "STORE")
        return "OK"
    if name == "move":
        m.create(args[2])  # NO when it exists: fine
        check(*m.select(args[0]), "SELECT")
        check(*m.uid("MOVE", args[1], args[2]), "MOVE")
        return "OK"
    raise SystemExit("unknown action %r" % name)


def run(a):
    m = connect(a)
    try:
        m.login(a.user, os.environ.get("STARRY_IMAP_PASSWORD", ""))
    except imaplib.IMAP4.error as e:
        return {"error": "auth", "message": str(e)}
    results = [action(m, words.split()) for words in a.actions]
    m.logout()
    return {"results": results}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="localhost")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--security", choices=["tls", "starttls", "plain"], required=True)
    p.add_argument("--ca")
    p.add_argument("--user", required=True)
    p.add_argument("actions", nargs="*")
    a = p.parse_args()
    try:
        out = run(a)
    except ssl.SSLCertVerificationError as e:
        out = {"error": "tls", "message": str(e)}
    except (OSError, EOFError, imaplib.IMAP4.abort) as e:
        out = {"error": "io", "message": "%s: %s" % (type(e).__name__, e)}
    except imaplib.IMAP4.error as e:
        out = {"error": "imap", "message": str(e)}
    print(json.dumps(out), flush=True)
    sys.exit(1 if "error" in out else 0)


if __name__ == "__main__":
    main()
