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
import ssl
import sys
import threading

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


class MaildirHandler:
    def __init__(self, maildir):
        self.maildir = mailbox.Maildir(maildir, create=True)

    async def handle_DATA(self, server, session, envelope):
        self.maildir.add(envelope.original_content)
        print(
            "DELIVERED from=%s to=%s bytes=%d"
            % (envelope.mail_from, ",".join(envelope.rcpt_tos), len(envelope.original_content)),
            flush=True,
        )
        return "250 OK stored"


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


def make_authenticator(user, password):
    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login == user.encode()
            and auth_data.password == password.encode()
        )
        # Never print the password, not even a wrong one.
        print("AUTH %s %s" % (mechanism, "accepted" if ok else "refused"), flush=True)
        # handled=False: let aiosmtpd answer 535 itself on failure.
        return AuthResult(success=ok, handled=False)

    return authenticator


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", choices=["plain", "starttls", "tls", "drop"], default="plain")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--maildir", required=True)
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--user")
    p.add_argument("--password")
    p.add_argument("--exit-on-eof", action="store_true", help="stop when stdin is closed")
    a = p.parse_args()

    tls_context = None
    if a.mode in ("starttls", "tls"):
        if not (a.cert and a.key):
            p.error("--mode %s needs --cert and --key" % a.mode)
        tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls_context.load_cert_chain(a.cert, a.key)
    if a.user is not None and a.password is None:
        p.error("--user needs --password")

    handler = MaildirHandler(a.maildir)

    def factory():
        kwargs = dict(hostname="localhost", ident="starry-test-smtpd")
        if a.mode == "drop":
            return DropSMTP(handler, **kwargs)
        if a.mode == "plain":
            return SMTP(handler, **kwargs)
        if a.user is not None:
            kwargs.update(
                authenticator=make_authenticator(a.user, a.password),
                auth_required=True,
            )
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
