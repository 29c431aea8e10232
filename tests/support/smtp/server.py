#!/usr/bin/env python3
"""A small real SMTP server for starry's mail tests, built on aiosmtpd.

Every accepted message is written into a maildir (DIR/new/...), exactly as
received (the DATA bytes). The server listens on 127.0.0.1; with --port 0 (the
default) the system picks a free port. When it is ready it prints one line

    READY <port>

on stdout and flushes it, so a test can read the port and start talking. It
runs until killed (or until stdin is closed, with --exit-on-eof).

Modes:
  plain     no TLS, no authentication
  starttls  STARTTLS required before anything else; AUTH PLAIN/LOGIN required
            (--user/--password) before MAIL; needs --cert/--key
  tls       implicit TLS (the TLS handshake comes first, like port 465); AUTH
            required when --user is given; needs --cert/--key
  drop      plain; answers DATA with 354, reads a few lines of the message and
            then closes the connection in the middle of the message

Options that make it the recipients' own mail server:
  --lmtp-port P     also deliver every accepted message by LMTP (127.0.0.1:P,
                    e.g. a test Dovecot) to the envelope recipients, one by
                    one; a message that LMTP refuses for any recipient is
                    refused (SMTP 451 or 550, LMTP's answers quoted; the
                    recipients before it have it) and not stored in the
                    maildir
  --authserv-id ID  act as the receiving side's MTA (RFC 8601): remove every
                    incoming Authentication-Results header whose authserv-id
                    is ID (a forged one must not survive), then prepend
                      Authentication-Results: ID; spf=pass smtp.mailfrom=SENDER
                    when the session logged in (AUTH) as the envelope sender,
                    or spf=none otherwise
  --user/--password may be given several times (pairs, in order);
  --auth-optional   offer AUTH without requiring it (to see both spf results
                    on one server); in plain mode AUTH is then offered without
                    TLS (loopback only)

Make a certificate that rustls accepts (it refuses CA certificates as server
certificates) with:

  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
    -keyout key.pem -out cert.pem \
    -addext basicConstraints=critical,CA:FALSE \
    -addext subjectAltName=IP:127.0.0.1,DNS:localhost
"""

import argparse
import asyncio
import mailbox
import os
import re
import smtplib
import ssl
import sys
import threading

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def authserv_id_of(value):
    """The authserv-id of an Authentication-Results value (RFC 8601 2.2: the
    first token, after any comments and white space), lower-cased: the
    comparison is case-insensitive. None when there is none."""
    text = value.decode("latin-1")
    while True:
        text = text.lstrip(" \t\r\n")
        if not text.startswith("("):
            break
        depth, i = 0, 0
        for i, c in enumerate(text):
            depth += {"(": 1, ")": -1}.get(c, 0)
            if depth == 0:
                break
        text = text[i + 1 :]
    m = re.match(r"[^\s;()]+", text)
    return m.group(0).lower() if m else None


def stamp_authentication_results(raw, authserv_id, result, sender):
    """The message with every Authentication-Results field claiming to come
    from authserv_id removed, and ours put first (RFC 8601 section 5)."""
    # The header ends at the first empty line (CRLF or LF line ends).
    m = re.search(rb"\r?\n\r?\n", raw)
    if m is None:
        head, body = raw, b""
    else:
        cut = m.start() + (2 if raw[m.start() : m.start() + 1] == b"\r" else 1)
        head, body = raw[:cut], raw[cut:]
    eol = b"\r\n" if b"\r\n" in head or not head else b"\n"
    # Fields, each with its continuation lines.
    fields = []
    for line in re.findall(rb"[^\n]*\n|[^\n]+$", head):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1] += line
        else:
            fields.append(line)
    kept = []
    for field in fields:
        name, colon, value = field.partition(b":")
        if colon and name.strip().lower() == b"authentication-results":
            if authserv_id_of(value) == authserv_id.lower():
                print("REMOVED forged Authentication-Results", flush=True)
                continue
        kept.append(field)
    ours = ("Authentication-Results: %s; spf=%s smtp.mailfrom=%s" % (authserv_id, result, sender)).encode()
    return ours + eol + b"".join(kept) + body


def envelope_address(a):
    return a.strip().strip("<>").lower()


class MaildirHandler:
    def __init__(self, maildir, lmtp_port=None, authserv_id=None):
        self.maildir = mailbox.Maildir(maildir, create=True)
        self.lmtp_port = lmtp_port
        self.authserv_id = authserv_id

    async def handle_DATA(self, server, session, envelope):
        content = envelope.original_content
        if self.authserv_id is not None:
            login = session.auth_data if session.authenticated else None
            if isinstance(login, bytes):
                login = login.decode("utf-8", "replace")
            sender = envelope.mail_from or ""
            spf = "pass" if login is not None and envelope_address(login) == envelope_address(sender) else "none"
            content = stamp_authentication_results(content, self.authserv_id, spf, sender or "<>")
            print("SPF %s from=%s" % (spf, sender), flush=True)
        if self.lmtp_port is not None:
            loop = asyncio.get_running_loop()
            refused = await loop.run_in_executor(None, self.lmtp_deliver, envelope, content)
            if refused:
                print("LMTP-REFUSED %s" % refused, flush=True)
                code = 451 if refused.startswith("4") else 550
                return "%d LMTP delivery failed: %s" % (code, refused)
        self.maildir.add(content)
        print(
            "DELIVERED from=%s to=%s bytes=%d"
            % (envelope.mail_from, ",".join(envelope.rcpt_tos), len(content)),
            flush=True,
        )
        return "250 OK stored"

    def lmtp_deliver(self, envelope, content):
        """Delivers to every recipient; an empty string, or what went wrong
        (each problem starting with the LMTP code)."""
        problems = []
        try:
            with smtplib.LMTP("127.0.0.1", self.lmtp_port, timeout=30) as lmtp:
                # One recipient per transaction: LMTP answers DATA once per
                # recipient, and smtplib reads a single answer.
                for rcpt in envelope.rcpt_tos:
                    try:
                        lmtp.sendmail(envelope.mail_from or "", [rcpt], content)
                        print("LMTP-DELIVERED to=%s" % rcpt, flush=True)
                    except smtplib.SMTPRecipientsRefused as e:
                        for r, (code, msg) in e.recipients.items():
                            problems.append("%d %s: %s" % (code, r, msg.decode("utf-8", "replace")))
                    except smtplib.SMTPResponseException as e:
                        problems.append("%d %s: %s" % (e.smtp_code, rcpt, e.smtp_error.decode("utf-8", "replace")))
        except (OSError, smtplib.SMTPException) as e:
            problems.append("451 %s" % e)
        return "; ".join(problems)


class DropSMTP(SMTP):
    """Accepts DATA, reads a few lines of the message, then hangs up."""

    async def smtp_DATA(self, arg):
        if await self.check_helo_needed():
            return
        if not self.envelope.rcpt_tos:
            await self.push("503 Error: need RCPT command")
            return
        await self.push("354 End data with <CR><LF>.<CR><LF>")
        for _ in range(3):
            await self._reader.readuntil(b"\r\n")
        print("DROPPED in the middle of DATA", flush=True)
        self.transport.abort()


def make_authenticator(accounts):
    """accounts: [(user, password)]"""

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and any(
            auth_data.login == user.encode() and auth_data.password == password.encode()
            for user, password in accounts
        )
        # Never print the password, not even a wrong one.
        print("AUTH %s %s" % (mechanism, "accepted" if ok else "refused"), flush=True)
        # handled=False: let aiosmtpd answer 535 itself on failure; auth_data
        # (the login) becomes session.auth_data, for --authserv-id.
        return AuthResult(success=ok, handled=False, auth_data=auth_data.login if ok else None)

    return authenticator


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", choices=["plain", "starttls", "tls", "drop"], default="plain")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--maildir", required=True)
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--user", action="append", default=[])
    p.add_argument("--password", action="append", default=[])
    p.add_argument("--auth-optional", action="store_true", help="offer AUTH without requiring it")
    p.add_argument("--lmtp-port", type=int, help="also deliver by LMTP to 127.0.0.1:PORT")
    p.add_argument("--authserv-id", help="stamp Authentication-Results as this mail server")
    p.add_argument("--exit-on-eof", action="store_true", help="stop when stdin is closed")
    a = p.parse_args()

    tls_context = None
    if a.mode in ("starttls", "tls"):
        if not (a.cert and a.key):
            p.error("--mode %s needs --cert and --key" % a.mode)
        tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls_context.load_cert_chain(a.cert, a.key)
    if len(a.user) != len(a.password):
        p.error("every --user needs its --password")
    accounts = list(zip(a.user, a.password))

    handler = MaildirHandler(a.maildir, a.lmtp_port, a.authserv_id)

    def factory():
        kwargs = dict(hostname="localhost", ident="starry-test-smtpd")
        if a.mode == "drop":
            return DropSMTP(handler, **kwargs)
        if accounts:
            kwargs.update(
                authenticator=make_authenticator(accounts),
                auth_required=not a.auth_optional,
            )
        if a.mode == "plain":
            if accounts:
                # AUTH in clear text: only ever on 127.0.0.1, for tests.
                return SMTP(handler, auth_require_tls=False, **kwargs)
            return SMTP(handler, **kwargs)
        if a.mode == "starttls":
            return SMTP(handler, tls_context=tls_context, require_starttls=True, auth_require_tls=True, **kwargs)
        # Implicit TLS: the socket is already encrypted, aiosmtpd does not know it.
        return SMTP(handler, auth_require_tls=False, **kwargs)

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    server = loop.run_until_complete(
        loop.create_server(
            factory,
            host="127.0.0.1",
            port=a.port,
            ssl=tls_context if a.mode == "tls" else None,
        )
    )
    port = server.sockets[0].getsockname()[1]
    print("READY %d" % port, flush=True)

    if a.exit_on_eof:
        def watch_stdin():
            sys.stdin.read()
            loop.call_soon_threadsafe(loop.stop)

        threading.Thread(target=watch_stdin, daemon=True).start()

    try:
        loop.run_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        os._exit(0)


if __name__ == "__main__":
    main()
