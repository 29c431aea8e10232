#!/usr/bin/env python3
"""A TCP proxy that drops a connection in the middle of an answer, for
starry's IMAP tests (tests/imap_server/mod.rs, `Dropper`). Standard library
only.

It listens on 127.0.0.1 (--port 0: a free port), prints

    READY <port>

and forwards every connection to 127.0.0.1:<target>, both ways. Once the
client has sent a line containing WORD (ASCII case-insensitive, e.g. FETCH),
it counts the bytes it forwards from the server to the client; when it has
forwarded exactly AFTER of them it cuts both connections (no TLS close_notify,
no IMAP BYE: the connection is simply gone) and prints

    CUT <connection number> <bytes forwarded after the word>

Only the first connection that sends WORD is cut, unless --every: later
connections pass through untouched, so a test can check that a client
recovers.

--front says what the client sees (the target is always spoken to in
plain text, which Dovecot allows from 127.0.0.1):
  plain     the bytes as they are
  tls       implicit TLS with --cert/--key (an IMAPS port)
  starttls  plain until the client's `TAG STARTTLS`, which the proxy answers
            itself (`TAG OK Begin TLS negotiation now.`) before it starts TLS
            with --cert/--key; the target never sees that command
Word matching works on what the client sends inside TLS.

It runs until killed, or until stdin is closed (--exit-on-eof).
"""

import argparse
import asyncio
import itertools
import os
import ssl
import sys
import threading


class Cutter:
    def __init__(self, word, after, every):
        self.word = word.lower().encode()
        self.after = after
        self.every = every
        self.cuts = 0
        self.numbers = itertools.count(1)


async def flushed(writer):
    """Waits (at most 2 s) until what was written has left this process, so
    that exactly the intended bytes reach the client. (Not with a zero
    high-water mark: the TLS transport would then pause writing and never
    resume.)"""
    await writer.drain()
    ssl_protocol = getattr(writer.transport, "_ssl_protocol", None)
    raw = getattr(ssl_protocol, "_transport", None)
    for _ in range(200):
        if writer.transport.get_write_buffer_size() == 0 and (raw is None or raw.get_write_buffer_size() == 0):
            return
        await asyncio.sleep(0.01)


async def handle(cutter, args, tls_context, client_reader, client_writer):
    number = next(cutter.numbers)
    print("CONNECTED %d" % number, flush=True)
    try:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", args.target)
    except OSError as e:
        print("TARGET-REFUSED %d %s" % (number, e), flush=True)
        client_writer.transport.abort()
        return
    state = {"armed": False, "forwarded": 0, "cut": False, "tls": args.front != "starttls", "line": b""}

    def cut():
        if state["cut"]:
            return
        state["cut"] = True
        cutter.cuts += 1
        print("CUT %d %d" % (number, state["forwarded"]), flush=True)
        client_writer.transport.abort()
        up_writer.transport.abort()

    async def client_to_server():
        pending = b""  # only before STARTTLS: whole lines, to catch the command
        while not state["cut"]:
            data = await client_reader.read(65536)
            if not data:
                break
            if not state["tls"]:
                pending += data
                while b"\n" in pending and not state["tls"]:
                    one, pending = pending.split(b"\n", 1)
                    words = one.strip().split()
                    if len(words) == 2 and words[1].upper() == b"STARTTLS":
                        client_writer.write(words[0] + b" OK Begin TLS negotiation now.\r\n")
                        await client_writer.drain()
                        await client_writer.start_tls(tls_context)
                        state["tls"] = True
                        # Clear text sent after STARTTLS is dropped, as a
                        # server must (it could be injected).
                        pending = b""
                    else:
                        await forward(one + b"\n")
                continue
            await forward(data)
        if not state["cut"]:
            up_writer.close()

    async def forward(data):
        # The client's current line, bounded, so that a word split across
        # two reads is still seen.
        lines = (state["line"] + data).split(b"\n")
        state["line"] = lines[-1][-4096:]
        armed_now = False
        if cutter.every or cutter.cuts == 0:
            for complete in lines[:-1]:
                if cutter.word in complete.lower():
                    armed_now = True
        up_writer.write(data)
        await up_writer.drain()
        if armed_now and not state["armed"]:
            state["armed"] = True
            state["forwarded"] = 0
            print("ARMED %d" % number, flush=True)
            if cutter.after == 0:
                cut()

    async def server_to_client():
        while not state["cut"]:
            data = await up_reader.read(65536)
            if not data:
                break
            if state["armed"]:
                room = cutter.after - state["forwarded"]
                if len(data) >= room:
                    client_writer.write(data[:room])
                    state["forwarded"] += room
                    await flushed(client_writer)
                    cut()
                    return
                state["forwarded"] += len(data)
            client_writer.write(data)
            await client_writer.drain()
        if not state["cut"]:
            client_writer.close()

    tasks = [asyncio.ensure_future(client_to_server()), asyncio.ensure_future(server_to_client())]
    try:
        await asyncio.gather(*tasks)
    except (OSError, ssl.SSLError, asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        for t in tasks:
            t.cancel()
        for w in (client_writer, up_writer):
            if not state["cut"]:
                w.transport.abort()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--target", type=int, required=True)
    p.add_argument("--word", required=True)
    p.add_argument("--after", type=int, required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--front", choices=["plain", "tls", "starttls"], default="plain")
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--every", action="store_true", help="cut every connection, not only the first")
    p.add_argument("--exit-on-eof", action="store_true", help="stop when stdin is closed")
    a = p.parse_args()

    tls_context = None
    if a.front != "plain":
        if not (a.cert and a.key):
            p.error("--front %s needs --cert and --key" % a.front)
        if a.front == "starttls" and sys.version_info < (3, 11):
            p.error("--front starttls needs python 3.11 (StreamWriter.start_tls)")
        tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls_context.load_cert_chain(a.cert, a.key)

    cutter = Cutter(a.word, a.after, a.every)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    server = loop.run_until_complete(
        asyncio.start_server(
            lambda r, w: handle(cutter, a, tls_context, r, w),
            host="127.0.0.1",
            port=a.port,
            ssl=tls_context if a.front == "tls" else None,
        )
    )
    print("READY %d" % server.sockets[0].getsockname()[1], flush=True)

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
