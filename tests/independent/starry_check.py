#!/usr/bin/env python3
"""An independent implementation of the starry log protocol (versions 2 and 3) and
of the rules of Starry Sky, Starry Night and Star Map, written from
docs/protocol.md, docs/starry-sky.md, docs/boards.md, docs/starry-night.md and
docs/star-map.md alone (with the Starry Night example of docs/referee.md as a
self-test; Star Map reads the shipped data files the doc names,
crates/core/src/games/star_map/discs.json and parts.json).  Python 3 standard library
only.

    starry_check.py doc            check the values of protocol.md 9.2 and 9.3 (and the games' docs)
    starry_check.py audit FILE...  audit logs (two or more: also compare them)
    starry_check.py vectors        all of the above against the test vectors
"""
import base64
import datetime
import functools
import glob
import hashlib
import hmac
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ed25519  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# ---------------------------------------------------------------- primitives


def H(x):
    return hashlib.sha256(x).digest()


def enc(f):
    if isinstance(f, str):
        return f.encode()
    return bytes(f)


def LP(*fields):
    out = b""
    for f in fields:
        f = enc(f)
        out += len(f).to_bytes(4, "big") + f
    return out


def lp_hash(*fields):
    return H(LP(*fields))


def lp_hmac(key, *fields):
    return hmac.new(key, LP(*fields), hashlib.sha256).digest()


def u32(x):
    return x.to_bytes(4, "big")


def u64(x):
    return x.to_bytes(8, "big")


CHAIN_LEN = 1024


def step(x):
    return lp_hash("starry/1 link", x)


def signing_seed(master):
    return lp_hmac(master, "starry/1 ed25519")


def game_secret(master, game_id, nonce):
    return lp_hmac(master, "starry/1 game secret", game_id, nonce)


def chain_seed(secret):
    return lp_hmac(secret, "starry/1 beacon chain")


def chain_link(seed, i):
    x = seed
    for _ in range(i):
        x = step(x)
    return x


def salt(secret, entry, slot):
    return lp_hmac(secret, "starry/1 salt", u64(entry), u32(slot))


def commitment(game_id, key, entry, slot, value_bytes, salt_):
    return lp_hash("starry/1 commitment", game_id, key, u64(entry), u32(slot), value_bytes, salt_)


def entry_message(body_bytes):
    return LP("starry/1 entry", body_bytes)


class Draw:
    """Section 6.1: a stream of uniform choices from a 32-byte seed."""

    def __init__(self, seed):
        self.seed = seed
        self.block = 0
        self.buf = b""

    def next_u64(self):
        if not self.buf:
            self.buf = lp_hash("starry/1 stream", self.seed, u64(self.block))
            self.block += 1
        x, self.buf = self.buf[:8], self.buf[8:]
        return int.from_bytes(x, "big")

    def below(self, n):
        m = 2 ** 64 - 1
        zone = m - ((m % n) + 1) % n
        while True:
            x = self.next_u64()
            if x <= zone:
                return x % n

    def pick(self, lst):
        return lst.pop(self.below(len(lst)))

    def shuffle(self, lst):
        for i in range(len(lst) - 1, 0, -1):
            j = self.below(i + 1)
            lst[i], lst[j] = lst[j], lst[i]


def setup_seed(game_id, links):
    return lp_hash("starry/1 setup", game_id, *links)


def draw_seed(cause_id, event_id, link):
    return lp_hash("starry/1 draw", cause_id, u64(event_id), link)


# ------------------------------------------------------------ canonical JSON


class Fault(Exception):
    def __init__(self, name, entry, detail):
        super().__init__(f"{name} at entry {entry}: {detail}")
        self.name, self.entry, self.detail = name, entry, detail


class Float:
    """A JSON number with a fraction or exponent (never canonical)."""

    def __init__(self, text):
        self.text = text


class Obj(dict):
    duplicate = False


def _pairs(pairs):
    o = Obj()
    for k, v in pairs:
        if k in o:
            o.duplicate = True
        o[k] = v
    return o


def _no_constant(name):
    raise ValueError(f"not JSON: {name}")


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_float=Float, parse_constant=_no_constant)


def parse_json(text):
    """Parse JSON strictly enough: raises ValueError for anything not JSON."""
    v = _DECODER.decode(text)
    _check_strings(v)
    return v


def _check_strings(v):
    # Python accepts lone surrogates in \u escapes; they are not Unicode text.
    if isinstance(v, str):
        v.encode("utf-8")
    elif isinstance(v, dict):
        for k, x in v.items():
            k.encode("utf-8")
            _check_strings(x)
    elif isinstance(v, list):
        for x in v:
            _check_strings(x)


_ESC = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def canon_str(s):
    out = ['"']
    for c in s:
        if c in _ESC:
            out.append(_ESC[c])
        elif ord(c) < 0x20:
            out.append("\\u%04x" % ord(c))
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


class NotCanonical(Exception):
    pass


def canon(v):
    """The canonical encoding (section 3.1) of a parsed value, as a str."""
    if isinstance(v, Obj) and v.duplicate:
        raise NotCanonical("a key appears twice")
    if v is None:
        raise NotCanonical("a null")
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        if not -(2 ** 63) <= v < 2 ** 64:
            raise NotCanonical("an integer out of the 64-bit range")
        return str(v)
    if isinstance(v, Float):
        raise NotCanonical(f"a number that is not an integer: {v.text}")
    if isinstance(v, str):
        return canon_str(v)
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-8"))
        return "{" + ",".join(canon_str(k) + ":" + canon(v[k]) for k in keys) + "}"
    raise TypeError(type(v))


def canon_bytes(v):
    return canon(v).encode("utf-8")


# ------------------------------------------------------------- line shapes

HEX64 = re.compile(r"[0-9a-f]{64}\Z")
TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z\Z", re.ASCII)
KINDS = ("genesis", "join", "ready", "move", "reveal", "resign", "countersign", "abandon")
U32, U64 = 2 ** 32 - 1, 2 ** 64 - 1
MAX_DEADLINE = 366 * 86400
MAX_DEPTH = 32  # protocol.md 3.1: objects and arrays, the line itself is level 1


def too_deep(raw):
    """Whether a line's JSON nests deeper than MAX_DEPTH (brackets inside strings do not count)."""
    depth, in_str, esc = 0, False, False
    for b in raw:
        if in_str:
            if esc:
                esc = False
            elif b == 0x5C:
                esc = True
            elif b == 0x22:
                in_str = False
        elif b == 0x22:
            in_str = True
        elif b in (0x5B, 0x7B):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif b in (0x5D, 0x7D):
            depth = max(0, depth - 1)
    return False


def seconds(t):
    """A valid log time as seconds since 1970 (proleptic Gregorian, UTC)."""
    y, mo, d, h, mi, s = map(int, TIME.match(t).groups())
    days = (datetime.date(y, mo, d) - datetime.date(1970, 1, 1)).days
    return days * 86400 + h * 3600 + mi * 60 + s

# Unicode White_Space (what Rust's char::is_whitespace uses).
WHITE = set(map(chr, [*range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
                      0x2028, 0x2029, 0x202F, 0x205F, 0x3000]))
BIDI = set(map(chr, [0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, *range(0x180B, 0x1810), 0x200B, 0x200E, 0x200F, *range(0x2028, 0x202F), *range(0x2060, 0x2070), 0x3164, 0xFEFF, 0xFFA0, *range(0xFFF9, 0xFFFC), *range(0xE0000, 0xE0080)]))
EMAIL_LOCAL = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-/=^_{|}~.")
EMAIL_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\Z", re.ASCII)


class Malformed(Exception):
    pass


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def present(obj, key):
    # A null for an optional field reads as absent (it is caught as
    # non-canonical in S3); see the report.
    return key in obj and obj[key] is not None


def need_keys(obj, required, optional=(), what="object"):
    if not isinstance(obj, dict):
        raise Malformed(f"{what} is not an object")
    for k in required:
        if k not in obj:
            raise Malformed(f"{what} lacks `{k}`")
    for k in obj:
        if k not in required and k not in optional:
            raise Malformed(f"{what} has an unexpected key `{k}`")


def need_int(v, hi, what, lo=0):
    if isinstance(v, Float):
        return  # not an integer: refused by S3 as non-canonical
    if not is_int(v):
        raise Malformed(f"{what} is not an integer")
    if not lo <= v <= hi:
        raise Malformed(f"{what} is out of range")


def need_hash(v, what):
    if not isinstance(v, str) or not HEX64.match(v):
        raise Malformed(f"{what} is not a hash (64 lower-case hex digits)")


def need_str(v, what):
    if not isinstance(v, str):
        raise Malformed(f"{what} is not a string")


def check_time(t):
    need_str(t, "time")
    m = TIME.match(t)
    if not m or len(t) != 20:
        raise Malformed(f"time {t!r} is not of the form YYYY-MM-DDTHH:MM:SSZ")
    y, mo, d, h, mi, s = map(int, m.groups())
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if not (1 <= mo <= 12 and 1 <= d <= days[mo - 1] and h <= 23 and mi <= 59 and s <= 59):
        raise Malformed(f"time {t!r} is not a real date and time")


def is_noncharacter(o):
    """A Unicode noncharacter (protocol.md 3.4): U+FDD0-U+FDEF and the last
    two code points of each plane, U+xFFFE and U+xFFFF."""
    return 0xFDD0 <= o <= 0xFDEF or o & 0xFFFE == 0xFFFE


def name_fault(name):
    """Why `name` breaks the rule for names of protocol.md 3.4 (players' and
    boards' names alike), or None."""
    if not 1 <= len(name) <= 64:
        return f"name {name!r} is not 1 to 64 characters"
    if all(c in WHITE for c in name):
        return f"name {name!r} is only white space"
    if name[0] in WHITE or name[-1] in WHITE:
        return f"name {name!r} has white space at an end"
    for c in name:
        o = ord(c)
        if o < 0x20 or 0x7F <= o <= 0x9F or c in BIDI:
            return f"name {name!r} holds the character U+{o:04X}"
        if is_noncharacter(o):
            return f"name {name!r} holds the noncharacter U+{o:04X}"
    return None


def check_name(name):
    need_str(name, "name")
    why = name_fault(name)
    if why:
        raise Malformed(why)


def check_email(e):
    need_str(e, "email")
    if not e.isascii() or len(e) > 254 or e.count("@") != 1:
        raise Malformed(f"e-mail address {e!r} is not ASCII LOCAL@DOMAIN of at most 254 bytes")
    local, domain = e.split("@")
    if not (1 <= len(local) <= 64 and all(c in EMAIL_LOCAL for c in local)
            and not local.startswith(".") and not local.endswith(".") and ".." not in local):
        raise Malformed(f"e-mail address {e!r} has a bad local part")
    if not all(EMAIL_LABEL.match(lbl) for lbl in domain.split(".")):
        raise Malformed(f"e-mail address {e!r} has a bad domain")


def check_opening(o, what):
    need_keys(o, ("entry", "salt", "slot", "value"), what=what)
    need_int(o["entry"], U64, f"{what}.entry")
    need_hash(o["salt"], f"{what}.salt")
    need_int(o["slot"], U32, f"{what}.slot")


def check_list(v, what):
    if not isinstance(v, list):
        raise Malformed(f"{what} is not an array")
    return v


def check_shape(line):
    """S2: the shape of section 3 (everything but canonical form)."""
    need_keys(line, ("body", "sig"), what="the line")
    need_str(line["sig"], "sig")
    body = line["body"]
    if not isinstance(body, dict):
        raise Malformed("body is not an object")
    kind = body.get("kind")
    if kind not in KINDS:
        raise Malformed(f"unknown kind {kind!r}")
    # A null for an optional field reads as absent here; S3 refuses it.
    body = {k: v for k, v in body.items() if not (k in ("game", "prev", "link") and v is None)}
    required = ["author", "data", "kind", "n", "time"]
    if kind != "genesis":
        required += ["game", "prev"]
    if kind not in ("genesis", "join"):
        required.append("link")
    need_keys(body, required, what="body")
    need_int(body["author"], U32, "author")
    need_int(body["n"], U64, "n")
    check_time(body["time"])
    for k in ("game", "prev", "link"):
        if k in body:
            need_hash(body[k], k)
    d = body["data"]
    if kind == "genesis":
        need_keys(d, ("creator_key", "game", "nonce", "options", "protocol", "rules", "seats"), ("deadline",), what="data")
        need_hash(d["creator_key"], "creator_key")
        need_str(d["game"], "game")
        need_hash(d["nonce"], "nonce")
        need_int(d["protocol"], U64, "protocol", lo=-(2 ** 63))
        need_int(d["rules"], U64, "rules", lo=-(2 ** 63))
        if present(d, "deadline"):
            # protocol.md 3.4: version 3 on, 1 s to 366 days
            if is_int(d["protocol"]) and d["protocol"] < 3:
                raise Malformed("a protocol 2 genesis has no deadline")
            need_int(d["deadline"], MAX_DEADLINE, "deadline", lo=1)
        emails = set()
        for i, seat in enumerate(check_list(d["seats"], "seats")):
            need_keys(seat, ("email", "name"), ("key", "operator"), what=f"seat {i}")
            if present(seat, "key"):
                need_hash(seat["key"], f"seat {i} key")
            if present(seat, "operator"):
                need_int(seat["operator"], U32, f"seat {i} operator")
            check_name(seat["name"])
            check_email(seat["email"])
            if seat["email"].lower() in emails:
                raise Malformed(f"e-mail address {seat['email']!r} appears twice")
            emails.add(seat["email"].lower())
        check_operators(d)
    elif kind == "join":
        need_keys(d, ("key", "nonce", "tip"), ("notify",), what="data")
        for k in ("key", "nonce", "tip"):
            need_hash(d[k], k)
        # `all` is the default and is written by leaving the key out.
        if present(d, "notify"):
            if d["notify"] == "all":
                raise NotCanonical("join data: notify \"all\" is written by leaving it out")
            if d["notify"] != "turn":
                raise Malformed(f"join data: notify must be \"turn\" or absent, not {d['notify']!r}")
    elif kind == "ready":
        need_keys(d, (), what="data")
    elif kind == "move":
        need_keys(d, ("action", "commitments", "reveals"), what="data")
        for i, c in enumerate(check_list(d["commitments"], "commitments")):
            need_hash(c, f"commitment {i}")
        for i, o in enumerate(check_list(d["reveals"], "reveals")):
            check_opening(o, f"opening {i}")
    elif kind in ("reveal", "resign"):
        need_keys(d, ("reveals",), what="data")
        for i, o in enumerate(check_list(d["reveals"], "reveals")):
            check_opening(o, f"opening {i}")
    elif kind == "abandon":
        need_keys(d, ("awaited", "silent"), what="data")
        need_int(d["awaited"], U64, "awaited")
        need_int(d["silent"], U32, "silent")
    elif kind == "countersign":
        need_keys(d, ("final",), what="data")
        need_hash(d["final"], "final")


def check_operators(d):
    """protocol.md 3.4: a computer seat's operator (protocol 3 on) is
    another seat, a person (no operator itself), seat 0 has none, and an
    operated seat is pinned."""
    seats = d["seats"]
    for i, seat in enumerate(seats):
        if not present(seat, "operator") or isinstance(seat["operator"], Float):
            continue
        op = seat["operator"]
        if is_int(d["protocol"]) and d["protocol"] < 3:
            raise Malformed("a protocol 2 genesis has no operator")
        if i == 0:
            raise Malformed("seat 0 has an operator")
        if op == i:
            raise Malformed(f"seat {i} is its own operator")
        if op >= len(seats):
            raise Malformed(f"seat {i}'s operator {op} is not a seat")
        if present(seats[op], "operator"):
            raise Malformed(f"seat {i}'s operator {op} is a computer seat itself")
        if not present(seat, "key"):
            raise Malformed(f"seat {i} has an operator but no pinned key")


def decode_sig(s):
    """The 64 bytes of a canonical standard base64 signature, else None."""
    if len(s) != 88 or not re.fullmatch(r"[A-Za-z0-9+/]{86}==", s):
        return None
    raw = base64.b64decode(s)
    if len(raw) != 64 or base64.b64encode(raw).decode() != s:
        return None
    return raw


# ---------------------------------------------------------------- Starry Sky

TOKENS = ("1", "3", "5", "6", "7", "10", "bh", "ds")
HELD = {t: (2 if t == "ds" else 1) for t in TOKENS}  # how many of each one set holds
HAND = 9
ID_RE = re.compile(r"[a-z0-9-]+\Z", re.ASCII)


class Board:
    def __init__(self, bid, name, prizes, large, lines):
        self.id, self.name, self.prizes, self.large = bid, name, prizes, large
        self.nbrs = {s: set() for s in range(1, len(large) + 1)}
        for a, b in lines:
            self.nbrs[a].add(b)
            self.nbrs[b].add(a)

    @property
    def size(self):
        return len(self.large)


def read_board(b, i):
    """A board object of boards.md; raises (fault, detail)."""
    where = f"board {i}"
    if not isinstance(b, dict):
        raise ValueError(f"{where} is not an object")
    for k in b:
        if k not in ("id", "name", "prizes", "stars", "lines"):
            raise ValueError(f"{where}: unknown field `{k}`")
    for k in ("id", "name", "prizes", "stars", "lines"):
        if k not in b:
            raise ValueError(f"{where}: missing field `{k}`")
    bid, name, prizes, stars, lines = b["id"], b["name"], b["prizes"], b["stars"], b["lines"]
    if not isinstance(bid, str) or not ID_RE.match(bid):
        raise ValueError(f"{where}: bad id")
    if not isinstance(name, str) or name_fault(name):
        raise ValueError(f"{where}: bad name")
    if not (isinstance(prizes, list) and len(prizes) == 2 and all(is_int(p) for p in prizes)
            and prizes[0] >= prizes[1] >= 0):
        raise ValueError(f"{where}: bad prizes")
    if not isinstance(stars, list) or not 2 <= len(stars) <= 10:
        raise ValueError(f"{where}: stars must be 2 to 10")
    large = []
    for j, s in enumerate(stars):
        if not isinstance(s, dict) or set(s) != {"at", "large"}:
            raise ValueError(f"{where}: star {j + 1} must have exactly `at` and `large`")
        at = s["at"]
        if not (isinstance(at, list) and len(at) == 2 and all(is_int(x) and 0 <= x <= 100 for x in at)):
            raise ValueError(f"{where}: star {j + 1}: bad `at`")
        if not isinstance(s["large"], bool):
            raise ValueError(f"{where}: star {j + 1}: bad `large`")
        large.append(s["large"])
    if not isinstance(lines, list):
        raise ValueError(f"{where}: bad lines")
    seen = set()
    for ln in lines:
        if not (isinstance(ln, list) and len(ln) == 2 and all(is_int(x) and 1 <= x <= len(stars) for x in ln)):
            raise ValueError(f"{where}: bad line {ln!r}")
        if ln[0] == ln[1] or frozenset(ln) in seen:
            raise ValueError(f"{where}: line {ln!r} joins a star to itself or appears twice")
        seen.add(frozenset(ln))
    return Board(bid, name, tuple(prizes), large, [tuple(x) for x in lines])


def default_boards():
    with open(os.path.join(ROOT, "crates/core/src/games/starry_sky/boards.json"), encoding="utf-8") as f:
        return [read_board(b, i) for i, b in enumerate(json.load(f)["boards"])]


class Token:
    def __init__(self, seat, entry, value, star):
        self.seat, self.entry, self.value, self.star = seat, entry, value, star  # value None: face down
        self.face = "up" if value is not None else "down"
        self.scored = None  # entry that scored its board


class Slot:
    def __init__(self, board):
        self.status = "open"
        self.board = board  # index into the board list
        self.stars = {}  # star number -> Token
        self.draw = None  # the Draw request replacing it (when scoring/pending)
        self.completer = None


class Request:
    def __init__(self, event, causer, cause_id, slot):
        self.event, self.causer, self.cause_id, self.slot = event, causer, cause_id, slot
        self.board = None  # the drawn board index once resolved


class StarrySky:
    """The rules of docs/starry-sky.md, rules version 1."""

    HIDDEN = TOKENS  # the values a commitment may open to
    unit = "coins"  # what the standings count

    def __init__(self, options, nseats):
        """Raises Fault-like (code, detail) for S12 of line 0."""
        self.n = nseats
        if not 3 <= nseats <= 5:
            raise GameError("illegal-move", f"{nseats} seats: Starry Sky takes 3 to 5")
        if not isinstance(options, dict):
            raise GameError("illegal-move", "options are not an object")
        for k in options:
            if k not in ("boards", "doubling", "tie"):
                raise GameError("illegal-move", f"unknown option `{k}`")
        if "doubling" in options and options["doubling"] not in ("additive", "compound"):
            raise GameError("illegal-move", f"unknown doubling {options['doubling']!r}")
        if "tie" in options and options["tie"] not in ("coins", "nothing"):
            raise GameError("illegal-move", f"unknown tie {options['tie']!r}")
        if "boards" in options:
            if not isinstance(options["boards"], list):
                raise GameError("illegal-move", "boards is not an array")
            try:
                self.boards = [read_board(b, i) for i, b in enumerate(options["boards"])]
            except ValueError as e:
                raise GameError("illegal-move", str(e))
        else:
            self.boards = default_boards()
        if "doubling" not in options or "tie" not in options:
            raise GameError("non-canonical", "options leave out `doubling` or `tie`")
        self.doubling, self.tie = options["doubling"], options["tie"]
        ids = [b.id for b in self.boards]
        if len(set(ids)) != len(ids):
            raise GameError("illegal-move", "two boards share an id")
        bound = sum(b.size for b in self.boards) + (nseats - 1) * len(self.boards)
        if 2 * bound + nseats + 4 > CHAIN_LEN:
            raise GameError("illegal-move", f"the options could outlast a beacon chain (bound {bound})")
        if len(self.boards) < 3 or len(self.boards) < nseats:
            raise GameError("illegal-move", "fewer boards than 3 or than seats")
        self.coins = [0] * nseats
        self.slots = []
        self.stack = []
        self.next_event = 0
        self.scored = []
        self.tokens = [[] for _ in range(nseats)]  # every token a seat ever placed
        self.turn = None  # ("move", seat) / ("reveal", seat) / None when over
        self.reveal_queue = []
        self.scoring_slot = None
        self.over = None  # "finished" / "stalled"
        self.log = []  # human-readable notes of draws and scorings

    # -- setup
    def setup(self, seed):
        d = Draw(seed)
        lst = list(range(len(self.boards)))
        for _ in range(self.n):
            self.slots.append(Slot(d.pick(lst)))
        self.stack = lst
        self.turn = ("move", 0)
        self.log.append("deal: " + ", ".join(f"slot {i} {self.boards[s.board].id}" for i, s in enumerate(self.slots))
                        + "; stack " + str([self.boards[i].id for i in self.stack]))

    # -- derived state
    def in_play(self, slot):
        return slot.status in ("open", "scoring")

    def hand(self, seat):
        return HAND - sum(1 for sl in self.slots if self.in_play(sl) for t in sl.stars.values() if t.seat == seat)

    def pending(self):
        out = []
        for sl in self.slots:
            if sl.status in ("scoring", "pending") and sl.draw is not None and sl.draw.board is None:
                out.append(sl.draw)
        return sorted(out, key=lambda r: r.event)

    def can_move(self, seat):
        if self.hand(seat) == 0:
            return False
        return any(sl.status == "open" or (sl.status == "pending" and sl.draw.causer != seat) for sl in self.slots)

    def awaited(self):
        return None if self.turn is None else self.turn[1]

    # -- resolution (R4)
    def resolve(self, seat, entry_link):
        for req in self.pending():
            if req.causer == seat:
                continue
            d = Draw(draw_seed(req.cause_id, req.event, entry_link))
            req.board = d.pick(self.stack)
            sl = self.slots[req.slot]
            self.log.append(f"draw {req.event} resolved: {self.boards[req.board].id} for slot {req.slot}")
            if sl.status == "pending":
                self._open(sl, req.board)

    def _open(self, sl, board):
        sl.status, sl.board, sl.stars, sl.draw, sl.completer = "open", board, {}, None, None

    # -- the action object (C1.1)
    def read_action(self, action):
        if not isinstance(action, dict):
            raise GameError("illegal-move", "the action is not an object")
        for k in action:
            if k not in ("star", "token"):
                raise GameError("illegal-move", f"the action has an unknown field `{k}`")
        if "star" not in action or not isinstance(action["star"], str):
            raise GameError("illegal-move", "the action has no star")
        token = action.get("token")
        if "token" in action and token not in TOKENS:
            raise GameError("illegal-move", f"unknown token {token!r}")
        bid, sep, num = action["star"].rpartition(":")
        if not sep or not num.isascii() or not num.isdigit():
            raise GameError("illegal-move", f"unknown star {action['star']!r}")
        if str(int(num)) != num:
            raise GameError("non-canonical", f"star {action['star']!r} is not written as the game writes it")
        return bid, int(num), token

    # -- C2
    def check_held(self, seat, values, entry):
        for t in sorted(set(values), key=TOKENS.index):
            spans = [(tk.entry, tk.scored if tk.scored is not None else float("inf"))
                     for tk in self.tokens[seat] if tk.value == t and tk.face != "down"]
            for start, _ in spans:
                if sum(1 for a, b in spans if a <= start <= b) > HELD[t]:
                    raise GameError("impossible-token",
                                    f"seat {seat} could not have held token {t!r} (more than {HELD[t]} out at entry {start})")

    # -- entries
    def face_down_on(self, seat, sl):
        return sorted((t for t in sl.stars.values() if t.seat == seat and t.face == "down"), key=lambda t: t.entry)

    def check_opening_set(self, seat, sl, openings):
        want = [(t.entry, 0) for t in self.face_down_on(seat, sl)] if sl is not None else []
        got = [(o["entry"], o["slot"]) for o in openings]
        if got != want:
            raise GameError("bad-reveal", f"the openings {got} are not the seat's face-down tokens {want} on the board being scored")

    def turn_over(self, seat, openings, values):
        by_entry = {t.entry: t for t in self.tokens[seat] if t.face == "down"}
        for o, v in zip(openings, values):
            tk = by_entry[o["entry"]]
            tk.value, tk.face = v, "revealed"

    def move(self, seat, entry, entry_id, link, action, commitments, openings, values):
        self.resolve(seat, link)
        bid, num, token = self.read_action(action)
        slot_i = next((i for i, sl in enumerate(self.slots) if sl.status == "open" and self.boards[sl.board].id == bid), None)
        if slot_i is None:
            raise GameError("illegal-move", f"no open board {bid!r}")
        sl = self.slots[slot_i]
        board = self.boards[sl.board]
        if not 1 <= num <= board.size:
            raise GameError("illegal-move", f"board {bid} has no star {num}")
        if num in sl.stars:
            raise GameError("illegal-move", f"star {bid}:{num} is occupied")
        if self.hand(seat) == 0:
            raise GameError("illegal-move", "no token in hand")
        completes = len(sl.stars) == board.size - 1
        down = board.large[num - 1] and not completes
        if down:
            if token is not None or len(commitments) != 1:
                raise GameError("illegal-move", "a large star takes its token face down: no token named, one commitment")
        else:
            if token is None or len(commitments) != 0:
                raise GameError("illegal-move", "this star takes its token face up: a token named, no commitment")
            out = sum(1 for s2 in self.slots if self.in_play(s2) for t in s2.stars.values()
                      if t.seat == seat and t.face != "down" and t.value == token)
            if out >= HELD[token]:
                raise GameError("illegal-move", f"token {token!r} is not in hand")
        tk = Token(seat, entry, token, (slot_i, num))
        sl.stars[num] = tk
        self.tokens[seat].append(tk)
        self.check_opening_set(seat, sl if completes else None, openings)
        self.turn_over(seat, openings, values)
        self.check_held(seat, values, entry)
        if not completes:
            self.pass_turn(seat, entry)
            return
        # R1: a replacement draw
        P = len(self.pending())
        sl.status, sl.completer = "scoring", seat
        if len(self.stack) > P:
            sl.draw = Request(self.next_event, seat, entry_id, slot_i)
            self.log.append(f"entry {entry} requests draw {self.next_event} (slot {slot_i})")
            self.next_event += 1
        self.scoring_slot = slot_i
        self.reveal_queue = [(seat + i) % self.n for i in range(1, self.n) if self.face_down_on((seat + i) % self.n, sl)]
        self.after_reveal(entry)

    def reveal(self, seat, entry, link, openings, values):
        self.resolve(seat, link)
        sl = self.slots[self.scoring_slot]
        self.check_opening_set(seat, sl, openings)
        self.turn_over(seat, openings, values)
        self.check_held(seat, values, entry)
        self.reveal_queue.pop(0)
        self.after_reveal(entry)

    def after_reveal(self, entry):
        if self.reveal_queue:
            self.turn = ("reveal", self.reveal_queue[0])
            return
        sl = self.slots[self.scoring_slot]
        self.scoring_slot = None
        self.score(sl, entry)
        for t in sl.stars.values():
            t.scored = entry
        self.scored.append(sl.board)
        completer = sl.completer
        if sl.draw is None:
            sl.status, sl.stars = "empty", {}
        elif sl.draw.board is None:
            sl.status, sl.stars = "pending", {}
        else:
            self._open(sl, sl.draw.board)
        self.pass_turn(completer, entry)

    def pass_turn(self, x, entry):
        if len(self.scored) == len(self.boards):
            self.over, self.turn = "finished", None
            return
        for i in range(1, self.n + 1):
            s = (x + i) % self.n
            if self.can_move(s):
                self.turn = ("move", s)
                return
        self.over, self.turn = "stalled", None

    def resign(self, seat, entry, openings, values):
        self.turn_over(seat, openings, values)
        self.check_held(seat, values, entry)
        self.turn = None

    # -- P1-P8
    def score(self, sl, entry):
        board = self.boards[sl.board]
        toks = dict(sl.stars)
        pair = [s for s, t in toks.items() if t.value == "bh" and any(toks.get(m) and toks[m].value == "bh" for m in board.nbrs[s])]
        for s in pair:
            del toks[s]
        swallowed = [s for s in toks if any(toks.get(m) and toks[m].value == "bh" for m in board.nbrs[s])]
        for s in swallowed:
            del toks[s]
        total = [0] * self.n
        left = [0] * self.n
        for s, t in toks.items():
            left[t.seat] += 1
            if t.value in ("bh", "ds"):
                continue
            k = sum(1 for m in board.nbrs[s] if toks.get(m) and toks[m].value == "ds")
            v = int(t.value)
            if k:
                v = v * 2 * k if self.doubling == "additive" else v * 2 ** k
            total[t.seat] += v
        r = sorted((s for s in range(self.n) if left[s] > 0), key=lambda s: (-total[s], -left[s], s))
        key = lambda s: (total[s], left[s])  # noqa: E731
        F, S = board.prizes
        gain = [0] * self.n
        before = list(self.coins)
        if not r:
            pass
        elif len(r) == 1:
            gain[r[0]] += F + S
        elif key(r[0]) == key(r[1]):
            if self.tie == "coins":
                for s in r:
                    gain[s] += left[s]
        elif len(r) >= 3 and key(r[1]) == key(r[2]):
            gain[r[0]] += F
            for s in r[1:]:
                gain[s] += left[s]
        else:
            gain[r[0]] += F
            gain[r[1]] += S
            purse = max(before[r[0]], 0) + F
            for s in r[2:]:
                by_first = min(left[s], purse)
                purse -= by_first
                gain[s] += left[s]
                gain[r[0]] -= by_first
        for s in range(self.n):
            self.coins[s] += gain[s]
        self.log.append(f"entry {entry} scores {board.id}: totals {total}, left {left}, gains {gain}, coins {self.coins}")

    # -- standings (E2-E5)
    def standings(self, last=None):
        seats = [s for s in range(self.n) if s != last]
        out = sorted(((1 + sum(1 for o in seats if self.coins[o] > self.coins[s]), s, self.coins[s]) for s in seats))
        if last is not None:
            out.append((self.n, last, self.coins[last]))
        return out


class GameError(Exception):
    def __init__(self, fault, detail):
        super().__init__(detail)
        self.fault, self.detail = fault, detail


# -------------------------------------------------------------- Starry Night
#
# docs/starry-night.md, rules version 1.  Points are (x, y), x to the right,
# y downwards; every predicate is exact integer arithmetic.


def orient(p, q, r):
    return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])


def strictly_inside(r, p, q):
    """r lies strictly inside the segment pq (docs: "Edges")."""
    if orient(p, q, r) != 0:
        return False
    dot = (r[0] - p[0]) * (q[0] - p[0]) + (r[1] - p[1]) * (q[1] - p[1])
    return 0 < dot < (q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2


def _on_box(p, q, r):
    """r, collinear with pq, lies in pq's bounding box."""
    return min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1])


def segments_meet(p1, p2, p3, p4):
    """The closed segments p1p2 and p3p4 share a point."""
    d1, d2 = orient(p3, p4, p1), orient(p3, p4, p2)
    d3, d4 = orient(p1, p2, p3), orient(p1, p2, p4)
    if ((d1 > 0 > d2) or (d1 < 0 < d2)) and ((d3 > 0 > d4) or (d3 < 0 < d4)):
        return True
    return ((d1 == 0 and _on_box(p3, p4, p1)) or (d2 == 0 and _on_box(p3, p4, p2))
            or (d3 == 0 and _on_box(p1, p2, p3)) or (d4 == 0 and _on_box(p1, p2, p4)))


def _angle_cmp(a, b):
    """Order of directions (dx, dy): from the positive x axis turning towards
    the positive y axis; the half-plane dy > 0 or (dy = 0 and dx > 0) first."""
    ha = 0 if a[1] > 0 or (a[1] == 0 and a[0] > 0) else 1
    hb = 0 if b[1] > 0 or (b[1] == 0 and b[0] > 0) else 1
    if ha != hb:
        return ha - hb
    c = a[0] * b[1] - a[1] * b[0]
    return -1 if c > 0 else (1 if c < 0 else 0)


def winding(points, p):
    """Winding number of the closed walk through `points` around p (p on no
    edge of the walk).  A walk of positive shoelace area winds +1."""
    wn = 0
    m = len(points)
    for i in range(m):
        a, b = points[i], points[(i + 1) % m]
        if a[1] <= p[1]:
            if b[1] > p[1] and orient(a, b, p) > 0:
                wn += 1
        elif b[1] <= p[1] and orient(a, b, p) < 0:
            wn -= 1
    return wn


def night_label(i):
    """Spreadsheet-column label of index i: A … Z, AA … (docs: "Labels")."""
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(ord("A") + r) + s
    return s


def reading_key(p):
    return (p[1], p[0])


class Face:
    """One boundary walk (docs: "The drawing as a map")."""

    def __init__(self, walk, stars):
        self.walk = walk  # directed edges (u, v), star indices
        self.key = frozenset(walk)  # a sea is identified by its border walk
        self.points = [stars[u] for u, _ in walk]
        self.area2 = sum(stars[u][0] * stars[v][1] - stars[v][0] * stars[u][1] for u, v in walk)


def night_map(stars, edges):
    """Faces of the drawing, recomputed from scratch.  Returns (seas, seas
    with an island (keys), components) -- seas are the walks of positive area."""
    n = len(stars)
    nbrs = [[] for _ in range(n)]
    for a, b in edges:
        nbrs[a].append(b)
        nbrs[b].append(a)
    order, pos = [], []
    for v in range(n):
        vx, vy = stars[v]
        o = sorted(nbrs[v], key=functools.cmp_to_key(
            lambda a, b: _angle_cmp((stars[a][0] - vx, stars[a][1] - vy), (stars[b][0] - vx, stars[b][1] - vy))))
        order.append(o)
        pos.append({u: i for i, u in enumerate(o)})
    seen = set()
    faces = []
    for a, b in edges:
        for start in ((a, b), (b, a)):
            if start in seen:
                continue
            walk = []
            u, v = start
            while (u, v) not in seen:
                seen.add((u, v))
                walk.append((u, v))
                w = order[v][pos[v][u] - 1]  # the neighbour of v just before u
                u, v = v, w
            if (u, v) != start:
                raise AssertionError("a boundary walk does not close on its first edge")
            faces.append(Face(walk, stars))
    # components (union-find)
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        parent[find(a)] = find(b)
    comps = {}
    for s in range(n):
        comps.setdefault(find(s), []).append(s)
    seas = [f for f in faces if f.area2 > 0]
    sea_comp = [find(f.walk[0][0]) for f in seas]
    with_island = set()
    for root, members in comps.items():
        s = stars[members[0]]
        inside = [f for f, c in zip(seas, sea_comp) if c != root and winding(f.points, s) != 0]
        if inside:
            with_island.add(min(inside, key=lambda f: f.area2).key)
    return seas, with_island, comps


class StarryNight:
    """The rules of docs/starry-night.md, rules version 1."""

    HIDDEN = ()  # nothing in Starry Night is hidden: no value can be opened
    MAX_STARS = 200
    MAX_REQUESTS = 3

    def __init__(self, options, nseats):
        self.n = nseats
        self.unit = None
        if nseats != 2:
            raise GameError("illegal-move", f"{nseats} seats: Starry Night takes exactly 2")
        if not isinstance(options, dict):
            raise GameError("illegal-move", "options are not an object")
        for k in options:
            if k not in ("score", "sky"):
                raise GameError("illegal-move", f"unknown option `{k}`")
        if "score" in options and options["score"] not in ("count", "area"):
            raise GameError("illegal-move", f"unknown score {options['score']!r}")
        if "sky" not in options:
            raise GameError("illegal-move", "the options have no sky")  # no default sky is documented
        sky = options["sky"]
        if not isinstance(sky, dict) or len(sky) != 1 or next(iter(sky)) not in ("stars", "random"):
            raise GameError("illegal-move", "sky must be an object with exactly one of `stars` or `random`")
        kind, spec = next(iter(sky.items()))
        fields = ("count", "height", "width") if kind == "random" else ("height", "stars", "width")
        if not isinstance(spec, dict):
            raise GameError("illegal-move", f"sky.{kind} is not an object")
        for k in spec:
            if k not in fields:
                raise GameError("illegal-move", f"sky.{kind} has an unknown field `{k}`")
        for k in fields:
            if k not in spec:
                raise GameError("illegal-move", f"sky.{kind} lacks `{k}`")
        w, h = spec["width"], spec["height"]
        if not (is_int(w) and is_int(h) and 1 <= w <= 100 and 1 <= h <= 100):
            raise GameError("illegal-move", "width and height must be 1 to 100 grid points")
        self.width, self.height = w, h
        if kind == "random":
            c = spec["count"]
            if not is_int(c) or not 3 <= c <= self.MAX_STARS:
                raise GameError("illegal-move", f"a sky has 3 to {self.MAX_STARS} stars")
            if c > w * h:
                raise GameError("illegal-move", f"{c} stars do not fit on {w}x{h} grid points")
            self.count, self.given = c, None
        else:
            lst = spec["stars"]
            if not isinstance(lst, list) or not 3 <= len(lst) <= self.MAX_STARS:
                raise GameError("illegal-move", f"a sky has 3 to {self.MAX_STARS} stars")
            pts = []
            for p in lst:
                if not (isinstance(p, list) and len(p) == 2 and all(is_int(x) for x in p)):
                    raise GameError("illegal-move", f"star {p!r} is not [x, y]")
                if not (0 <= p[0] < w and 0 <= p[1] < h):
                    raise GameError("illegal-move", f"star {p!r} is off the {w}x{h} grid")
                pts.append((p[0], p[1]))
            if len(set(pts)) != len(pts):
                raise GameError("illegal-move", "two stars on one point")
            self.count, self.given = len(pts), pts
        if "score" not in options:
            raise GameError("non-canonical", "options leave out `score` (the default is written out)")
        # `sky.stars` in any order is accepted: the doc's conditions on a sky
        # are the count, distinct points and the grid, and the stars are put
        # in reading order (for the labels) when the game starts.
        self.score_kind = options["score"]
        self.unit = "seas" if self.score_kind == "count" else "half squares"
        bound = self.bound(self.count)
        if 2 * bound + nseats + 4 > CHAIN_LEN:
            raise GameError("illegal-move", f"the options could outlast a beacon chain (bound {bound}, {self.count} stars)")
        self.stars = []  # points in reading order
        self.index = {}  # point -> star index
        self.edges = []  # (a, b, seat, entry), in the order drawn
        self.captured = {}  # walk key -> dict(captor, area2, points, edge)
        self.seas = []
        self.requests_left = [self.MAX_REQUESTS] * nseats
        self.takebacks = []  # [entry, seat, answer or None, answer entry]
        self.first = None  # (seat that chose, the chosen seat, entry)
        self.phase = None  # "first" / "edge" / "answer"
        self.turn = None
        self.over = None
        self.last_mover = None
        self.anomalies = []  # places where the position contradicts a claim of the doc
        self.log = []

    @staticmethod
    def bound(nstars):
        """docs "Length of a game": the choice, 3N - 6 edges, 4 entries per request."""
        return 1 + (3 * nstars - 6) + 4 * 2 * StarryNight.MAX_REQUESTS

    # -- setup
    def setup(self, seed):
        if self.given is not None:
            pts = list(self.given)
        else:
            d = Draw(seed)
            free = [(x, y) for y in range(self.height) for x in range(self.width)]
            pts = [d.pick(free) for _ in range(self.count)]
        self.stars = sorted(pts, key=reading_key)
        self.index = {p: i for i, p in enumerate(self.stars)}
        self.phase, self.turn = "first", ("move", 1)
        self.log.append("sky: " + " ".join(f"{night_label(i)}={list(p)}" for i, p in enumerate(self.stars)))
        self.recompute()

    def awaited(self):
        return None if self.turn is None else self.turn[1]

    # -- the position
    def joined(self, a, b):
        return any({a, b} == {e[0], e[1]} for e in self.edges)

    def isolated(self):
        touched = {e[0] for e in self.edges} | {e[1] for e in self.edges}
        return [i for i in range(len(self.stars)) if i not in touched]

    def refusal(self, a, b):
        """Why the edge a-b is illegal (docs "Edges", rules 1-5), or None."""
        if a == b:
            return "rule 1: an edge joins two different stars"
        if self.joined(a, b):
            return "rule 2: the stars are joined already"
        p, q = self.stars[a], self.stars[b]
        for i, r in enumerate(self.stars):
            if i not in (a, b) and strictly_inside(r, p, q):
                return f"rule 3: star {list(r)} lies on the segment"
        for e in self.edges:
            if {a, b} & {e[0], e[1]}:
                continue
            if segments_meet(p, q, self.stars[e[0]], self.stars[e[1]]):
                return f"rule 4: the segment meets the edge {list(self.stars[e[0]])}-{list(self.stars[e[1]])}"
        mid2 = (p[0] + q[0], p[1] + q[1])  # twice the midpoint: the open segment lies in one face
        for cap in self.captured.values():
            if winding([(2 * x, 2 * y) for x, y in cap["points"]], mid2) != 0:
                return "rule 5: the edge lies inside a captured sea"
        return None

    def recompute(self):
        """Rebuild the captures by drawing every edge again in its order, by
        the same players (after an accepted takeback)."""
        self.captured = {}
        self.seas = []
        for i in range(len(self.edges)):
            self.capture(i)

    def capture(self, i):
        """The faces after edge i, from scratch, and the simple rule of
        "Capturing": each sea with no island that was not captured before is
        captured by the player who drew the edge (a sea is identified by its
        border walk)."""
        drawn = [(e[0], e[1]) for e in self.edges[:i + 1]]
        seas, with_island, _ = night_map(self.stars, drawn)
        keys = {f.key for f in seas}
        if any(k not in keys for k in self.captured):
            self.anomalies.append(f"edge {i + 1}: a captured sea changed its border walk")
        new = [f for f in seas if f.key not in with_island and f.key not in self.captured]
        if len(new) > 1:
            self.anomalies.append(f"edge {i + 1}: one edge captured {len(new)} seas")
        for f in new:
            if f.area2 <= 0:
                self.anomalies.append(f"edge {i + 1}: a captured sea without a positive area")
            self.captured[f.key] = {"captor": self.edges[i][2], "area2": f.area2, "points": f.points,
                                    "edge": i, "stars": [u for u, _ in f.walk]}
        self.seas = seas

    def score(self, seat):
        caps = [c for c in self.captured.values() if c["captor"] == seat]
        return len(caps) if self.score_kind == "count" else sum(c["area2"] for c in caps)

    def has_legal_edge(self):
        iso = set(self.isolated())
        n = len(self.stars)
        pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
        pairs.sort(key=lambda ab: (not ({ab[0], ab[1]} & iso),
                                   (self.stars[ab[0]][0] - self.stars[ab[1]][0]) ** 2
                                   + (self.stars[ab[0]][1] - self.stars[ab[1]][1]) ** 2))
        return any(self.refusal(a, b) is None for a, b in pairs)

    # -- the action object
    def read_point(self, p):
        if not (isinstance(p, list) and len(p) == 2 and all(is_int(x) for x in p)):
            raise GameError("illegal-move", f"{canon(p) if not isinstance(p, Float) else p.text} is not a point [x, y]")
        if (p[0], p[1]) not in self.index:
            raise GameError("illegal-move", f"there is no star at {p}")
        return self.index[(p[0], p[1])]

    def read_action(self, action):
        if not isinstance(action, dict):
            raise GameError("illegal-move", "the action is not an object")
        if len(action) != 1 or next(iter(action)) not in ("first", "edge", "takeback"):
            raise GameError("illegal-move", "the action must have exactly one of `first`, `edge`, `takeback`")
        kind, v = next(iter(action.items()))
        if kind == "first":
            if not is_int(v) or v not in (0, 1):
                raise GameError("illegal-move", f"first {v!r}: a seat is 0 or 1")
            return kind, v
        if kind == "takeback":
            if v not in ("request", "accept", "decline"):
                raise GameError("illegal-move", f"unknown takeback {v!r}")
            return kind, v
        if not isinstance(v, list) or len(v) != 2:
            raise GameError("illegal-move", "an edge is [[x1,y1],[x2,y2]]")
        return kind, (self.read_point(v[0]), self.read_point(v[1]))

    # -- entries
    def move(self, seat, entry, entry_id, link, action, commitments, openings, values):
        kind, v = self.read_action(action)
        other = 1 - seat
        if self.phase == "first":
            if kind != "first":
                raise GameError("illegal-move", "seat 1 must first choose who moves first")
        elif self.phase == "answer":
            if kind != "takeback" or v == "request":
                raise GameError("illegal-move", "a takeback request must be answered with accept or decline")
        elif kind == "first":
            raise GameError("illegal-move", "the first player has been chosen already")
        elif kind == "takeback" and v != "request":
            raise GameError("illegal-move", f"no takeback request to {v}")
        if kind == "edge":
            a, b = v
            why = self.refusal(a, b)
            if why is not None:
                raise GameError("illegal-move", f"edge {action['edge']}: {why}")
        if kind == "takeback" and v == "request":
            if len(self.edges) < 2:
                raise GameError("illegal-move", "a takeback needs at least two edges on the sky")
            if self.requests_left[seat] == 0:
                raise GameError("illegal-move", f"seat {seat} has no takeback requests left")
        if commitments:
            # protocol.md §8 S12 names "wrong number of commitments" an illegal
            # move; starry-night.md names no fault ("A move carries no
            # commitments").  (The engine was seen to answer bad-reveal.)
            raise GameError("illegal-move", "a Starry Night move carries no commitments")
        if openings:
            raise GameError("bad-reveal", "a Starry Night move opens nothing")
        # apply
        if kind == "first":
            self.first = (seat, v, entry)
            self.phase, self.turn = "edge", ("move", v)
            self.log.append(f"entry {entry}: seat {seat} chooses seat {v} to move first")
            return
        if kind == "takeback":
            if v == "request":
                self.requests_left[seat] -= 1
                self.takebacks.append([entry, seat, None, None])
                self.phase, self.turn = "answer", ("move", other)
                return
            tb = self.takebacks[-1]
            tb[2], tb[3] = ("accepted" if v == "accept" else "declined"), entry
            if v == "accept":
                del self.edges[-2:]
                self.recompute()
            self.phase, self.turn = "edge", ("move", other)  # the requester moves
            self.log.append(f"entry {entry}: takeback of entry {tb[0]} {tb[2]}")
            return
        a, b = v
        before = len(self.captured)
        self.edges.append((a, b, seat, entry))
        self.capture(len(self.edges) - 1)
        self.last_mover = seat
        got = len(self.captured) - before
        self.log.append(f"entry {entry}: seat {seat} draws {night_label(a)}-{night_label(b)}"
                        + (f", captures {got} sea(s)" if got else ""))
        if not self.isolated():
            self.over, self.turn, self.phase = "finished", None, None
        elif not self.has_legal_edge():
            self.over, self.turn, self.phase = "stalled", None, None
        else:
            self.turn = ("move", other)

    def reveal(self, seat, entry, link, openings, values):
        raise GameError("out-of-turn", "nothing in Starry Night is hidden: a reveal is always refused")

    def resign(self, seat, entry, openings, values):
        self.turn, self.phase = None, None

    # -- standings ("Scores and result")
    def standings(self, last=None):
        sc = [self.score(s) for s in range(self.n)]
        if last is not None:
            o = 1 - last
            return [(1, o, sc[o]), (2, last, sc[last])]
        if self.over and sc[0] == sc[1] and self.last_mover is not None:
            w = self.last_mover
            return [(1, w, sc[w]), (2, 1 - w, sc[1 - w])]
        return sorted((1 + sum(1 for o in range(self.n) if sc[o] > sc[s]), s, sc[s]) for s in range(self.n))

    def summary(self):
        """What `status`/`audit` show: the choice, the takebacks, the captures."""
        out = []
        if self.first:
            out.append(f"seat {self.first[0]} chose seat {self.first[1]} to move first (entry {self.first[2]})")
        for e, s, ans, ae in self.takebacks:
            out.append(f"takeback requested by seat {s} at entry {e}: " + (f"{ans} at entry {ae}" if ans else "unanswered"))
        caps = sorted(self.captured.values(), key=lambda c: c["edge"])
        out.append(f"{len(self.edges)} edges, {len(caps)} seas captured: " + ", ".join(
            f"{''.join(night_label(i) for i in c['stars'])} by seat {c['captor']} ({c['area2']} half squares)" for c in caps))
        return out


# ------------------------------------------------------------------ Star Map
#
# docs/star-map.md, rules version 1.  A square is (x, y): x = 0 to 11 the
# columns a-l from the left, y = 0 to 11 the rows 1-12 from the top.

MAP_SHAPES = ("corner", "three", "two", "one")
MAP_OFFSETS = {"corner": ((0, 0), (1, 0), (0, 1)), "three": ((0, 0), (1, 0), (2, 0)),
               "two": ((0, 0), (1, 0)), "one": ((0, 0),)}
MAP_SHAPE_COUNTS = (("corner", 12), ("three", 12), ("two", 16), ("one", 16))
MAP_ROTATIONS = (0, 90, 180, 270)
MAP_SIDES = ("bonus", "symbols")
MAP_KEYWORDS = ("random", "easy", "hard", "mixed")
MAP_N = 12
MAP_COLUMNS = "abcdefghijkl"
MAP_SQUARE_RE = re.compile(r"([a-l])([1-9]|1[0-2])\Z", re.ASCII)
MAP_CENTRE = ((5, 5), (6, 5), (5, 6), (6, 6))  # f6 g6 f7 g7
MAP_START_ELBOW = {0: (5, 5), 90: (6, 5), 180: (6, 6), 270: (5, 6)}  # f6 g6 g7 f7
MAP_NEIGHBOURS = ((0, -1), (-1, 0), (1, 0), (0, 1))  # up, left, right, down
MAP_DIAGONALS = ((-1, -1), (1, -1), (-1, 1), (1, 1))  # up-left, up-right, down-left, down-right
PLAIN = ("plain",)


def map_rotate(off, r):
    """The rotation table of docs/star-map.md ("Discs"): clockwise on the map."""
    dx, dy = off
    return {0: (dx, dy), 90: (-dy, dx), 180: (-dx, -dy), 270: (dy, -dx)}[r]


def map_name(sq):
    return f"{MAP_COLUMNS[sq[0]]}{sq[1] + 1}"


def map_square(name):
    m = MAP_SQUARE_RE.match(name)
    return (MAP_COLUMNS.index(m.group(1)), int(m.group(2)) - 1)


def map_on(sq):
    return 0 <= sq[0] < MAP_N and 0 <= sq[1] < MAP_N


def map_reading(sq):
    return (sq[1], sq[0])


def _data_error(detail):
    return GameError("illegal-move", f"rule data: {detail}")


def _exact_keys(obj, keys, what):
    if not isinstance(obj, dict):
        raise _data_error(f"{what} is not an object")
    for k in obj:
        if k not in keys:
            raise _data_error(f"{what} has an unknown key `{k}`")
    for k in keys:
        if k not in obj:
            raise _data_error(f"{what} lacks `{k}`")


def read_disc_file(obj):
    """A disc file (docs "Data files", rules 1-5).  Returns (stars, discs):
    stars a list of (code, name), discs a list of (shape, fields), each field
    a star code or None."""
    _exact_keys(obj, ("discs", "stars"), "the disc file")
    stars, discs = obj["stars"], obj["discs"]
    if not isinstance(stars, list) or not isinstance(discs, list):
        raise _data_error("`stars` and `discs` are arrays")
    if len(stars) != 7:  # 1
        raise _data_error(f"{len(stars)} stars, not 7")
    out_stars = []
    for i, s in enumerate(stars):  # 2
        _exact_keys(s, ("code", "name"), f"star {i}")
        code, name = s["code"], s["name"]
        if not (isinstance(code, str) and len(code) == 1 and "A" <= code <= "Z"):
            raise _data_error(f"star {i}: code {code!r} is not one letter A-Z")
        if not (isinstance(name, str) and 1 <= len(name) <= 16 and all(c == "-" or "a" <= c <= "z" for c in name)):
            raise _data_error(f"star {i}: name {name!r} is not 1 to 16 of a-z and -")
        if any(code == c or name == nm for c, nm in out_stars):
            raise _data_error(f"star {i}: its code or name is an earlier star's")
        out_stars.append((code, name))
    codes = [c for c, _ in out_stars]
    out_discs = []
    for i, d in enumerate(discs):  # 3
        _exact_keys(d, ("fields", "shape"), f"disc {i}")
        shape, fields = d["shape"], d["fields"]
        if shape not in MAP_SHAPES:
            raise _data_error(f"disc {i}: unknown shape {shape!r}")
        if not isinstance(fields, str) or len(fields) != len(MAP_OFFSETS[shape]):
            raise _data_error(f"disc {i}: `fields` is not {len(MAP_OFFSETS[shape])} characters")
        if any(c != "." and c not in codes for c in fields):
            raise _data_error(f"disc {i}: a field is neither a star code nor `.`")
        if all(c == "." for c in fields):
            raise _data_error(f"disc {i}: every field is empty")
        out_discs.append((shape, tuple(None if c == "." else c for c in fields)))
    shapes = [s for s, _ in out_discs]
    if sorted(shapes) != sorted(s for s, k in MAP_SHAPE_COUNTS for _ in range(k)):  # 4
        raise _data_error("the discs are not 12 corner, 12 three, 16 two and 16 one")
    if shapes != [s for s, k in MAP_SHAPE_COUNTS for _ in range(k)]:  # 5
        raise _data_error("the discs are not listed corners, threes, twos, ones")
    return out_stars, out_discs


def read_map_token(t, codes, side):
    if t == ".":
        return PLAIN
    if len(t) == 1 and "1" <= t <= "9":
        return ("bonus", int(t))
    if side == "symbols":
        if t == "#":
            return ("meteorite",)
        if len(t) == 2 and t[0] in "=!" and t[1] in codes:
            return ("only" if t[0] == "=" else "not", t[1])
    return None


def read_part_file(obj, codes):
    """A part file (docs "Data files", rules 6-7).  Returns {id: {side: [9
    kinds]}}.  A row's squares may be separated by any white space: the
    options keep a custom file whole (see the report)."""
    _exact_keys(obj, ("parts",), "the part file")
    parts = obj["parts"]
    if not isinstance(parts, list):
        raise _data_error("`parts` is not an array")
    if len(parts) != 16:  # 6
        raise _data_error(f"{len(parts)} parts, not 16")
    out = {}
    for i, p in enumerate(parts):  # 7
        _exact_keys(p, ("bonus", "id", "symbols"), f"part {i}")
        pid = p["id"]
        if not is_int(pid) or not 1 <= pid <= 16 or pid in out:
            raise _data_error(f"part {i}: id {pid!r} is not 1 to 16, or an earlier part's")
        sides = {}
        for side in MAP_SIDES:
            rows = p[side]
            if not isinstance(rows, list) or len(rows) != 3:
                raise _data_error(f"part {pid} {side}: not 3 rows")
            kinds = []
            for row in rows:
                if not isinstance(row, str):
                    raise _data_error(f"part {pid} {side}: a row is not a string")
                toks = "".join(" " if c in WHITE else c for c in row).split(" ")
                toks = [t for t in toks if t]  # white space: Unicode's White_Space, as protocol.md 3.4
                if len(toks) != 3:
                    raise _data_error(f"part {pid} {side}: row {row!r} is not 3 squares")
                for t in toks:
                    k = read_map_token(t, codes, side)
                    if k is None:
                        raise _data_error(f"part {pid} {side}: square {t!r} is not allowed")
                    kinds.append(k)
            sides[side] = kinds
        out[pid] = sides
    return out


@functools.lru_cache(maxsize=None)
def _shipped_map_file(name):
    with open(os.path.join(ROOT, "crates/core/src/games/star_map", name), "rb") as f:
        raw = f.read()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    return raw.decode("utf-8")


def shipped_map_data():
    stars, discs = read_disc_file(parse_json(_shipped_map_file("discs.json")))
    parts = read_part_file(parse_json(_shipped_map_file("parts.json")), [c for c, _ in stars])
    return stars, discs, parts


class StarMap:
    """The rules of docs/star-map.md, rules version 1."""

    HIDDEN = ()  # nothing in Star Map is hidden
    unit = "points"

    def __init__(self, options, nseats):
        self.n = nseats
        if not 2 <= nseats <= 4:
            raise GameError("illegal-move", f"{nseats} seats: Star Map takes 2 to 4")
        if not isinstance(options, dict):
            raise GameError("illegal-move", "rule option: the options are not an object")
        for k in options:
            if k not in ("discs", "map", "parts"):
                raise GameError("illegal-move", f"rule option: unknown option `{k}`")
        stars, discs, parts = shipped_map_data()
        if "discs" in options:
            stars, discs = read_disc_file(options["discs"])
        codes = [c for c, _ in stars]
        if "parts" in options:
            parts = read_part_file(options["parts"], codes)
        elif "discs" in options:
            # the shipped parts must name stars of the custom disc file (rule 7)
            parts = read_part_file(parse_json(_shipped_map_file("parts.json")), codes)
        self.stars, self.discs, self.parts = stars, discs, parts
        m = options.get("map")
        self.layout = None
        if "map" not in options:
            pass
        elif isinstance(m, str):
            if m not in MAP_KEYWORDS:
                raise GameError("illegal-move", f"rule map: unknown map {m!r}")
        elif isinstance(m, dict) and list(m) == ["layout"] and isinstance(m["layout"], list):
            lay = m["layout"]
            if len(lay) != 16:
                raise GameError("illegal-move", f"rule map: a layout of {len(lay)} places, not 16")
            out = []
            for i, e in enumerate(lay):
                if not (isinstance(e, dict) and sorted(e) == ["part", "side"] and is_int(e["part"])
                        and e["side"] in MAP_SIDES):
                    raise GameError("illegal-move", f"rule map: layout place {i} is not {{part, side}}")
                out.append((e["part"], e["side"]))
            if sorted(p for p, _ in out) != list(range(1, 17)):
                raise GameError("illegal-move", "rule map: the layout does not name each part 1 to 16 once")
            self.layout = out
        else:
            raise GameError("illegal-move", f"rule map: a map is a keyword or {{\"layout\": [...]}}")
        if "map" not in options:
            raise GameError("non-canonical", "options leave out `map` (the default is written out)")
        self.map_kind = m if isinstance(m, str) else "layout"
        bound = self.bound(len(self.discs))
        if 2 * bound + nseats + 4 > CHAIN_LEN:
            raise GameError("illegal-move", f"the options could outlast a beacon chain (bound {bound})")
        self.teams = False  # set up with four seats
        self.squares = [PLAIN] * (MAP_N * MAP_N)
        self.covered = {}  # square -> (disc, star code or None)
        self.stacks = {s: [] for s in MAP_SHAPES}
        self.hands = [[] for _ in range(nseats)]
        self.points = [0] * nseats
        self.passes = [0] * nseats
        self.pending = None  # dict(event, causer, cause_id, shape)
        self.moves = 0
        self.placed = 0  # discs placed besides the start disc
        self.start = None
        self.turn = None
        self.over = None
        self.withdrawn = None
        self.last = None  # ("place", seat, drew shape or None) / ("pass", seat)
        self.anomalies = []  # places where the position contradicts a claim of the doc
        self.log = []

    @staticmethod
    def bound(ndiscs):
        """docs "Length of a game": a placement per disc but the start disc, a pass after each."""
        return 2 * (ndiscs - 1)

    # -- setup (docs "Setup", steps 1-5)
    def setup(self, seed):
        d = Draw(seed)
        if self.layout is None:
            parts = list(range(1, 17))
            d.shuffle(parts)
            if self.map_kind == "easy":
                sides = ["bonus"] * 16
            elif self.map_kind == "hard":
                sides = ["symbols"] * 16
            elif self.map_kind == "mixed":
                sides = ["bonus"] * 8 + ["symbols"] * 8
                d.shuffle(sides)
            else:
                sides = [MAP_SIDES[d.below(2)] for _ in range(16)]
            self.layout = list(zip(parts, sides))
        for p, (part, side) in enumerate(self.layout):
            for i, kind in enumerate(self.parts[part][side]):
                x, y = 3 * (p % 4) + i % 3, 3 * (p // 4) + i // 3
                self.squares[12 * y + x] = kind
        for sq in MAP_CENTRE:
            self.squares[12 * sq[1] + sq[0]] = PLAIN
        for i, (shape, _) in enumerate(self.discs):
            self.stacks[shape].append(i)
        disc = d.pick(self.stacks["corner"])
        rot = MAP_ROTATIONS[d.below(4)]
        sqs = self.squares_of(disc, MAP_START_ELBOW[rot], rot)
        for sq, f in zip(sqs, self.discs[disc][1]):
            self.covered[sq] = (disc, f)
        self.start = (disc, rot, sqs)
        for s in range(self.n):
            for shape in ("corner", "three", "two", "two", "one", "one"):
                self.hands[s].append(d.pick(self.stacks[shape]))
        self.teams = self.n == 4
        self.log.append(f"layout {self.layout_text()}; start disc {disc} {self.fields_text(disc)} at r{rot}; "
                        f"hands {self.hands}; stacks left {[len(self.stacks[s]) for s in MAP_SHAPES]}")
        self.first_turn()

    def layout_text(self):
        rows = [" ".join(f"{p}{s[0]}" for p, s in self.layout[r * 4:r * 4 + 4]) for r in range(4)]
        return " / ".join(rows)

    def fields_text(self, disc):
        return "".join(f or "." for f in self.discs[disc][1])

    def first_turn(self):
        """W1 (and step 5 of the setup)."""
        for s in range(self.n):
            if self.can_place(s):
                self.turn = ("move", s)
                return
        self.over, self.turn = "finished", None

    def awaited(self):
        return None if self.turn is None else self.turn[1]

    # -- placing (docs "Placing a disc")
    def squares_of(self, disc, at, rot):
        return [(at[0] + dx, at[1] + dy) for dx, dy in (map_rotate(o, rot) for o in MAP_OFFSETS[self.discs[disc][0]])]

    def refusal(self, disc, at, rot):
        """(rule, detail) of the first of rules 1-5 the placement breaks, or None."""
        sqs = self.squares_of(disc, at, rot)
        fields = self.discs[disc][1]
        if not all(map_on(s) for s in sqs):
            return ("map-edge", "a field lies off the map")
        for s in sqs:
            if s in self.covered:
                return ("overlap", f"{map_name(s)} is covered")
        if not any((s[0] + dx, s[1] + dy) in self.covered for s in sqs for dx, dy in MAP_NEIGHBOURS):
            corner = next((q for q in ((s[0] + dx, s[1] + dy) for s in sqs for dx, dy in MAP_DIAGONALS)
                           if q in self.covered), None)
            return ("start-disc" if self.placed == 0 else "contact", "the disc touches no disc along an edge"
                    + (f" (only at a corner, {map_name(corner)})" if corner else ""))
        for s, f in zip(sqs, fields):
            if f is None:
                continue
            for dx, dy in MAP_NEIGHBOURS:
                c = self.covered.get((s[0] + dx, s[1] + dy))
                if c is not None and c[1] is not None and c[1] != f:
                    return ("match", f"{f} on {map_name(s)} would touch {c[1]} on {map_name((s[0] + dx, s[1] + dy))}")
        for s, f in zip(sqs, fields):
            k = self.squares[12 * s[1] + s[0]]
            if k[0] == "only" and f != k[1]:
                return ("star-square", f"{map_name(s)} takes only {k[1]}")
            if k[0] == "not" and f == k[1]:
                return ("crossed-out-star", f"{map_name(s)} refuses {k[1]}")
            if k[0] == "meteorite" and f is not None:
                return ("meteorite", f"{map_name(s)} is a meteorite")
        return None

    def legal_placements(self, discs, first_only=False):
        """The legal placements of some discs, each disc, rotation and square
        once (a one with r0 only); a legal placement has a field on a free
        neighbour of a covered square (rule 3), so only those are tried."""
        front = set()
        for (x, y) in self.covered:
            for dx, dy in MAP_NEIGHBOURS:
                q = (x + dx, y + dy)
                if map_on(q) and q not in self.covered:
                    front.add(q)
        found, tried = 0, set()
        for disc in discs:
            shape, fields = self.discs[disc]
            if first_only and (shape, fields) in tried:
                continue
            tried.add((shape, fields))
            for rot in ((0,) if shape == "one" else MAP_ROTATIONS):
                offs = [map_rotate(o, rot) for o in MAP_OFFSETS[shape]]
                for at in sorted({(fx - ox, fy - oy) for fx, fy in front for ox, oy in offs}):
                    if self.refusal(disc, at, rot) is None:
                        found += 1
                        if first_only:
                            return found
        return found

    def can_place(self, seat):
        return self.legal_placements(self.hands[seat], first_only=True) > 0

    # -- scoring (docs "Scoring"), after the disc is laid
    def group(self, sq):
        star = self.covered[sq][1]
        seen, todo = {sq}, [sq]
        while todo:
            x, y = todo.pop()
            for dx, dy in MAP_NEIGHBOURS:
                q = (x + dx, y + dy)
                c = self.covered.get(q)
                if q not in seen and c is not None and c[1] == star:
                    seen.add(q)
                    todo.append(q)
        return seen

    def score(self, sqs, fields):
        groups, of = [], {}
        for s, f in zip(sqs, fields):
            if f is None or s in of:
                continue
            g = self.group(s)
            groups.append((f, sorted(g, key=map_reading)))
            for q in g:
                of[q] = len(g)
        points = sum(len(g) for _, g in groups if len(g) >= 3)
        bonuses = []
        for s, f in zip(sqs, fields):
            k = self.squares[12 * s[1] + s[0]]
            if k[0] == "bonus":
                earned = f is not None and of[s] >= 3
                bonuses.append((map_name(s), k[1], earned))
                if earned:
                    points += k[1]
        return points, groups, bonuses

    def stack_left(self, shape):
        n = len(self.stacks[shape])
        return n - 1 if self.pending is not None and self.pending["shape"] == shape else n

    # -- random events (docs "Drawing")
    def resolve(self, seat, link, seed=None):
        """The pending draw of another seat, resolved by `seat`'s entry with
        this link (or, as `starry rules replay` gives it, its seed)."""
        p = self.pending
        if p is None or p["causer"] == seat:
            return
        if seed is None:
            seed = draw_seed(p["cause_id"], p["event"], link)
        disc = Draw(seed).pick(self.stacks[p["shape"]])
        self.hands[p["causer"]].append(disc)
        self.pending = None
        self.log.append(f"draw {p['event']} resolved: disc {disc} {self.fields_text(disc)} to seat {p['causer']}")

    # -- the action object (docs "Moves")
    def read_action(self, action):
        if action == "pass":
            return ("pass",)
        if not isinstance(action, dict) or list(action) != ["place"]:
            raise GameError("illegal-move", "the action is neither \"pass\" nor {\"place\": …}")
        p = action["place"]
        if not isinstance(p, dict):
            raise GameError("illegal-move", "`place` is not an object")
        for k in p:
            if k not in ("at", "disc", "draw", "rotation"):
                raise GameError("illegal-move", f"`place` has an unknown field `{k}`")
        for k in ("at", "disc", "rotation"):
            if k not in p:
                raise GameError("illegal-move", f"`place` lacks `{k}`")
        at, disc, rot = p["at"], p["disc"], p["rotation"]
        if not isinstance(at, str) or not at.isascii() or not MAP_SQUARE_RE.match(at.lower()):
            raise GameError("illegal-move", f"{canon(at) if not isinstance(at, Float) else at.text} is not a square a1 … l12")
        if at != at.lower():
            # Not in docs/star-map.md, which says only "SQUARE is a1 … l12 in
            # lower case" and "or 12 when it is one written differently": the
            # vector star-map-square-in-upper-case.jsonl reads `G5` as the
            # square g5, written otherwise than the game writes it (see the report).
            raise GameError("non-canonical", f"square {at!r} is written {at.lower()!r} by the game")
        if not is_int(disc):
            raise GameError("illegal-move", "`disc` is not a disc index")
        if rot not in MAP_ROTATIONS or not is_int(rot):
            raise GameError("illegal-move", f"rotation {rot if not isinstance(rot, Float) else rot.text} is not 0, 90, 180 or 270")
        draw = p.get("draw")
        if "draw" in p and draw not in MAP_SHAPES:
            raise GameError("illegal-move", f"unknown draw {draw!r}")
        return ("place", map_square(at), disc, rot, draw)

    # -- entries (docs "Checks, in order")
    def move(self, seat, entry, entry_id, link, action, commitments, openings, values):
        self.resolve(seat, link)  # 1
        act = self.read_action(action)
        if commitments:  # 2
            raise GameError("illegal-move", "rule commitments: a Star Map move carries no commitments")
        if openings:
            raise GameError("bad-reveal", "rule nothing-hidden: a Star Map move opens nothing")
        if self.pending is not None:
            raise GameError("illegal-move", "rule draw: the mover's own draw is still pending")
        if self.over:  # 3
            raise GameError("illegal-move", "rule over: the game is over")
        if self.turn != ("move", seat):
            raise GameError("out-of-turn", f"rule turn: seat {self.awaited()} is to move")
        if act[0] == "pass":  # 5
            if self.can_place(seat):
                raise GameError("illegal-move", f"rule pass: seat {seat} has a legal placement")
            if not (self.last and self.last[0] == "place" and self.last[2] is not None):
                self.anomalies.append(f"entry {entry}: a pass not right after a placement that requested a draw")
            self.moves += 1
            self.passes[seat] += 1
            self.last = ("pass", seat)
            self.log.append(f"entry {entry}: seat {seat} passes")
            self.next_turn(seat)
            return
        _, at, disc, rot, draw = act  # 4
        if not 0 <= disc < len(self.discs) or disc not in self.hands[seat]:
            raise GameError("illegal-move", f"rule hand: disc {disc} is not in seat {seat}'s hand")
        if self.discs[disc][0] == "one" and rot != 0:
            raise GameError("illegal-move", f"rule rotation: a one is not turned: its rotation is 0, not {rot}")
        why = self.refusal(disc, at, rot)
        if why is not None:
            raise GameError("illegal-move", f"rule {why[0]}: disc {disc} at {map_name(at)} r{rot}: {why[1]}")
        shape = self.discs[disc][0]
        if self.stack_left(shape) > 0:
            if draw is not None:
                raise GameError("illegal-move", f"rule draw: the {shape} stack has discs: no stack to choose")
            drew = shape
        elif any(self.stack_left(s) > 0 for s in MAP_SHAPES):
            if draw is None or self.stack_left(draw) == 0:
                raise GameError("illegal-move", f"rule draw: the {shape} stack is empty: name a stack with discs left")
            drew = draw
        else:
            if draw is not None:
                raise GameError("illegal-move", "rule draw: every stack is empty")
            drew = None
        # apply
        self.hands[seat].remove(disc)
        sqs = self.squares_of(disc, at, rot)
        fields = self.discs[disc][1]
        for s, f in zip(sqs, fields):
            self.covered[s] = (disc, f)
        pts, groups, bonuses = self.score(sqs, fields)
        self.points[seat] += pts
        self.placed += 1
        self.moves += 1
        if self.moves > self.bound(len(self.discs)):
            self.anomalies.append(f"entry {entry}: move {self.moves}, more than the bound {self.bound(len(self.discs))}")
        self.last = ("place", seat, drew)
        self.last_score = (pts, groups, bonuses)
        self.log.append(f"entry {entry}: seat {seat} places {disc} {self.fields_text(disc)} at {map_name(at)} r{rot}: "
                        f"scores {pts} (groups {[(f, len(g)) for f, g in groups]}, bonuses {bonuses})"
                        + (f"; requests draw {self.moves} from the {drew} stack" if drew else ""))
        if drew is not None:
            self.pending = {"event": self.moves, "causer": seat, "cause_id": entry_id, "shape": drew}
            self.turn = ("move", (seat + 1) % self.n)  # W2
        else:
            self.next_turn(seat)

    def next_turn(self, x):
        """W3: the first of x+1, …, x+n that can place; if none, over."""
        for i in range(1, self.n + 1):
            s = (x + i) % self.n
            if self.can_place(s):
                self.turn = ("move", s)
                return
        self.over, self.turn = "finished", None

    def reveal(self, seat, entry, link, openings, values):
        raise GameError("out-of-turn", "nothing in Star Map is hidden: a reveal is never asked for")

    def resign(self, seat, entry, openings, values):
        self.turn, self.withdrawn = None, seat

    # -- the end and the result
    def minus(self, seat):
        return sum(len(self.discs[d][1]) for d in self.hands[seat])

    def own(self, seat, over):
        return self.points[seat] - (self.minus(seat) if over else 0)

    def scores(self, over):
        own = [self.own(s, over) for s in range(self.n)]
        if self.teams:
            return [own[s] + own[(s + 2) % 4] for s in range(self.n)]
        return own

    def standings(self, last=None):
        """docs "The end and the result": rank 1 + the seats with a strictly
        higher score; with teams, teams rank as teams (1 and 2); a withdrawn
        seat (and its partner) placed last."""
        over = self.over is not None or last is not None
        sc = self.scores(over)
        if self.teams:
            team = [s % 2 for s in range(self.n)]
            if last is not None:
                rank = [2 if team[s] == team[last] else 1 for s in range(self.n)]
            else:
                rank = [1 + (1 if sc[(s + 1) % 4] > sc[s] else 0) for s in range(self.n)]
            return sorted((rank[s], s, sc[s]) for s in range(self.n))
        out_ = set() if last is None else {last}
        others = [s for s in range(self.n) if s not in out_]
        rows = sorted((1 + sum(1 for o in others if sc[o] > sc[s]), s, sc[s]) for s in others)
        return rows + [(1 + len(others), s, sc[s]) for s in sorted(out_)]

    def summary(self, over=False):
        """What `status`/`audit` show: the layout, the start disc, the teams, passes, discs left."""
        # A game that ended before its setup has no map yet.
        out = [f"layout {self.layout_text()}"] if self.layout else []
        if self.start:
            d, rot, sqs = self.start
            out.append(f"start disc {d} {self.fields_text(d)} at r{rot} on {' '.join(map_name(s) for s in sqs)}")
        if self.teams:
            out.append("teams: seats 0 + 2 against 1 + 3")
        for s in range(self.n):
            if self.passes[s]:
                out.append(f"seat {s} had to pass {self.passes[s]} time{'s' if self.passes[s] > 1 else ''}")
        if over:
            for s in range(self.n):
                out.append(f"seat {s}: {self.points[s]} points, {len(self.hands[s])} discs in hand, minus {self.minus(s)}")
        return out


# ------------------------------------------------------------ the log (§8)

# (genesis `game`, `rules`) -> the rules this program implements (S6)
GAMES = {("starry-sky", 1): StarrySky, ("starry-night", 1): StarryNight, ("star-map", 1): StarMap}

MAX_LINE = 1 << 20


class Replay:
    """Checks a log line by line, in the order of protocol.md section 8."""

    def __init__(self):
        self.entries = []  # (line bytes, body, id)
        self.game = None
        self.ended = None  # "finished" / "stalled" / "resigned" / "abandoned"
        self.final_id = None
        self.last_seat = None
        self.countersigned = set()
        self.round = None  # (silent, first claim number, set of claimers)

    # S1-S3 ---------------------------------------------------------------
    def parse_line(self, k, raw, truncated):
        if truncated:
            raise Fault("truncated", k, "the last line does not end with LF")
        if not raw:
            raise Fault("malformed", k, "an empty line")
        if len(raw) > MAX_LINE:
            raise Fault("malformed", k, "a line longer than 1 MiB")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Fault("malformed", k, "not UTF-8")
        if too_deep(raw):
            raise Fault("malformed", k, f"JSON nested deeper than {MAX_DEPTH} levels")
        try:
            line = parse_json(text)
        except (ValueError, UnicodeEncodeError, RecursionError) as e:
            raise Fault("malformed", k, f"not JSON ({e})")
        if not isinstance(line, dict):
            raise Fault("malformed", k, "not a JSON object")
        if k == 0:  # S2'
            body = line.get("body")
            if isinstance(body, dict) and body.get("kind") == "genesis" and isinstance(body.get("data"), dict):
                p = body["data"].get("protocol")
                if is_int(p) and p not in (2, 3):
                    raise Fault("unknown-version", 0, f"protocol version {p}")
        try:
            check_shape(line)
        except Malformed as e:
            raise Fault("malformed", k, str(e))
        except NotCanonical as e:
            raise Fault("non-canonical", k, str(e))
        try:
            if canon_bytes(line) != raw:
                raise NotCanonical("re-encoding the line gives other bytes")
        except NotCanonical as e:
            raise Fault("non-canonical", k, str(e))
        return line

    def body_bytes(self, raw):
        # The line is canonical: {"body":BODY,"sig":"..."}
        assert raw.startswith(b'{"body":')
        end = raw.rindex(b',"sig":')
        return raw[len(b'{"body":'):end]

    # the whole entry ------------------------------------------------------
    def apply(self, k, raw, truncated):
        line = self.parse_line(k, raw, truncated)
        body, d = line["body"], line["body"]["data"]
        kind, author = body["kind"], body["author"]
        eid = H(raw)
        # S4
        if k >= 1 and body.get("game") != self.game_id.hex():
            raise Fault("foreign-entry", k, "the entry belongs to another game" if "game" in body else "a second genesis")
        # S5
        if body["n"] != k:
            raise Fault("broken-chain", k, f"n is {body['n']}, not {k}")
        if k >= 1 and body["prev"] != self.entries[-1][2].hex():
            raise Fault("broken-chain", k, "prev is not the id of the line before")
        if k == 0 and kind != "genesis":
            raise Fault("broken-chain", 0, "the first line is not a genesis: the beginning of the log is missing")
        if k == 0:
            self.genesis(raw, body, d, eid, line["sig"])
        else:
            self.entry(k, raw, body, d, eid, line["sig"])
        self.entries.append((raw, body, eid))

    def verify(self, k, key_hex, raw, sig):
        sigb = decode_sig(sig)
        if sigb is None:
            raise Fault("bad-signature", k, "the signature is not the canonical base64 of 64 bytes")
        if not ed25519.verify_strict(bytes.fromhex(key_hex), entry_message(self.body_bytes(raw)), sigb):
            raise Fault("bad-signature", k, "the signature does not verify")

    def genesis(self, raw, body, d, eid, sig):
        # S6
        game_class = GAMES.get((d["game"], d["rules"]))
        if game_class is None:
            raise Fault("unknown-version", 0, f"game {d['game']!r} rules {d['rules']}")
        # S7
        if body["author"] != 0:
            raise Fault("out-of-turn", 0, f"the genesis is written by seat {body['author']}, not 0")
        # S8
        seats = d["seats"]
        keys = [d["creator_key"]] + [s["key"] for s in seats if present(s, "key")]
        for key in keys:
            if not ed25519.valid_key(bytes.fromhex(key)):
                raise Fault("bad-signature", 0, f"key {key} is not a valid point or is of small order")
        pins = [s.get("key") for s in seats]
        if pins and pins[0] is not None and pins[0] != d["creator_key"]:
            raise Fault("bad-signature", 0, "seat 0 is pinned to another key than creator_key")
        given = [p for p in pins if p is not None]
        if len(set(given)) != len(given):
            raise Fault("bad-signature", 0, "two seats are pinned to one key")
        self.verify(0, d["creator_key"], raw, sig)
        # S12
        self.game_id = eid
        self.protocol = d["protocol"]
        self.deadline = d["deadline"] if present(d, "deadline") else None
        self.n = len(seats)
        self.pins = pins
        # the person whose machine plays each seat (protocol.md 3.4, 7)
        self.machine = [s["operator"] if present(s, "operator") else i for i, s in enumerate(seats)]
        self.creator_key = d["creator_key"]
        self.keys = [None] * self.n
        self.links = [None] * self.n
        self.nonces = [None] * self.n
        self.ready_links = [None] * self.n
        self.commitments = {}  # (entry, slot) -> [author, hash, opened]
        n = self.n
        self.ready_order = [n - 1] + list(range(1, n - 1)) + [0] if n >= 2 else [0]
        self.readies = 0
        try:
            self.game = game_class(d["options"], self.n)
        except GameError as e:
            raise Fault(e.fault, 0, e.detail)

    def joined(self):
        return sum(1 for k in self.keys if k is not None)

    def awaited(self):
        """The seat the game waits for (None before all joined or after the end)."""
        if self.joined() < self.n or self.ended:
            return None
        if self.readies < self.n:
            return self.ready_order[self.readies]
        return self.game.awaited()

    def entry(self, k, raw, body, d, eid, sig):
        kind, author = body["kind"], body["author"]
        # S7
        if author >= self.n:
            raise Fault("out-of-turn", k, f"author {author} is not a seat ({self.n} seats)")
        if kind != "join" and self.keys[author] is None:
            raise Fault("out-of-turn", k, f"seat {author} has not joined")
        # S8
        if kind == "join":
            key = d["key"]
            if not ed25519.valid_key(bytes.fromhex(key)):
                raise Fault("bad-signature", k, "the join's key is not a valid point or is of small order")
            if author == 0 and key != self.creator_key:
                raise Fault("bad-signature", k, "seat 0 must join with creator_key")
            if author < len(self.pins) and self.pins[author] is not None and key != self.pins[author]:
                raise Fault("bad-signature", k, f"seat {author} is pinned to another key")
            if any(s != author and self.keys[s] == key for s in range(self.n)):
                raise Fault("bad-signature", k, "this key already holds another seat")
            if any(s != author and self.pins[s] == key for s in range(self.n)):
                raise Fault("bad-signature", k, "this key is pinned to another seat")
        else:
            key = self.keys[author]
        self.verify(k, key, raw, sig)
        # S8' (protocol 3): times never go back
        if self.protocol >= 3 and body["time"] < self.entries[-1][1]["time"]:
            raise Fault("backward-time", k, f"dated {body['time']}, before entry {k - 1}")
        # S9
        self.check_turn(k, kind, author)
        if kind == "abandon" and self.protocol >= 3 and self.deadline is not None:
            # the clock started with the last entry that is no claim
            start = next(e for e in reversed(self.entries) if e[1]["kind"] != "abandon")
            # no later than the last time a log can hold (protocol.md 7)
            due = min(seconds(start[1]["time"]) + self.deadline, seconds("9999-12-31T23:59:59Z"))
            if seconds(body["time"]) < due:
                raise Fault("out-of-turn", k, f"a claim {due - seconds(body['time'])} s before the deadline passes")
        # S10
        if kind != "join":
            link = bytes.fromhex(body["link"])
            if step(link) != self.links[author]:
                raise Fault("bad-link", k, f"step(link) is not seat {author}'s last published link")
        # S11, S11' and S12 by kind
        handler = getattr(self, "on_" + kind)
        if kind == "join":
            handler(k, author, d)
        else:
            handler(k, author, d, eid, link)
            self.links[author] = link
        # the round of claims ends when the silent seat writes anything
        if self.round and author == self.round[0]:
            self.round = None

    def check_turn(self, k, kind, author):
        if kind == "genesis":
            raise Fault("foreign-entry", k, "a second genesis")
        if kind == "countersign":
            if not self.ended:
                raise Fault("out-of-turn", k, "a countersignature before the game is over")
            if author in self.countersigned:
                raise Fault("out-of-turn", k, f"seat {author} countersigned already")
            return
        if self.ended:
            raise Fault("out-of-turn", k, f"a {kind} after the game is over")
        if kind == "join":
            if self.joined() == self.n or author != self.joined():
                raise Fault("out-of-turn", k, f"it is not seat {author}'s turn to join")
            return
        awaited = self.awaited()
        if awaited is None:
            raise Fault("out-of-turn", k, f"a {kind} before every seat has joined")
        if kind == "abandon":
            if author == awaited:
                raise Fault("out-of-turn", k, "the awaited seat cannot claim it abandoned the game")
            if self.machine[author] == self.machine[awaited]:
                raise Fault("out-of-turn", k, f"seats {author} and {awaited} are played on one machine")
            if self.round and author in self.round[2]:
                raise Fault("out-of-turn", k, f"seat {author} claimed already in this round")
            return
        if author != awaited:
            raise Fault("out-of-turn", k, f"the game waits for seat {awaited}, not {author}")
        if kind == "resign":
            return
        if self.readies < self.n:
            want = "ready"
        else:
            want = self.game.turn[0]
        if kind != want:
            raise Fault("out-of-turn", k, f"seat {author} must write a {want}, not a {kind}")

    # kinds ------------------------------------------------------------------
    def on_join(self, k, author, d):
        self.keys[author] = d["key"]
        self.nonces[author] = d["nonce"]
        self.links[author] = bytes.fromhex(d["tip"])

    def on_ready(self, k, author, d, eid, link):
        self.ready_links[author] = link
        self.readies += 1
        if self.readies == self.n:
            seed = setup_seed(self.game_id, self.ready_links)
            self.setup_seed = seed
            self.game.setup(seed)
            if self.game.over:  # Star Map: nobody can place after the setup
                self.ended, self.final_id = self.game.over, eid

    def open_all(self, k, author, openings):
        """S11 and the value half of S11' for each opening, in order."""
        seen = set()
        values = []
        for o in openings:
            slot = (o["entry"], o["slot"])
            c = self.commitments.get(slot)
            if c is None:
                raise Fault("bad-reveal", k, f"no commitment at {slot}")
            if c[0] != author:
                raise Fault("bad-reveal", k, f"the commitment at {slot} is seat {c[0]}'s")
            if c[2] or slot in seen:
                raise Fault("bad-reveal", k, f"the commitment at {slot} was opened before")
            try:
                vb = canon_bytes(o["value"])
            except NotCanonical:
                raise Fault("bad-reveal", k, f"the value at {slot} does not open it")
            if commitment(self.game_id, bytes.fromhex(self.keys[author]), slot[0], slot[1], vb,
                          bytes.fromhex(o["salt"])) != c[1]:
                raise Fault("bad-reveal", k, f"the opening does not open the commitment at {slot}")
            seen.add(slot)
            if o["value"] not in self.game.HIDDEN:
                raise Fault("impossible-token", k, f"{vb.decode()} at {slot} is no token")
            values.append(o["value"])
        return values

    def mark_opened(self, openings):
        for o in openings:
            self.commitments[(o["entry"], o["slot"])][2] = True

    def game_call(self, k, fn, *args):
        try:
            fn(*args)
        except GameError as e:
            raise Fault(e.fault, k, e.detail)

    def on_move(self, k, author, d, eid, link):
        values = self.open_all(k, author, d["reveals"])
        self.game_call(k, self.game.move, author, k, eid, link, d["action"], d["commitments"], d["reveals"], values)
        self.mark_opened(d["reveals"])
        for s, c in enumerate(d["commitments"]):
            self.commitments[(k, s)] = [author, bytes.fromhex(c), False]
        self.after_game_entry(k, eid)

    def on_reveal(self, k, author, d, eid, link):
        values = self.open_all(k, author, d["reveals"])
        self.game_call(k, self.game.reveal, author, k, link, d["reveals"], values)
        self.mark_opened(d["reveals"])
        self.after_game_entry(k, eid)

    def after_game_entry(self, k, eid):
        if self.game.over:
            self.ended, self.final_id = self.game.over, eid

    def on_resign(self, k, author, d, eid, link):
        values = self.open_all(k, author, d["reveals"])
        want = sorted(s for s, c in self.commitments.items() if c[0] == author and not c[2])
        got = [(o["entry"], o["slot"]) for o in d["reveals"]]
        if got != want:
            raise Fault("bad-reveal", k, f"a resignation must open {want}, not {got}")
        self.game_call(k, self.game.resign, author, k, d["reveals"], values)
        self.mark_opened(d["reveals"])
        self.ended, self.final_id, self.last_seat = "resigned", eid, author

    def on_abandon(self, k, author, d, eid, link):
        awaited = self.awaited()
        if d["silent"] != awaited:
            raise Fault("illegal-move", k, f"the claim names seat {d['silent']}, but the game waits for seat {awaited}")
        first = self.round[1] if self.round else k
        if d["awaited"] != first:
            raise Fault("illegal-move", k, f"the claim gives awaited {d['awaited']}, the round's is {first}")
        if self.round is None:
            self.round = (awaited, k, set())
        self.round[2].add(author)
        # claimants are never of the awaited seat's machine (S9)
        needed = sum(1 for s in range(self.n) if self.machine[s] != self.machine[awaited])
        if len(self.round[2]) == needed:
            self.ended, self.final_id, self.last_seat = "abandoned", eid, awaited

    def on_countersign(self, k, author, d, eid, link):
        if d["final"] != self.final_id.hex():
            raise Fault("illegal-move", k, "the countersignature names another entry than the final one")
        self.countersigned.add(author)

    def standings(self):
        return self.game.standings(self.last_seat)


def read_lines(data):
    """Split a file into (raw line, truncated?) pairs."""
    if not data:
        return [(b"", False)]
    parts = data.split(b"\n")
    out = [(p, False) for p in parts[:-1]]
    if parts[-1] != b"":
        out.append((parts[-1], True))
    return out


def audit_bytes(data):
    """Returns (replay, fault or None)."""
    r = Replay()
    for k, (raw, trunc) in enumerate(read_lines(data)):
        try:
            r.apply(k, raw, trunc)
        except Fault as f:
            return r, f
    return r, None


def audit_file(path):
    with open(path, "rb") as f:
        return audit_bytes(f.read())


# ------------------------------------------------------------ reporting


def describe(r, fault):
    if fault:
        return f"{fault.name} at entry {fault.entry}: {fault.detail}"
    return "ok"


def standings_text(r):
    return ", ".join(f"{rank} {seat} {coins}" for rank, seat, coins in r.standings())


def cmd_audit(paths):
    bad = False
    replays = []
    for path in paths:
        r, fault = audit_file(path)
        print(describe(r, fault) if len(paths) == 1 else f"{path}: {describe(r, fault)}")
        if fault:
            bad = True
            continue
        replays.append(r)
        g = r.game
        if r.ended:
            print(f"  game over: {r.ended}; countersigned by seats {sorted(r.countersigned)}")
            print(f"  standings (rank seat {g.unit}): " + standings_text(r))
        elif g is not None and g.turn:
            print(f"  in progress: seat {r.awaited()} to write" if r.awaited() is not None else "  in progress")
        if isinstance(g, StarryNight):
            for ln in g.summary():
                print("  " + ln)
        if isinstance(g, StarMap):
            for ln in g.summary(over=bool(r.ended)):
                print("  " + ln)
    if len(paths) >= 2 and not bad:
        for i in range(1, len(replays)):
            res = compare(replays[0], replays[i])
            print(f"{paths[0]} + {paths[i]}: {res[0]}" + (f" at entry {res[1]}: {res[2]}" if res[1] is not None else ""))
            bad |= res[0] == "fork"
    return 1 if bad else 0


def compare(a, b):
    """Section 7: two valid copies of one game. Returns (verdict, entry, detail)."""
    ea, eb = a.entries, b.entries
    if ea[0][2] != eb[0][2]:
        return ("different games", None, "")
    k = 0
    while k < len(ea) and k < len(eb) and ea[k][0] == eb[k][0]:
        k += 1
    if k == len(ea) or k == len(eb):
        return ("same history", None, "one copy extends the other")
    ta, tb = ea[k:], eb[k:]
    v3 = a.protocol >= 3

    def lapsing(t):
        """The silent seat if t is claims naming it, then (protocol 3 only)
        countersignatures none of which is the silent seat's."""
        first = t[0][1]
        if first["kind"] != "abandon":
            return None
        silent = first["data"]["silent"]
        i = 0
        while i < len(t) and t[i][1]["kind"] == "abandon" and t[i][1]["data"]["silent"] == silent:
            i += 1
        rest = t[i:]
        if not v3:
            return silent if not rest else None
        ok = all(e[1]["kind"] == "countersign" and e[1]["author"] != silent for e in rest)
        return silent if ok else None

    def claims_naming(t):
        first = t[0][1]
        if first["kind"] != "abandon":
            return None
        silent = first["data"]["silent"]
        ok = all(e[1]["kind"] == "abandon" and e[1]["data"]["silent"] == silent for e in t)
        return silent if ok else None

    def smaller(verdict):
        win = "first" if int.from_bytes(ta[0][2], "big") < int.from_bytes(tb[0][2], "big") else "second"
        return (verdict, k, f"the {win} copy wins (smaller id)")

    # claims written at once
    sa, sb = claims_naming(ta), claims_naming(tb)
    if sa is not None and sa == sb:
        return smaller("ok (claims)")
    # a lapsed claim
    for claims, other, name in ((ta, tb, "second"), (tb, ta, "first")):
        silent = lapsing(claims)
        if silent is not None and other[0][1]["author"] == silent and other[0][1]["kind"] != "abandon":
            return ("ok (claim-lapsed)", k, f"the {name} copy wins: seat {silent} wrote entry {k}")
    if all(e[1]["kind"] == "countersign" for e in ta + tb):
        return smaller("ok (countersignatures)")
    same = ta[0][1]["author"] == tb[0][1]["author"]
    return ("fork", k, f"seat {ta[0][1]['author']} signed both entries: proof of cheating" if same
            else f"entries by seats {ta[0][1]['author']} and {tb[0][1]['author']}")


# ------------------------------------------------------------ doc values


def doc_block(text, begin, end):
    i = text.index(begin)
    return text[i + len(begin):text.index(end, i)]


def doc_pairs(block):
    """Lines `label = value` of a generated block, continuation lines joined."""
    lines = []
    for ln in block.splitlines():
        if ln.startswith("```") or not ln.strip():
            continue
        if ln.lstrip().startswith("= ") and lines:
            lines[-1] += " " + ln.strip()
        else:
            lines.append(ln.rstrip())
    return lines


class Checker:
    def __init__(self):
        self.passed = self.failed = 0

    def eq(self, what, got, want):
        if got == want:
            self.passed += 1
        else:
            self.failed += 1
            print(f"MISMATCH {what}: computed {got}, the doc says {want}")


def check_primitives(ck, text):
    block = doc_block(text, "<!-- BEGIN GENERATED VECTORS -->", "<!-- END GENERATED VECTORS -->")
    z, four = bytes(32), b"\x04" * 32
    seed4 = chain_seed(four)

    def draws(fn):
        d = Draw(z)
        return " ".join(str(x) for x in fn(d))

    def shuffled(d):
        lst = list(range(12))
        d.shuffle(lst)
        return lst

    computed = {
        'LP("ab", "")': LP("ab", "").hex(),
        'lp_hash("ab", "")': lp_hash("ab", "").hex(),
        "step(00×32)": step(z).hex(),
        "chain seed(game secret 04×32)": seed4.hex(),
        "tip(that seed)": chain_link(seed4, CHAIN_LEN).hex(),
        "first link after the join": chain_link(seed4, CHAIN_LEN - 1).hex(),
        "salt(04×32, entry 5, slot 0)": salt(four, 5, 0).hex(),
        # The value is the JSON text ⟦"10"⟧ (4 bytes, quotes included).
        'commit(game 01×32, key 02×32, entry 5, slot 0, ⟦"10"⟧, salt 03×32)':
            commitment(b"\x01" * 32, b"\x02" * 32, 5, 0, b'"10"', b"\x03" * 32).hex(),
        "signed message for body {}": entry_message(b"{}").hex(),
        "Draw(00×32): below(12) ×8": draws(lambda d: [d.below(12) for _ in range(8)]),
        "Draw(00×32): shuffle(0..12)": draws(shuffled),
        "Draw(00×32): below(3) ×8": draws(lambda d: [d.below(3) for _ in range(8)]),
        "setup seed(game 01×32, links 0a×32, 0b×32, 0c×32)":
            setup_seed(b"\x01" * 32, [b"\x0a" * 32, b"\x0b" * 32, b"\x0c" * 32]).hex(),
    }
    seen = set()
    for ln in doc_pairs(block):
        label, value = (x.strip() for x in ln.rsplit("=", 1))
        if label not in computed:
            ck.eq(f"9.2 {label!r}", "(a value this program does not know)", value)
            continue
        seen.add(label)
        ck.eq(f"9.2 {label}", computed[label], value)
    for label in computed:
        if label not in seen:
            ck.eq(f"9.2 {label}", computed[label], "(missing from the doc)")


def check_short_game(ck, text):
    block = doc_block(text, "<!-- BEGIN GENERATED SHORT GAME -->", "<!-- END GENERATED SHORT GAME -->")
    r, fault = audit_file(os.path.join(ROOT, "tests/vectors/short-game.jsonl"))
    ck.eq("9.3 audit of short-game.jsonl", describe(r, fault), "ok")
    if fault:
        return
    lines = [ln for ln in block.splitlines() if ln.strip() and not ln.startswith("```")]
    ents = r.entries
    gid = r.game_id
    g = r.game
    m = re.search(r"log: \S+ \((\d+) entries\)", block)
    ck.eq("9.3 number of entries", len(ents), int(m.group(1)))
    m = re.search(r"game id = H\(line 1\) = (\w+)", block)
    ck.eq("9.3 game id", gid.hex(), m.group(1))
    m = re.search(r"board list \(options.boards order\) = (.*)", block)
    ck.eq("9.3 board list", ", ".join(f"{i} {b.id}" for i, b in enumerate(g.boards)), m.group(1).strip())
    # seats
    secrets = {}
    for m in re.finditer(r"seat (\d+) (\w+): master secret (\w+)\n((?:  .*\n)+)", block):
        seat, name, master = int(m.group(1)), m.group(2), bytes.fromhex(m.group(3))
        vals = dict(re.findall(r"^  (\w[\w ]*?)\s+= (?:.*= )?(\w+)$", m.group(4), re.M))
        sd = signing_seed(master)
        pk = ed25519.public_key(sd)
        nonce = bytes.fromhex(r.nonces[seat])
        gs = game_secret(master, gid, nonce)
        cs = chain_seed(gs)
        secrets[seat] = (gs, cs)
        ck.eq(f"9.3 seat {seat} name", r.entries[0][1]["data"]["seats"][seat]["name"], name)
        ck.eq(f"9.3 seat {seat} ed25519 seed", sd.hex(), vals.get("ed25519 seed"))
        ck.eq(f"9.3 seat {seat} public key", pk.hex(), vals.get("public key"))
        ck.eq(f"9.3 seat {seat} public key = the key it joined with", pk.hex(), r.keys[seat])
        ck.eq(f"9.3 seat {seat} join nonce", r.nonces[seat], vals.get("join nonce"))
        ck.eq(f"9.3 seat {seat} game secret", gs.hex(), vals.get("game secret"))
        ck.eq(f"9.3 seat {seat} chain seed", cs.hex(), vals.get("chain seed"))
        tip = chain_link(cs, CHAIN_LEN)
        ck.eq(f"9.3 seat {seat} tip", tip.hex(), vals.get("tip"))
        join = next(e for e in ents if e[1]["kind"] == "join" and e[1]["author"] == seat)
        ck.eq(f"9.3 seat {seat} tip in the log", join[1]["data"]["tip"], tip.hex())
    ck.eq("9.3 seats listed", sorted(secrets), list(range(r.n)))
    # setup
    m = re.search(r"setup seed = .* = (\w+)", block)
    ck.eq("9.3 setup seed", r.setup_seed.hex(), m.group(1))
    d = Draw(r.setup_seed)
    lst = list(range(len(g.boards)))
    for m in re.finditer(r"slot (\d+): below\((\d+)\) = (\d+) → board (\d+) (\w+)", block):
        got = d.below(len(lst))
        ck.eq(f"9.3 deal slot {m.group(1)}: below({len(lst)})", (len(lst), got), (int(m.group(2)), int(m.group(3))))
        b = lst.pop(got)
        ck.eq(f"9.3 deal slot {m.group(1)} board", f"{b} {g.boards[b].id}", f"{m.group(4)} {m.group(5)}")
    m = re.search(r"stack: (\[.*\])", block)
    ck.eq("9.3 stack after the deal", [g.boards[i].id for i in lst], json.loads(m.group(1)))
    # entries
    chunks = re.split(r"\n(?=entry \d+ )", block[block.index("\nentry 0 "):])
    count = [0] * r.n  # entries of each seat after its join
    seen = {"entries": 0, "commitments": 0, "openings": 0, "draws": 0}
    for ch in chunks:
        m = re.match(r"\s*entry (\d+) (\w+) by seat (\d+): id (\w+)", ch)
        if not m:
            continue
        e, kind, seat = int(m.group(1)), m.group(2), int(m.group(3))
        seen["entries"] += 1
        body, eid = ents[e][1], ents[e][2]
        ck.eq(f"9.3 entry {e} kind/author", (body["kind"], body["author"]), (kind, seat))
        ck.eq(f"9.3 entry {e} id", eid.hex(), m.group(4))
        gs, cs = secrets[seat]
        if kind not in ("genesis", "join"):
            count[seat] += 1
            link = chain_link(cs, CHAIN_LEN - count[seat])
            ck.eq(f"9.3 entry {e} link in the log = link {CHAIN_LEN - count[seat]} of the chain", body["link"], link.hex())
            lm = re.search(r"\n  link (\w+)", ch)
            ck.eq(f"9.3 entry {e} link", link.hex(), lm.group(1) if lm else None)
        am = re.search(r"action ⟦(.*)⟧", ch)
        if am:
            ck.eq(f"9.3 entry {e} action", canon(body["data"]["action"]), am.group(1))
        for cm in re.finditer(r"commitment slot (\d+): salt lp_hmac\(game secret, \"starry/1 salt\", u64\((\d+)\), u32\((\d+)\)\) = (\w+)\s+= (\w+)", ch):
            slot = int(cm.group(1))
            seen["commitments"] += 1
            ck.eq(f"9.3 entry {e} salt arguments", (int(cm.group(2)), int(cm.group(3))), (e, slot))
            sl = salt(gs, e, slot)
            ck.eq(f"9.3 entry {e} salt of slot {slot}", sl.hex(), cm.group(4))
            ck.eq(f"9.3 entry {e} commitment of slot {slot} in the log", body["data"]["commitments"][slot], cm.group(5))
            # recompute the commitment from the opening that reveals it later
            op = next((o for x in ents for o in x[1]["data"].get("reveals", []) if (o["entry"], o["slot"]) == (e, slot)), None)
            if op is None:
                ck.eq(f"9.3 entry {e} slot {slot} is opened later", None, "an opening")
                continue
            ck.eq(f"9.3 opening of ({e}, {slot}) uses the derived salt", op["salt"], sl.hex())
            c = commitment(gid, bytes.fromhex(r.keys[seat]), e, slot, canon_bytes(op["value"]), sl)
            ck.eq(f"9.3 entry {e} commitment of slot {slot} from its opening", c.hex(), cm.group(5))
        for om in re.finditer(r"opens entry (\d+) slot (\d+): value ⟦(.*)⟧ salt (\w+)", ch):
            seen["openings"] += 1
            ops = [o for o in body["data"]["reveals"] if (o["entry"], o["slot"]) == (int(om.group(1)), int(om.group(2)))]
            ck.eq(f"9.3 entry {e} opens ({om.group(1)}, {om.group(2)})", len(ops), 1)
            if ops:
                ck.eq(f"9.3 entry {e} opened value", canon(ops[0]["value"]), om.group(3))
                ck.eq(f"9.3 entry {e} opened salt", ops[0]["salt"], om.group(4))
        rm = re.search(r"requests event (\d+) .*causer seat (\d+)", ch)
        if rm:
            ck.eq(f"9.3 entry {e} requests event", f"entry {e} requests draw {rm.group(1)}" in "\n".join(g.log), True)
        sm = re.search(r"resolves event (\d+) \(caused by entry (\d+)\): seed .* = (\w+)\n\s+below\((\d+)\) = (\d+) → board (\d+) (\w+); stack now (\[.*\])", ch)
        if sm:
            ev, cause = int(sm.group(1)), int(sm.group(2))
            seen["draws"] += 1
            seed = draw_seed(ents[cause][2], ev, bytes.fromhex(body["link"]))
            ck.eq(f"9.3 entry {e} draw seed", seed.hex(), sm.group(3))
            dd = Draw(seed)
            stack = lst  # the stack after the deal: this game has only one draw
            got = dd.below(len(stack))
            ck.eq(f"9.3 entry {e} draw", (len(stack), got), (int(sm.group(4)), int(sm.group(5))))
            b = stack.pop(got)
            ck.eq(f"9.3 entry {e} drawn board", f"{b} {g.boards[b].id}", f"{sm.group(6)} {sm.group(7)}")
            ck.eq(f"9.3 entry {e} stack after the draw", [g.boards[i].id for i in stack], json.loads(sm.group(8)))
            ck.eq(f"9.3 entry {e} the replay drew the same", f"draw {ev} resolved: {g.boards[b].id}" in "\n".join(g.log), True)
    ck.eq("9.3 items read from the doc", seen, {
        "entries": len(ents),
        "commitments": sum(len(x[1]["data"].get("commitments", [])) for x in ents),
        "openings": sum(len(x[1]["data"].get("reveals", [])) for x in ents),
        "draws": g.next_event})
    m = re.search(r"final standings \(rank seat coins\): (.*)", block)
    ck.eq("9.3 final standings", standings_text(r), m.group(1).strip())


def check_starry_sky_examples(ck, text):
    """D4 and R7 of docs/starry-sky.md (not asked for, but cheap)."""
    boards = default_boards()
    ids = [b.id for b in boards]
    for n, want in ((3, ["aquarius", "libra", "pisces"]), (4, ["aquarius", "libra", "pisces", "leo"]),
                    (5, ["aquarius", "libra", "pisces", "leo", "taurus"])):
        d = Draw(bytes(32))
        lst = list(range(12))
        got = [ids[d.pick(lst)] for _ in range(n)]
        ck.eq(f"starry-sky D4 deal with {n} seats", got, want)
        if n == 3:
            ck.eq("starry-sky D4 stack", lst, [0, 1, 2, 3, 4, 5, 7, 8, 9])
            stack = lst
    s1 = draw_seed(b"\x01" * 32, 0, b"\x02" * 32)
    ck.eq("starry-sky R7 seed 0", s1.hex(), "12e29d4654549466a4487d39be559e43cf00079136dad613dadb1af91a32f936")
    d = Draw(s1)
    i = d.below(len(stack))
    ck.eq("starry-sky R7 below(9)", i, 5)
    ck.eq("starry-sky R7 board", ids[stack.pop(i)], "virgo")
    s2 = draw_seed(b"\x03" * 32, 1, b"\x02" * 32)
    ck.eq("starry-sky R7 seed 1", s2.hex(), "43ada2083946c3be27736fd44a7a46d0fb56c04de0a722d7d0a2c44a20d34bb0")
    i = Draw(s2).below(len(stack))
    ck.eq("starry-sky R7 below(8)", i, 6)
    ck.eq("starry-sky R7 board 2", ids[stack.pop(i)], "sagittarius")


def _night(stars, score="count", w=None, h=None):
    w = w or max(x for x, _ in stars) + 1
    h = h or max(y for _, y in stars) + 1
    g = StarryNight({"score": score, "sky": {"stars": {"height": h, "stars": [list(p) for p in stars], "width": w}}}, 2)
    g.setup(bytes(32))
    return g


def _play(g, moves, entry=1):
    """Play (seat, action) pairs; returns the GameError of the first refused one, or None."""
    for seat, act in moves:
        if g.turn is None or g.turn[1] != seat:
            return GameError("out-of-turn", f"not seat {seat}'s turn")
        try:
            g.move(seat, entry, None, None, act, [], [], [])
        except GameError as e:
            return e
        entry += 1
    return None


def _edges(first, pairs):
    """Alternate edges from seat `first` (after seat 1 chose it)."""
    out = [(1, {"first": first})]
    s = first
    for a, b in pairs:
        out.append((s, {"edge": [list(a), list(b)]}))
        s = 1 - s
    return out


def _caps(g):
    return sorted((c["captor"], c["area2"]) for c in g.captured.values())


def check_starry_night_examples(ck, text, referee):
    """Hand-made cases from docs/starry-night.md (and its example in
    docs/referee.md): a self-test of the Starry Night rules above."""
    ck.eq("starry-night labels 0, 25, 26, 199", [night_label(i) for i in (0, 25, 26, 199)], ["A", "Z", "AA", "GR"])
    # Options: the two examples of the doc, the seat count, defaults, the chain bound.
    for ln in re.findall(r'^(\{"score".*\})$', text, re.M):
        try:
            StarryNight(parse_json(ln), 2)
            ck.eq(f"starry-night options {ln}", "accepted", "accepted")
        except GameError as e:
            ck.eq(f"starry-night options {ln}", e.fault + ": " + e.detail, "accepted")

    def opt_fault(o, n=2):
        try:
            StarryNight(o, n)
            return "ok"
        except GameError as e:
            return e.fault

    tri = {"height": 5, "stars": [[0, 0], [4, 1], [2, 3]], "width": 5}
    ck.eq("starry-night 3 seats", opt_fault({"score": "count", "sky": {"stars": tri}}, 3), "illegal-move")
    ck.eq("starry-night score left out (the default is written out)", opt_fault({"sky": {"stars": tri}}), "non-canonical")
    ck.eq("starry-night random: more stars than grid points", opt_fault({"score": "count", "sky": {"random": {"count": 10, "height": 3, "width": 3}}}), "illegal-move")
    ck.eq("starry-night two stars on one point", opt_fault({"score": "count", "sky": {"stars": {"height": 5, "stars": [[0, 0], [0, 0], [1, 1]], "width": 5}}}), "illegal-move")
    for n, want in ((163, "ok"), (164, "illegal-move")):
        ck.eq(f"starry-night chain bound: {n} stars", opt_fault({"score": "count", "sky": {"random": {"count": n, "height": 20, "width": 20}}}), want)
    m = re.search(r"a \*\*signed game has at most (\d+) stars\*\*", text)
    ck.eq("starry-night the doc's star bound = the largest N with 2B + 2 + 4 <= 1024",
          max(n for n in range(3, 201) if 2 * StarryNight.bound(n) + 6 <= CHAIN_LEN), int(m.group(1)) if m else None)
    # A random sky: `count` picks from the free points in reading order, then sorted.
    g = StarryNight({"score": "count", "sky": {"random": {"count": 5, "height": 3, "width": 4}}}, 2)
    g.setup(bytes(32))
    d, free = Draw(bytes(32)), [(x, y) for y in range(3) for x in range(4)]
    ck.eq("starry-night random sky", g.stars, sorted((d.pick(free) for _ in range(5)), key=reading_key))
    # The triangle sky of the options example ends after two edges (no star is
    # isolated any more): 0-0, and the last mover wins the tie.
    g = _night([(0, 0), (4, 1), (2, 3)], "area", 5, 5)
    err = _play(g, _edges(0, [((0, 0), (4, 1)), ((4, 1), (2, 3))]))
    ck.eq("starry-night triangle sky: over after two edges, the last mover first",
          (err, g.over, g.standings()), (None, "finished", [(1, 1, 0), (2, 0, 0)]))
    ck.eq("starry-night before the end equal scores share a rank", _night([(0, 0), (4, 1), (2, 3)]).standings(), [(1, 0, 0), (1, 1, 0)])
    # With a fourth star far away the third edge closes the triangle and captures it.
    g = _night([(0, 0), (4, 1), (2, 3), (4, 4)], "area", 5, 5)
    err = _play(g, _edges(0, [((0, 0), (4, 1)), ((4, 1), (2, 3)), ((2, 3), (0, 0))]))
    ck.eq("starry-night triangle: captured by seat 0, 10 half squares, not over", (err, _caps(g), g.over), (None, [(0, 10)], None))
    ck.eq("starry-night triangle: the last edge ends the game", (_play(g, [(1, {"edge": [[2, 3], [4, 4]]})]), g.over, g.standings()),
          (None, "finished", [(1, 0, 10), (2, 1, 0)]))
    # "an L-shaped sea of 12 squares scores 24"
    L = [(0, 0), (4, 0), (4, 2), (2, 2), (2, 4), (0, 4)]
    g = _night(L + [(9, 9)], "area")
    _play(g, _edges(0, list(zip(L, L[1:] + L[:1]))))
    ck.eq("starry-night L-shaped sea of 12 squares", _caps(g), [(1, 24)])
    # ... and the chord across its notch lies outside it: legal, a triangle of 2 squares.
    ck.eq("starry-night chord outside a captured sea", _play(g, [(0, {"edge": [[4, 2], [2, 4]]})]), None)
    ck.eq("starry-night chord outside a captured sea: captures", _caps(g), [(0, 4), (1, 24)])
    # "a 6x6 sea around a captured triangle of 2 squares scores 68, the triangle 4"
    sq, tr = [(0, 0), (6, 0), (6, 6), (0, 6)], [(2, 2), (4, 2), (2, 4)]
    g = _night(sq + tr + [(9, 9)], "area")
    moves = _edges(0, list(zip(tr, tr[1:] + tr[:1])) + list(zip(sq, sq[1:] + sq[:1])))
    ck.eq("starry-night 6x6 around a triangle: played", (_play(g, moves) or GameError("", "")).detail, "")
    ck.eq("starry-night the triangle captured, the square not (it has an island)", _caps(g), [(0, 4)])
    ck.eq("starry-night joining the island captures the square", _play(g, [(1, {"edge": [[0, 0], [2, 2]]})]), None)
    ck.eq("starry-night 6x6 sea around a captured triangle", _caps(g), [(0, 4), (1, 68)])
    ck.eq("starry-night a star is still isolated: not over", (g.over, g.isolated()), (None, [7]))
    # a sea inside a sea, and an island enclosing its own sea (with an island of its own)
    big, small = [(0, 0), (8, 0), (8, 8), (0, 8)], [(2, 2), (6, 2), (6, 6), (2, 6)]
    g = _night(big + small + [(4, 4), (10, 10)], "area")
    _play(g, _edges(0, list(zip(small, small[1:] + small[:1])) + list(zip(big, big[1:] + big[:1]))))
    ck.eq("starry-night nested seas, each with an island: none captured", (len(g.seas), _caps(g)), (2, []))
    _play(g, [(0, {"edge": [[2, 2], [4, 4]]})])
    ck.eq("starry-night the inner sea loses its island: captured", _caps(g), [(0, 32)])
    _play(g, [(1, {"edge": [[0, 0], [2, 2]]})])
    ck.eq("starry-night the outer sea loses its island: captured, without the inner sea", _caps(g), [(0, 32), (1, 96)])
    # one edge closes two seas but captures only the empty one
    g = _night(sq + [(1, 3)])
    _play(g, _edges(0, list(zip(sq, sq[1:] + sq[:1]))))
    ck.eq("starry-night a square around an isolated star: not captured", _caps(g), [])
    _play(g, [(0, {"edge": [[0, 0], [6, 6]]})])
    ck.eq("starry-night the diagonal splits it: only the empty half is captured", _caps(g), [(0, 36)])
    ck.eq("starry-night two seas now", len(g.seas), 2)
    # edge rules 1-5, each refusal named by the first rule that fails
    g = _night([(0, 0), (2, 0), (4, 0), (0, 2), (4, 4), (0, 4)])
    _play(g, _edges(0, [((0, 0), (2, 0)), ((0, 2), (4, 0))]))
    for what, a, b, rule in (("a star to itself", (0, 0), (0, 0), "rule 1"),
                             ("stars joined already", (2, 0), (0, 0), "rule 2"),
                             ("a star strictly inside", (0, 0), (4, 0), "rule 3"),
                             ("crossing an edge", (2, 0), (0, 4), "rule 4"),
                             ("touching an edge's endpoint", (0, 0), (4, 0), "rule 3")):
        e = _night([(0, 0), (2, 0), (4, 0), (0, 2), (4, 4), (0, 4)])
        _play(e, _edges(0, [((0, 0), (2, 0)), ((0, 2), (4, 0))]))
        err = _play(e, [(0, {"edge": [list(a), list(b)]})], entry=10)
        ck.eq(f"starry-night refused: {what}", err.detail.split(": ")[1] if err else None, rule)
    g = _night([(0, 0), (2, 0), (1, 1), (1, 3), (5, 5)])  # (1,1)-(1,3) touches nothing; (0,0)-(1,3) shares no endpoint with (2,0)-(1,1)
    _play(g, _edges(0, [((0, 0), (2, 0)), ((2, 0), (1, 1))]))
    err = _play(g, [(0, {"edge": [[0, 0], [1, 1]]})])
    ck.eq("starry-night an edge sharing an endpoint is not 'touching'", err, None)
    g = _night(sq + [(9, 9)])
    _play(g, _edges(0, list(zip(sq, sq[1:] + sq[:1]))))
    err = _play(g, [(0, {"edge": [[0, 0], [6, 6]]})])
    ck.eq("starry-night refused: inside a captured sea", err.detail.split(": ")[1] if err else None, "rule 5")
    # takebacks: the last two edges and their captures go; 3 requests a seat; only accept/decline answers
    g = _night([(0, 0), (4, 1), (2, 3), (9, 9)])
    _play(g, _edges(0, [((0, 0), (4, 1)), ((4, 1), (2, 3)), ((2, 3), (0, 0))]))
    ck.eq("starry-night takeback: before", (_caps(g), g.turn), ([(0, 10)], ("move", 1)))
    ck.eq("starry-night takeback: the answer must be accept or decline",
          (_play(g, [(1, {"takeback": "request"}), (0, {"edge": [[2, 3], [9, 9]]})]) or GameError("", "")).fault, "illegal-move")
    _play(g, [(0, {"takeback": "accept"})])
    ck.eq("starry-night takeback accepted: two edges and the capture gone, the requester moves",
          (len(g.edges), _caps(g), g.turn, g.requests_left), (1, [], ("move", 1), [3, 2]))
    ck.eq("starry-night takeback: needs two edges", (_play(g, [(1, {"takeback": "request"})]) or GameError("", "")).fault, "illegal-move")
    _play(g, [(1, {"edge": [[4, 1], [2, 3]]})])
    ck.eq("starry-night three requests a seat",
          [(_play(g, [(0, {"takeback": "request"}), (1, {"takeback": "decline"})]) or GameError("ok", "")).fault for _ in range(4)],
          ["ok", "ok", "ok", "illegal-move"])
    # docs/referee.md, "A Starry Night example": the state after each action
    sect = referee[referee.index("## A Starry Night example"):]
    inp = json.loads(doc_block(sect, "```json\n", "\n```"))
    want = [json.loads(ln.replace('"view":{…}', '"view":null')) for ln in doc_block(sect, "```text\n", "\n```").splitlines() if ln.strip()]
    sky = inp["options"]["sky"]["stars"]
    g = StarryNight({"score": inp["options"]["score"], "sky": {"stars": {"height": sky["height"], "stars": sky["stars"], "width": sky["width"]}}}, inp["seats"])
    g.setup(bytes.fromhex(inp["setup"]))

    def state():
        return ({"kind": "move", "seat": g.turn[1]} if g.turn else {"kind": "over"},
                {"kind": g.over} if g.over else None,
                [{"seat": s, "rank": r, "score": x} for r, s, x in sorted(g.standings())])

    got = [state()]
    for i, a in enumerate(inp["actions"]):
        err = _play(g, [(a["seat"], a["move"])], entry=i + 1)
        if err:
            got.append(err.detail)
            break
        got.append(state())
    ck.eq("starry-night referee.md example: states", got, [(w["turn"], w["ending"], w["standings"]) for w in want])


def _map_game(n=2, kind="easy", seed=bytes(32)):
    g = StarMap({"map": kind}, n)
    g.setup(seed)
    return g


def _map_position(stars):
    """A bare plain map holding the given stars ({square name: code or None}),
    as discs of nobody, and nothing else; disc -1 stands for them."""
    g = _map_game()
    g.squares = [PLAIN] * (MAP_N * MAP_N)
    g.covered = {map_square(q): (-1, f) for q, f in stars.items()}
    g.placed = 1
    return g


def _map_lay(g, disc, at, rot):
    """Rules 1-5, then lay and score, as a placement does (no hand, no draw)."""
    at = map_square(at)
    why = g.refusal(disc, at, rot)
    if why is not None:
        return why
    sqs = g.squares_of(disc, at, rot)
    for q, f in zip(sqs, g.discs[disc][1]):
        g.covered[q] = (disc, f)
    g.placed += 1
    pts, groups, bonuses = g.score(sqs, g.discs[disc][1])
    return pts, [(f, " ".join(map_name(q) for q in grp)) for f, grp in groups], bonuses


def check_star_map_examples(ck, text):
    """The values and examples of docs/star-map.md: the shipped set's tables,
    the map's geometry, the setup test vectors, the drawing example, and
    hand-made cases of its placing and scoring sentences."""
    stars, discs, parts = shipped_map_data()
    norm = lambda t: " ".join(t.split())  # noqa: E731
    flat = norm(text)
    # -- the shipped set against the doc's tables
    codes = [c for c, _ in stars]
    m = re.search(r"The shipped set: (`\w` \w+(?:, `\w` \w+)*)", flat)
    ck.eq("star-map shipped stars", ", ".join(f"`{c}` {nm}" for c, nm in stars),
          m.group(1).replace(", and ", ", ") if m else None)
    rows = re.findall(r"^\| (\d+)–(\d+) \| (\w+) \| ((?:`[^`]+` ?)+)\|$", text, re.M)
    got = [(i, shape, "".join(f or "." for f in fl)) for i, (shape, fl) in enumerate(discs)]
    want = [(a + k, shape, f) for a, b, shape, fs in rows for k, f in enumerate(re.findall(r"`([^`]+)`", fs)) for a in [int(a)]]
    ck.eq("star-map the 56 discs, by index (table)", got, want)
    per = {}
    for shape, fl in discs:
        for f in fl:
            if f is not None:
                per.setdefault(shape, [0] * 7)[codes.index(f)] += 1
    tab = text[text.index("Stars per shape:"):]
    for shape in MAP_SHAPES:
        m = re.search(r"^\| " + shape + r" \| ([\d |]+)\|$", tab, re.M)
        ck.eq(f"star-map stars per shape: {shape}", per[shape] + [sum(per[shape])],
              [int(x) for x in m.group(1).split("|")] if m else None)
    m = re.search(r"^\| all \| ([\d |]+)\|$", tab, re.M)
    ck.eq("star-map stars per shape: all", [sum(per[s][i] for s in MAP_SHAPES) for i in range(7)] + [sum(map(sum, per.values()))],
          [int(x) for x in m.group(1).split("|")] if m else None)
    m = re.search(r"^\| corner \| 12 \| 36 \| (\d+) \| elbow (\d+), right arm (\d+), lower arm (\d+) \|$", text, re.M)
    corner_empty = [sum(1 for sh, fl in discs if sh == "corner" and fl[i] is None) for i in range(3)]
    ck.eq("star-map empty fields of the corners", [sum(corner_empty)] + corner_empty, [int(x) for x in m.groups()] if m else None)
    kinds = {side: [k for p in parts.values() for k in p[side]] for side in MAP_SIDES}
    for side in MAP_SIDES:
        ks = kinds[side]
        b = [k[1] for k in ks if k[0] == "bonus"]
        got = [sum(1 for k in ks if k[0] in ("only", "not")), sum(1 for k in ks if k[0] == "meteorite"), len(b),
               b.count(1), b.count(2), b.count(3), sum(b)]
        m = re.search(r"^\| " + side + r" \| ([\d |]+)\|$", text, re.M)
        ck.eq(f"star-map squares per side: {side}", got, [int(x) for x in m.group(1).split("|")] if m else None)
    for sign, what in (("only", "=X"), ("not", "!X")):
        m = re.search(r"^\| `" + re.escape(what) + r"` [^|]+\| ([\d |]+)\|$", text, re.M)
        ck.eq(f"star-map restrictions {what}", [sum(1 for k in kinds["symbols"] if k == (sign, c)) for c in codes] + [sum(1 for k in kinds["symbols"] if k[0] == sign)],
              [int(x) for x in m.group(1).split("|")] if m else None)
    # -- options and data files ("Options", "Data files", rules 1-7)
    def opt_fault(o, n=2):
        try:
            StarMap(o, n)
            return "ok"
        except GameError as e:
            return e.fault

    shipped_d = parse_json(_shipped_map_file("discs.json"))
    shipped_p = parse_json(_shipped_map_file("parts.json"))

    def with_discs(fn):
        d = json.loads(json.dumps(shipped_d))
        fn(d)
        return opt_fault({"discs": d, "map": "random"})

    def with_parts(fn):
        p = json.loads(json.dumps(shipped_p))
        fn(p)
        return opt_fault({"map": "random", "parts": p})

    lay = [{"part": i, "side": MAP_SIDES[i % 2]} for i in range(16, 0, -1)]
    for what, got, want in (
            ("the examples of Options", [opt_fault(parse_json(x)) for x in re.findall(r'^(\{"map":"\w+"\})$', text, re.M)], ["ok", "ok"]),
            ("each keyword", [opt_fault({"map": k}) for k in MAP_KEYWORDS], ["ok"] * 4),
            ("a layout", opt_fault({"map": {"layout": lay}}), "ok"),
            ("a layout naming a part twice", opt_fault({"map": {"layout": lay[:15] + [lay[0]]}}), "illegal-move"),
            ("a layout of 15 places", opt_fault({"map": {"layout": lay[:15]}}), "illegal-move"),
            ("map left out: {} is non-canonical", opt_fault({}), "non-canonical"),
            ("an unknown option", opt_fault({"map": "random", "seed": 1}), "illegal-move"),
            ("an unknown map", opt_fault({"map": "medium"}), "illegal-move"),
            ("1 and 5 seats; 2 to 4", [opt_fault({"map": "random"}, n) for n in range(1, 6)],
             ["illegal-move", "ok", "ok", "ok", "illegal-move"]),
            ("the shipped files given whole", opt_fault({"discs": shipped_d, "map": "random", "parts": shipped_p}), "ok"),
            ("1: six stars", with_discs(lambda d: d["stars"].pop()), "illegal-move"),
            ("2: a lower-case code", with_discs(lambda d: d["stars"][0].update(code="r")), "illegal-move"),
            ("2: a name of 17 characters", with_discs(lambda d: d["stars"][0].update(name="r" * 17)), "illegal-move"),
            ("2: a code twice", with_discs(lambda d: d["stars"][1].update(code="R")), "illegal-move"),
            ("2: an unknown key", with_discs(lambda d: d["stars"][1].update(hue=1)), "illegal-move"),
            ("3: a field too many", with_discs(lambda d: d["discs"][0].update(fields="GGGG")), "illegal-move"),
            ("3: no star code", with_discs(lambda d: d["discs"][0].update(fields="GGQ")), "illegal-move"),
            ("3: every field empty", with_discs(lambda d: d["discs"][24].update(fields="..")), "illegal-move"),
            ("4: 13 corners", with_discs(lambda d: d["discs"][12].update(shape="corner")), "illegal-move"),
            ("5: out of order", with_discs(lambda d: d["discs"].insert(0, d["discs"].pop(12))), "illegal-move"),
            ("6: 15 parts", with_parts(lambda p: p["parts"].pop()), "illegal-move"),
            ("7: an id twice", with_parts(lambda p: p["parts"][1].update(id=1)), "illegal-move"),
            ("7: id 17", with_parts(lambda p: p["parts"][1].update(id=17)), "illegal-move"),
            ("7: a symbol on the bonus side", with_parts(lambda p: p["parts"][0]["bonus"].__setitem__(0, "# . .")), "illegal-move"),
            ("7: a row of 4 squares", with_parts(lambda p: p["parts"][0]["symbols"].__setitem__(0, ". . . .")), "illegal-move"),
            ("7: a bonus of 0", with_parts(lambda p: p["parts"][0]["symbols"].__setitem__(0, "0 . .")), "illegal-move"),
            ("7: =X of no star code", with_parts(lambda p: p["parts"][0]["symbols"].__setitem__(0, "=Q . .")), "illegal-move"),
            ("7: listed in any order", with_parts(lambda p: p["parts"].reverse()), "ok")):
        ck.eq(f"star-map options: {what}", got, want)
    # -- the map's geometry
    ck.eq("star-map f7 is x = 5, y = 6; a1 and l12", (map_square("f7"), map_square("a1"), map_square("l12")), ((5, 6), (0, 0), (11, 11)))

    def place_range(p):
        sq = [(3 * (p % 4) + i % 3, 3 * (p // 4) + i // 3) for i in range(9)]
        return f"{map_name(sq[0])}–{map_name(sq[8])}"

    m = re.search(r"\(place 0 is (\w+–\w+), place 3 is (\w+–\w+), place 4 is (\w+–\w+), place 15 is (\w+–\w+)\)", flat)
    ck.eq("star-map places 0, 3, 4, 15", [place_range(p) for p in (0, 3, 4, 15)], list(m.groups()) if m else None)
    m = re.search(r"\(f6 is square (\d) of place (\d+), g6 square (\d) of place (\d+), f7 square (\d) of place (\d+), g7 square (\d) of place (\d+)\)", flat)
    got = []
    for q in ("f6", "g6", "f7", "g7"):
        x, y = map_square(q)
        got += [x % 3 + 3 * (y % 3), x // 3 + 4 * (y // 3)]
    ck.eq("star-map the centre squares in their places", got, [int(x) for x in m.groups()] if m else None)
    # the rotation prose: corner arms (right arm, lower arm) and a three's direction
    arms = {r: tuple(map_rotate(o, r) for o in MAP_OFFSETS["corner"][1:]) for r in MAP_ROTATIONS}
    ck.eq("star-map a corner's arms: r0 right+below, r90 below+left, r180 left+above, r270 above+right", arms,
          {0: ((1, 0), (0, 1)), 90: ((0, 1), (-1, 0)), 180: ((-1, 0), (0, -1)), 270: ((0, -1), (1, 0))})
    ck.eq("star-map a three: r90 downwards, r180 to the left, r270 upwards",
          [map_rotate((2, 0), r) for r in (90, 180, 270)], [(0, 2), (-2, 0), (0, -2)])
    m = re.search(r"\(r0: (\w+ \w+ \w+); r90: (\w+ \w+ \w+); r180: (\w+ \w+ \w+); r270: (\w+ \w+ \w+), in field order\)", flat)
    g = _map_game()
    ck.eq("star-map the start disc's squares by rotation",
          [" ".join(map_name(q) for q in g.squares_of(0, MAP_START_ELBOW[r], r)) for r in MAP_ROTATIONS], list(m.groups()) if m else None)
    m = re.search(r"at most \*\*2 × \(discs − 1\) = (\d+)\*\*", flat)
    ck.eq("star-map length of a game", StarMap.bound(len(discs)), int(m.group(1)) if m else None)
    m = re.search(r"at most 2 × 110 \+ n \+ 4 ≤ (\d+) links", flat)
    ck.eq("star-map links a seat needs", 2 * StarMap.bound(len(discs)) + 4 + 4, int(m.group(1)) if m else None)
    # -- the setup test vectors
    sect = text[text.index("Test vectors (the setup seed"):text.index("## Moves")]
    bullets = [norm(b) for b in re.split(r"\n- ", sect)[1:]]
    ck.eq("star-map setup test vectors found", len(bullets), 3)
    for b in bullets:
        m = re.match(r"`([0-9a-f]{2})` × 32, (\d) seats, `(\w+)`: layout `([^`]*)`; start disc (\d+) `([^`]*)` at r(\d+)", b)
        if not m:
            ck.eq("star-map setup test vector", b[:60], "a readable test vector")
            continue
        seed, n, kind = bytes.fromhex(m.group(1)) * 32, int(m.group(2)), m.group(3)
        name = f"star-map setup {m.group(1)}×32 {n} seats {kind}"
        g = _map_game(n, kind, seed)
        d, rot, sqs = g.start
        ck.eq(f"{name}: layout", g.layout_text(), m.group(4))
        ck.eq(f"{name}: start disc", (d, g.fields_text(d), rot), (int(m.group(5)), m.group(6), int(m.group(7))))
        sm = re.search(r"at r\d+ \(([^)]*)\)", b)
        if sm:
            ck.eq(f"{name}: the start disc's fields", ", ".join(f"{map_name(q)} {f or '.'}" for q, f in zip(sqs, g.discs[d][1])), sm.group(1))
        hm = re.search(r"hands (?:\(disc indices\) )?((?:`\[[\d, ]*\]`(?:, )?)+)", b)
        if hm:
            want = [json.loads(x) for x in re.findall(r"`(\[[\d, ]*\])`", hm.group(1))]
        else:
            want = []
            for sm in re.finditer(r"seat (\d): ((?:\d+ `[^`]*`(?:, )?)+)", b):
                pairs = re.findall(r"(\d+) `([^`]*)`", sm.group(2))
                want.append([int(i) for i, _ in pairs])
                ck.eq(f"{name}: seat {sm.group(1)}'s fields", [g.fields_text(i) for i in g.hands[int(sm.group(1))]], [f for _, f in pairs])
        ck.eq(f"{name}: hands", g.hands, want)
        lm = re.search(r"left: corner (\d+), three (\d+), two (\d+), one (\d+)", b)
        if lm:
            ck.eq(f"{name}: stacks left", [len(g.stacks[s]) for s in MAP_SHAPES], [int(x) for x in lm.groups()])
        if "With `hard` the same, every side `s`" in b:
            h = _map_game(n, "hard", seed)
            ck.eq(f"{name}: with hard, every side s", (h.layout_text(), h.start, h.hands),
                  (g.layout_text().replace("b", "s"), g.start, g.hands))
    # -- the drawing example (after the first test vector)
    sect = norm(text[text.index("Example, after the first test vector"):text.index("## Whose turn")])
    g = _map_game(2, "random")
    m = re.search(r"seat 0 places `one1` \(disc (\d+), `(\w)`\) on (\w+): its group is ([\w ]+?), (\w+), (\d) squares: it scores (\d+), and requests draw (\d) from the (\w+) stack", sect)
    ck.eq("star-map drawing example: found", bool(m), True)
    if m:
        d = int(m.group(1))
        ck.eq("star-map drawing example: one1 of seat 0", (g.hands[0][4], g.fields_text(g.hands[0][4])), (d, m.group(2)))
        g.move(0, 5, b"\x01" * 32, None, {"place": {"at": m.group(3), "disc": d, "rotation": 0}}, [], [], [])
        grp = sorted(g.group(map_square(m.group(3))), key=map_reading)
        ck.eq("star-map drawing example: the group", (" ".join(map(map_name, grp)), dict(stars)[g.covered[grp[0]][1]], len(grp)),
              (m.group(4), m.group(5), int(m.group(6))))
        ck.eq("star-map drawing example: points and draw", (g.points[0], g.pending["event"], g.pending["shape"]),
              (int(m.group(7)), int(m.group(8)), m.group(9)))
    m = re.search(r"the seed would be `(\w+)`; `below\((\d+)\)` = (\d+) picks disc (\d+) \(`(\w)`\) from `\[([^\]]*)\]`, and seat 0's hand becomes `(\[[^\]]*\])`", sect)
    ck.eq("star-map drawing example: the draw found", bool(m), True)
    if m and g.pending:
        seed = draw_seed(b"\x01" * 32, g.pending["event"], b"\x02" * 32)
        ck.eq("star-map drawing example: seed", seed.hex(), m.group(1))
        stack = list(g.stacks["one"])
        ck.eq("star-map drawing example: the stack", ", ".join(map(str, stack[:5])) + ", …, " + str(stack[-1]), m.group(6))
        ck.eq("star-map drawing example: below", (len(stack), Draw(seed).below(len(stack))), (int(m.group(2)), int(m.group(3))))
        m2 = re.search(r"Seat 1 then places `two1` \(disc (\d+), `([^`]*)`\) at (\w+) r(\d+): .* the green lies on (\w+), a (\d)-point bonus square of part (\d+): its group has (\d) square, so it scores nothing and the bonus is lost; it requests draw (\d) from the (\w+) stack", sect)
        ck.eq("star-map drawing example: seat 1's placement found", bool(m2), True)
        if m2:
            d2 = int(m2.group(1))
            ck.eq("star-map drawing example: two1 of seat 1", (g.hands[1][2], g.fields_text(d2)), (d2, m2.group(2)))
            sqs = g.squares_of(d2, map_square(m2.group(3)), int(m2.group(4)))
            g.move(1, 6, b"\x03" * 32, b"\x02" * 32, {"place": {"at": m2.group(3), "disc": d2, "rotation": int(m2.group(4))}}, [], [], [])
            ck.eq("star-map drawing example: seat 0's hand after the draw", g.hands[0], json.loads(m.group(7)))
            ck.eq("star-map drawing example: disc drawn", (g.hands[0][-1], g.fields_text(g.hands[0][-1])), (int(m.group(4)), m.group(5)))
            e = map_square(m2.group(5))
            place = e[0] // 3 + 4 * (e[1] // 3)
            ck.eq("star-map drawing example: the green's square", (map_name(sqs[1]), g.squares[12 * e[1] + e[0]], g.layout[place][0]),
                  (m2.group(5), ("bonus", int(m2.group(6))), int(m2.group(7))))
            ck.eq("star-map drawing example: seat 1 scores", (len(g.group(e)), g.points[1], g.pending["event"], g.pending["shape"]),
                  (int(m2.group(8)), 0, int(m2.group(9)), m2.group(10)))
    # -- placing and scoring, case by case (docs "Placing a disc", "Scoring")
    g = _map_position({"a1": "R"})
    ck.eq("star-map two reds score nothing", _map_lay(g, 40, "b1", 0), (0, [("R", "a1 b1")], []))
    ck.eq("star-map a third red scores the group of 3", _map_lay(g, 41, "c1", 0), (3, [("R", "a1 b1 c1")], []))
    ck.eq("star-map a fourth scores 4 (YR turned r180: R on d1)", _map_lay(g, 28, "e1", 180),
          (4, [("Y", "e1"), ("R", "a1 b1 c1 d1")], []))
    ck.eq("star-map a group that grows from 4 to 5 scores 5 again (YR r270: R on a2)", _map_lay(g, 28, "a3", 270),
          (5, [("Y", "a3"), ("R", "a1 b1 c1 d1 a2")], []))
    ck.eq("star-map touching a group only through an empty field adds nothing (.G r90 under e1)", _map_lay(g, 38, "e2", 90),
          (0, [("G", "e3")], []))
    ck.eq("star-map an empty field may touch anything (Y. r180: the empty field beside a3)", _map_lay(g, 36, "c3", 180),
          (0, [("Y", "c3")], []))
    ck.eq("star-map match: a star touching another star", _map_lay(g, 42, "c2", 0)[0], "match")
    ck.eq("star-map overlap", _map_lay(g, 42, "a1", 0)[0], "overlap")
    ck.eq("star-map map-edge", _map_lay(g, 24, "l5", 0)[0], "map-edge")
    ck.eq("star-map contact: touching at a corner only, named", _map_lay(g, 40, "f4", 0),
          ("contact", "the disc touches no disc along an edge (only at a corner, e3)"))
    g = _map_position({"a1": "B", "b1": "B", "c3": "O", "d3": "O"})
    ck.eq("star-map two groups at once both score (BO r90 at c1)", _map_lay(g, 32, "c1", 90),
          (6, [("B", "a1 b1 c1"), ("O", "c2 c3 d3")], []))
    g = _map_position({"a1": "B", "b1": "B", "c3": "O"})
    g.squares[2] = ("bonus", 1)
    g.squares[12 * 1 + 2] = ("bonus", 2)
    ck.eq("star-map a bonus under a star of a group < 3 is lost, even when the other group scores", _map_lay(g, 32, "c1", 90),
          (4, [("B", "a1 b1 c1"), ("O", "c2 c3")], [("c1", 1, True), ("c2", 2, False)]))
    g = _map_position({"c2": "R"})
    g.squares[2] = ("bonus", 3)
    ck.eq("star-map an empty field on a bonus loses it", _map_lay(g, 35, "b1", 0), (0, [("O", "b1")], [("c1", 3, False)]))
    ck.eq("star-map a one-kind three scores 3 by itself", _map_lay(g, 12, "d1", 0), (3, [("O", "d1 e1 f1")], []))
    g = _map_position({"b2": None})
    g.squares[12 * 1 + 2] = ("only", "B")
    g.squares[1] = ("meteorite",)
    g.squares[12 * 2 + 1] = ("not", "G")
    ck.eq("star-map only-star square: another star", _map_lay(g, 42, "c2", 0)[0], "star-square")
    ck.eq("star-map only-star square: an empty field is refused", _map_lay(g, 35, "c3", 270)[0], "star-square")
    ck.eq("star-map meteorite: a star", _map_lay(g, 40, "b1", 0)[0], "meteorite")
    ck.eq("star-map meteorite: an empty field", _map_lay(g, 38, "b1", 180), (0, [("G", "a1")], []))
    ck.eq("star-map crossed-out: that star", _map_lay(g, 46, "b3", 0)[0], "crossed-out-star")
    ck.eq("star-map crossed-out: an empty field is fine", _map_lay(g, 38, "b3", 0), (0, [("G", "c3")], []))
    g = _map_position({"b2": "R"})
    g.squares[12 * 1 + 2] = ("only", "B")
    ck.eq("star-map all of rule 4 before rule 5", _map_lay(g, 42, "c2", 0)[0], "match")
    ck.eq("star-map start-disc: the rule's name before the first placement", _map_game().refusal(40, (0, 0), 0)[0], "start-disc")
    # a one is not turned (docs "Moves"), checked after `hand` ("Checks, in order")
    def first_move(seat, act):
        g = _map_game(2, "random")
        try:
            g.move(seat, 5, None, None, act, [], [], [])
            return "ok"
        except GameError as e:
            return e.detail.split(":")[0]

    ck.eq("star-map a one turned 90: rule rotation; 0: fine; another seat's one turned: rule hand",
          [first_move(0, {"place": {"at": "h6", "disc": 42, "rotation": r}}) for r in (90, 0)]
          + [first_move(0, {"place": {"at": "h6", "disc": 46, "rotation": 90}})],
          ["rule rotation" if "its rotation must be 0 (rule `rotation`" in flat else "ok", "ok", "rule hand"])
    # standings: equal scores share a rank; with four seats teams rank as teams (1 and 2)
    g = _map_game(3)
    g.points = [3, 5, 3]
    ck.eq("star-map standings, 3 seats", g.standings(), [(1, 1, 5), (2, 0, 3), (2, 2, 3)])
    g.hands = [[] for _ in range(3)]
    ck.eq("star-map standings, 3 seats, seat 1 resigned: last whatever its score", g.standings(1), [(1, 0, 3), (1, 2, 3), (3, 1, 5)])
    g = _map_game(4)
    g.points = [5, 3, 1, 0]
    ck.eq("star-map standings, teams: the team's score, the other team second", g.standings(),
          [(1, 0, 6), (1, 2, 6), (2, 1, 3), (2, 3, 3)])
    g.points = [1, 2, 1, 0]
    ck.eq("star-map standings, teams tied: all four first", g.standings(), [(1, 0, 2), (1, 1, 2), (1, 2, 2), (1, 3, 2)])
    g.points = [0, 5, 0, 5]
    g.hands = [[] for _ in range(4)]
    ck.eq("star-map standings, seat 1 withdrawn: its team second, whatever its score", g.standings(1),
          [(1, 0, 0), (1, 2, 0), (2, 1, 10), (2, 3, 10)])
    g.hands[0] = [0, 40]
    ck.eq("star-map standings once over: minus points, a corner 3 and a one 1", g.standings(3), [(1, 0, -4), (1, 2, -4), (2, 1, 10), (2, 3, 10)])


def _map_layout_words(text):
    """A layout as `--map LAYOUT` takes it: 16 words IDb / IDs."""
    words = re.split(r"[\s,/]+", text.strip())
    return [{"part": int(w[:-1]), "side": "bonus" if w[-1].lower() == "b" else "symbols"} for w in words]


def check_star_map_position(ck, text):
    """docs/star-map.md, "Scoring a position": the example position laid and
    scored by the rules above, against the answer the doc prints."""
    if "## Scoring a position" not in text:
        return
    sect = text[text.index("## Scoring a position"):]
    pos = json.loads(doc_block(sect, "```json\n", "\n```"))
    answer = doc_block(sect, "```text\n", "\n```")

    def board(layout):
        g = StarMap({"map": {"layout": _map_layout_words(layout)}}, 2)
        g.setup(bytes(32))
        g.covered, g.placed = {}, 0
        start = pos["start"]
        g.discs = list(g.discs) + [("corner", tuple(None if c == "." else c for c in start["fields"]))]
        rot = start.get("rotation", 0)
        for q, f in zip(g.squares_of(len(g.discs) - 1, MAP_START_ELBOW[rot], rot), g.discs[-1][1]):
            g.covered[q] = (len(g.discs) - 1, f)
        return g

    def lay(g, p):
        g.discs.append((p["shape"], tuple(None if c == "." else c for c in p["fields"])))
        return _map_lay(g, len(g.discs) - 1, p["at"], p.get("rotation", 0))

    g = board(pos["map"])
    names = dict(g.stars)
    m = re.search(r"\(the bonus squares near the centre of this map: ([\w, ]+?), (\d) point each\)", " ".join(sect.split()))
    if m:
        sqs = re.split(r", (?:and )?| and ", m.group(1))
        ck.eq("star-map position example: its bonus squares", [g.squares[12 * map_square(q)[1] + map_square(q)[0]] for q in sqs],
              [("bonus", int(m.group(2)))] * len(sqs))
    got, total = [], 0
    for i, p in enumerate(pos["placements"]):
        r = lay(g, p)
        if isinstance(r[0], str):
            got.append(f"refused: {r[0]}")
            break
        pts, groups, bonuses = r
        total += pts
        lines = [f"{i + 1}. {pts or 'nothing'} total {total}"]
        lines += [f"{names[f]} {len(q.split())}: {q}" for f, q in groups if len(q.split()) >= 3]
        lines += [f"bonus {k} on {sq}: {'earned' if e else 'lost'}" for sq, k, e in bonuses]
        got.append(lines)
    want = []
    for ln in answer.splitlines():
        m = re.match(r"\s*(\d+)\. .*: (?:(\d+) points|(nothing)), total (\d+)$", ln)
        if m:
            want.append([f"{m.group(1)}. {m.group(2) and int(m.group(2)) or 'nothing'} total {m.group(4)}"])
        elif ln.startswith("      ") and want:
            want[-1].append(ln.strip())
    ck.eq("star-map position example: each placement's points, groups and bonuses", got, want)
    m = re.search(r"Total: (\d+) points from (\d+) placements", sect)
    ck.eq("star-map position example: total", (total, len(pos["placements"])), (int(m.group(1)), int(m.group(2))) if m else None)
    m = re.search(r"with the same parts on their symbol side \(`([^`]*)`, where (\w+) is a meteorite\), after a (\w+) one on (\w+):", " ".join(sect.split()))
    e = re.search(r"placement 2 \(one `(\w)` on (\w+)\): .*\(rule: (\w+)\)", sect)
    if m and e:
        lay_words = " ".join(f"{i}s" for i in range(1, 17))
        g = board(lay_words)
        first = lay(g, {"shape": "one", "fields": {v: c for c, v in g.stars}[m.group(3)], "at": m.group(4)})
        second = lay(g, {"shape": "one", "fields": e.group(1), "at": e.group(2)})
        ck.eq("star-map position example: the symbol sides refuse the second placement",
              (m.group(1) == "1s 2s … 16s", isinstance(first[0], int), second[0], g.squares[12 * map_square(m.group(2))[1] + map_square(m.group(2))[0]]),
              (True, True, e.group(3), ("meteorite",)))
    else:
        ck.eq("star-map position example: the refused placement found", False, True)

def check_star_map_referee(ck, referee):
    """docs/referee.md, "A Star Map example": the input replayed with the seeds
    it gives, against the states it prints and the prose around them."""
    sect = referee[referee.index("## A Star Map example"):]
    sect = sect[:sect.index("\n## ", 4)]
    inp = json.loads(doc_block(sect, "```json\n", "\n```"))
    want = [json.loads(ln.replace('"view":{…}', '"view":null')) for ln in doc_block(sect, "```text\n", "\n```").splitlines() if ln.strip()]
    flat = " ".join(sect.split())

    def fresh():
        g = StarMap(inp["options"], inp["seats"])
        g.setup(bytes.fromhex(inp["setup"]))
        return g

    g = fresh()
    m = re.search(r"The seed `01…01` lays out `([^`]*)`, puts the start disc `([^`]*)` on (\w+), (\w+) and (\w+) \(r(\d+)\)", flat)
    d, rot, sqs = g.start
    ck.eq("star-map referee.md example: layout and start disc", (g.layout_text(), g.fields_text(d), sorted(map(map_name, sqs)), rot),
          (m.group(1), m.group(2), sorted(m.groups()[2:5]), int(m.group(6))) if m else None)
    for seat_txt in re.findall(r"deals seat 0 (.*?), seat 1 (.*?), among others", flat):
        for s, part in enumerate(seat_txt):
            for fields, disc in re.findall(r"`([^`]*)` \(disc (\d+)\)", part):
                ck.eq(f"star-map referee.md example: seat {s} is dealt disc {disc}", (int(disc) in g.hands[s], g.fields_text(int(disc))), (True, fields))

    def state():
        return ({"kind": "move", "seat": g.turn[1]} if g.turn else {"kind": "over"},
                [{"event": g.pending["event"], "causer": g.pending["causer"]}] if g.pending else [],
                {"kind": g.over} if g.over else None,
                [{"seat": s, "rank": r, "score": x} for r, s, x in g.standings()])

    def describe(act):
        p = act["place"]
        disc = p["disc"]
        pts, groups, bonuses = g.last_score
        names = dict(g.stars)
        parts = [f"{names[f]} {len(q)}" for f, q in groups if len(q) >= 3]
        parts += [f"+{k} {sq}" + ("" if earned else " lost") for sq, k, earned in bonuses]
        return f"{g.discs[disc][0]} {g.fields_text(disc)} on {p['at']} r{p['rotation']}, {pts} points" + (f" ({', '.join(parts)})" if parts else "")

    got = [(state(), "setup")]
    for i, a in enumerate(inp["actions"]):
        try:
            for dr in a.get("draws") or []:
                if g.pending and g.pending["event"] == dr["event"]:
                    g.resolve(a["seat"], None, bytes.fromhex(dr["seed"]))
            g.move(a["seat"], a.get("entry", 5 + i), None, None, a["move"], [], [], [])
        except GameError as e:
            got.append((e.fault, e.detail))
            break
        got.append((state(), describe(a["move"])))
    ck.eq("star-map referee.md example: states", got,
          [((w["turn"], w["pending"], w["ending"], w["standings"]), w["describe"]) for w in want])
    # the three variations of action 1
    g = fresh()
    g.move(0, 5, None, None, inp["actions"][0]["move"], [], [], [])
    # (the referee checks the turn first, as protocol.md 8's S9 does in a log)
    ck.eq("star-map referee.md example: seat 0 takes action 1's turn", "out-of-turn" if g.turn != ("move", 0) else "accepted",
          "out-of-turn" if "refused as out of turn (19)" in flat else "?")
    m = re.search(r"put action 1's two on (\w+) \(rotation (\d+)\), .*? and it is an illegal move \(20, rule `(\w+)`\)", flat)
    try:
        g.resolve(1, None, b"\x02" * 32)
        g.move(1, 6, None, None, {"place": {"at": m.group(1), "disc": inp["actions"][1]["move"]["place"]["disc"], "rotation": int(m.group(2))}}, [], [], [])
        ck.eq("star-map referee.md example: action 1 on h5", "accepted", m.group(3))
    except GameError as e:
        ck.eq("star-map referee.md example: action 1 on h5", (e.fault, e.detail.split(":")[0]), ("illegal-move", f"rule {m.group(3)}"))

def cmd_doc(ck):
    with open(os.path.join(ROOT, "docs/protocol.md"), encoding="utf-8") as f:
        text = f.read()
    before = ck.failed
    check_primitives(ck, text)
    check_short_game(ck, text)
    with open(os.path.join(ROOT, "docs/starry-sky.md"), encoding="utf-8") as f:
        check_starry_sky_examples(ck, f.read())
    with open(os.path.join(ROOT, "docs/starry-night.md"), encoding="utf-8") as f, \
            open(os.path.join(ROOT, "docs/referee.md"), encoding="utf-8") as f2:
        check_starry_night_examples(ck, f.read(), f2.read())
    with open(os.path.join(ROOT, "docs/star-map.md"), encoding="utf-8") as f, \
            open(os.path.join(ROOT, "docs/referee.md"), encoding="utf-8") as f2:
        text = f.read()
        check_star_map_examples(ck, text)
        check_star_map_position(ck, text)
        check_star_map_referee(ck, f2.read())
    print(f"doc values: {'all match' if ck.failed == before else str(ck.failed - before) + ' mismatches'} ({ck.passed} checks passed)")


# ------------------------------------------------------------ vectors


def check_night_example(ck, base, r, readme):
    """A Starry Night example game: what its name and its row of
    examples/games/README.md say, and the claims of docs/starry-night.md that
    the replay can see (a captured sea never changes, one capture per edge)."""
    g = r.game
    ck.eq(f"example {base}: game", type(g).__name__, "StarryNight")
    if not isinstance(g, StarryNight):
        return
    ck.eq(f"example {base}: the doc's claims hold after every edge", g.anomalies, [])
    m = re.match(r"starry-night-(finished|in-progress)-(count|area)\.jsonl", base)
    if m:
        ck.eq(f"example {base}: over", r.ended, "finished" if m.group(1) == "finished" else None)
        ck.eq(f"example {base}: score", g.score_kind, m.group(2))
    row = re.search(r"^\| `" + re.escape(base) + r"` \| (\d+) \| ([^|]*) \| ([^|]*) \|", readme, re.M)
    if row:  # the parts of the row this program can read; other wording is not judged
        players, variants, state = int(row.group(1)), row.group(2), row.group(3)
        ck.eq(f"example {base}: players (README)", r.n, players)
        sky = re.search(r"random sky of (\d+) stars on (\d+)×(\d+)", variants)
        if sky:
            ck.eq(f"example {base}: random sky (README)", (g.given, g.count, g.width, g.height),
                  (None, int(sky.group(1)), int(sky.group(2)), int(sky.group(3))))
        sky = re.search(r"given sky of (\d+) stars", variants)
        if sky:
            ck.eq(f"example {base}: given sky (README)", len(g.given or []), int(sky.group(1)))
        sc_ = re.search(r"score=(\w+)", variants)
        if sc_:
            ck.eq(f"example {base}: score (README)", g.score_kind, sc_.group(1))
        if state.startswith("finished"):
            ck.eq(f"example {base}: finished (README)", r.ended, "finished")
        if "countersigned by both" in state:
            ck.eq(f"example {base}: countersigned by both (README)", sorted(r.countersigned), [0, 1])
        tb = re.search(r"(\w+) asked for two takebacks, (\w+) accepted one and declined the other", state)
        if tb:
            names = [s_["name"] for s_ in r.entries[0][1]["data"]["seats"]]
            ck.eq(f"example {base}: takebacks (README)",
                  sorted((names[t[1]], t[2]) for t in g.takebacks),
                  [(tb.group(1), "accepted"), (tb.group(1), "declined")])
            ck.eq(f"example {base}: the answerer (README)", names.index(tb.group(2)) if tb.group(2) in names else None,
                  1 - g.takebacks[0][1] if g.takebacks else None)
    else:
        ck.eq(f"example {base}: a row in examples/games/README.md", "none", "a row")
    print(f"  {base}: standings (rank seat {g.unit}) {standings_text(r)}; countersigned by {sorted(r.countersigned)}")
    for ln in g.summary():
        print(f"    {ln}")


def check_map_example(ck, base, r, readme):
    """A Star Map example game: what its name and its row of
    examples/games/README.md say, and the claims of docs/star-map.md that the
    replay can see (a pass only right after a placement that requested a
    draw, the length bound, partners sharing their score and rank)."""
    g = r.game
    ck.eq(f"example {base}: game", type(g).__name__, "StarMap")
    if not isinstance(g, StarMap):
        return
    ck.eq(f"example {base}: the doc's claims hold after every move", g.anomalies, [])
    ck.eq(f"example {base}: at most 2 × (discs − 1) moves", g.moves <= StarMap.bound(len(g.discs)), True)
    rows = r.standings()
    if g.teams:
        by = {s: (rank, x) for rank, s, x in rows}
        ck.eq(f"example {base}: partners share score and rank", [by[s] == by[(s + 2) % 4] for s in range(4)], [True] * 4)
    m = re.match(r"star-map-(\d)-players((?:-[\w]+)*)\.jsonl", base)
    if m:
        ck.eq(f"example {base}: seats", r.n, int(m.group(1)))
        for w in m.group(2).split("-")[1:]:
            if w in MAP_KEYWORDS:
                ck.eq(f"example {base}: map", g.map_kind, w)
            if w in ("easy", "hard"):
                ck.eq(f"example {base}: every side", {side for _, side in g.layout}, {"bonus" if w == "easy" else "symbols"})
            if w == "teams":
                ck.eq(f"example {base}: teams", (r.n, g.teams), (4, True))
    row = re.search(r"^\| `" + re.escape(base) + r"` \| (\d+) \| ([^|]*) \| ([^|]*) \|", readme, re.M)
    if row:  # the parts of the row this program can read; other wording is not judged
        players, variants, state = int(row.group(1)), row.group(2), row.group(3)
        ck.eq(f"example {base}: players (README)", r.n, players)
        mm = re.search(r"map=(\w+)", variants)
        if mm:
            ck.eq(f"example {base}: map (README)", g.map_kind, mm.group(1))
        if state.startswith("finished"):
            ck.eq(f"example {base}: finished (README)", r.ended, "finished")
        if "countersigned by all" in state or "countersigned by both" in state:
            ck.eq(f"example {base}: countersigned (README)", sorted(r.countersigned), list(range(r.n)))
    else:
        ck.eq(f"example {base}: a row in examples/games/README.md", "none", "a row")
    print(f"  {base}: standings (rank seat {g.unit}) {standings_text(r)}; countersigned by {sorted(r.countersigned)}")
    for ln in g.summary(over=bool(r.ended)):
        print(f"    {ln}")

def cmd_vectors():
    ck = Checker()
    cmd_doc(ck)
    # the noncharacters of the name rule, either side of each range (protocol.md 3.4)
    for o, ok in [(0xFDCF, True), (0xFDD0, False), (0xFDEF, False), (0xFDF0, True), (0xFFFD, True),
                  (0xFFFE, False), (0xFFFF, False), (0x10000, True), (0x1FFFD, True), (0x1FFFE, False),
                  (0x1FFFF, False), (0x10FFFD, True), (0x10FFFE, False), (0x10FFFF, False)]:
        ck.eq(f"a name holding U+{o:04X} is {'allowed' if ok else 'refused'}", name_fault(f"Ann{chr(o)}a") is None, ok)
    ck.eq("66 noncharacters", sum(is_noncharacter(o) for o in range(0x110000)), 66)
    vdir = os.path.join(ROOT, "tests/vectors")
    with open(os.path.join(vdir, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    results = {}

    def run(path):
        if path not in results:
            results[path] = audit_file(path)
        return results[path]

    for v in manifest["vectors"]:
        r, fault = run(os.path.join(vdir, v["file"]))
        got = (fault.name, fault.entry) if fault else ("ok", None)
        want = (v["expect"], v["entry"])
        ck.eq(f"vector {v['file']} ({describe(r, fault)})", got, want)
    for e in manifest.get("endings", []):
        r, fault = run(os.path.join(vdir, e["file"]))
        ck.eq(f"ending of {e['file']}", None if fault else r.ended, e["ending"])
    for p in manifest.get("pairs", []):
        (ra, fa), (rb, fb) = (run(os.path.join(vdir, x)) for x in p["files"])
        name = " + ".join(p["files"])
        if fa or fb:
            ck.eq(f"pair {name}: both copies valid", (describe(ra, fa), describe(rb, fb)), ("ok", "ok"))
            continue
        verdict, entry, detail = compare(ra, rb)
        expect = "fork" if p["expect"] == "fork" else f"ok ({p['resolution']})"
        ck.eq(f"pair {name} verdict ({detail})", (verdict, entry), (expect, p["entry"]))
        ck.eq(f"pair {name} same author", ra.entries[entry][1]["author"] == rb.entries[entry][1]["author"],
              p["same_author"])
        # the verdict must not depend on the order of the copies
        ck.eq(f"pair {name} verdict, copies swapped", compare(rb, ra)[:2], (expect, p["entry"]))
    # short-game.jsonl's standings against the doc
    with open(os.path.join(ROOT, "docs/protocol.md"), encoding="utf-8") as f:
        m = re.search(r"final standings \(rank seat coins\): (.*)", f.read())
    r, fault = run(os.path.join(vdir, "short-game.jsonl"))
    ck.eq("short-game.jsonl final standings", None if fault else standings_text(r), m.group(1).strip())
    # the example games: valid, and what their names say
    try:
        with open(os.path.join(ROOT, "examples/games/README.md"), encoding="utf-8") as f:
            readme = f.read()
    except OSError:
        readme = ""
    for path in sorted(glob.glob(os.path.join(ROOT, "examples/games/*.jsonl"))):
        r, fault = run(path)
        base = os.path.basename(path)
        ck.eq(f"example {base}", describe(r, fault), "ok")
        if not fault and base.startswith("starry-night-"):
            check_night_example(ck, base, r, readme)
            continue
        if not fault and base.startswith("star-map-"):
            check_map_example(ck, base, r, readme)
            continue
        m = re.match(r"(finished|in-progress)-(\d)p(?:-(\w+)-(\w+))?\.jsonl", base)
        if fault or not m:
            continue
        ck.eq(f"example {base}: seats", r.n, int(m.group(2)))
        ck.eq(f"example {base}: over", r.ended, "finished" if m.group(1) == "finished" else None)
        if m.group(3):
            ck.eq(f"example {base}: options", (r.game.doubling, r.game.tie), (m.group(3), m.group(4)))
        if r.ended:
            print(f"  {base}: standings (rank seat coins) {standings_text(r)}; countersigned by {sorted(r.countersigned)}")
    print(f"{ck.passed} passed, {ck.failed} failed")
    return 1 if ck.failed else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "audit" and len(argv) >= 3:
        return cmd_audit(argv[2:])
    if len(argv) == 2 and argv[1] == "vectors":
        return cmd_vectors()
    if len(argv) == 2 and argv[1] == "doc":
        ck = Checker()
        cmd_doc(ck)
        return 1 if ck.failed else 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
