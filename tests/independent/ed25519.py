"""Pure-Python Ed25519 (RFC 8032) with strict verification.

Strict means: R and A must be canonical point encodings (y < p, and no
"negative zero" x), S must be < L, R and A must not be of small order, and
the equation checked is the cofactorless [S]B = R + [k]A.
"""
import hashlib

P = 2 ** 255 - 19
L = 2 ** 252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P
D2 = (2 * D) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)

# Points are in extended coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, xy = T/Z.
IDENTITY = (0, 1, 1, 0)


def point_add(p, q):
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = t1 * D2 * t2 % P
    d = 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def point_double(p):
    x1, y1, z1, _ = p
    a = x1 * x1 % P
    b = y1 * y1 % P
    c = 2 * z1 * z1 % P
    h = a + b
    e = h - (x1 + y1) * (x1 + y1)
    g = a - b
    f = c + g
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def point_neg(p):
    x, y, z, t = p
    return (-x % P, y, z, -t % P)


def point_equal(p, q):
    x1, y1, z1, _ = p
    x2, y2, z2, _ = q
    return (x1 * z2 - x2 * z1) % P == 0 and (y1 * z2 - y2 * z1) % P == 0


def is_identity(p):
    return point_equal(p, IDENTITY)


def encode_point(p):
    x, y, z, _ = p
    zi = pow(z, P - 2, P)
    x, y = x * zi % P, y * zi % P
    return int.to_bytes(y | ((x & 1) << 255), 32, "little")


def decode_point(s):
    """Strict decoding; returns None for anything not a canonical encoding."""
    if len(s) != 32:
        return None
    v = int.from_bytes(s, "little")
    sign = v >> 255
    y = v & ((1 << 255) - 1)
    if y >= P:
        return None  # non-canonical y
    u = (y * y - 1) % P
    w = (D * y * y + 1) % P
    # x = sqrt(u / w), RFC 8032 5.1.3
    x = u * pow(w, 3, P) * pow(u * pow(w, 7, P), (P - 5) // 8, P) % P
    if (w * x * x - u) % P != 0:
        x = x * SQRT_M1 % P
        if (w * x * x - u) % P != 0:
            return None
    if x == 0 and sign:
        return None  # "negative zero": non-canonical
    if x & 1 != sign:
        x = P - x
    return (x, y, 1, x * y % P)


BY = 4 * pow(5, P - 2, P) % P
BASE = decode_point(int.to_bytes(BY, 32, "little"))

# Fixed-base table: BASE_POW[i] = [2^i]B.
BASE_POW = [BASE]
for _ in range(255):
    BASE_POW.append(point_double(BASE_POW[-1]))


def base_mult(k):
    q = IDENTITY
    i = 0
    while k:
        if k & 1:
            q = point_add(q, BASE_POW[i])
        k >>= 1
        i += 1
    return q


def scalar_mult(p, k):
    """Fixed 4-bit window multiplication."""
    table = [IDENTITY, p]
    for _ in range(14):
        table.append(point_add(table[-1], p))
    q = IDENTITY
    for shift in range(252, -1, -4):
        q = point_double(point_double(point_double(point_double(q))))
        q = point_add(q, table[(k >> shift) & 15])
    return q


def is_small_order(p):
    return is_identity(point_double(point_double(point_double(p))))


def sha512_int(*parts):
    h = hashlib.sha512()
    for x in parts:
        h.update(x)
    return int.from_bytes(h.digest(), "little")


def public_key(seed):
    """RFC 8032 5.1.5: the public key of a 32-byte secret seed."""
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    return encode_point(base_mult(a))


def sign(seed, msg):
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    A = encode_point(base_mult(a))
    r = sha512_int(h[32:], msg) % L
    R = encode_point(base_mult(r))
    k = sha512_int(R, A, msg) % L
    return R + int.to_bytes((r + k * a) % L, 32, "little")


_key_cache = {}


def valid_key(key):
    """A public key usable for verification: canonical point, not of small order."""
    if key not in _key_cache:
        p = decode_point(key)
        _key_cache[key] = None if p is None or is_small_order(p) else p
    return _key_cache[key] is not None


def verify_strict(key, msg, sig):
    if len(sig) != 64 or not valid_key(key):
        return False
    A = _key_cache[key]
    Rb, Sb = sig[:32], sig[32:]
    R = decode_point(Rb)
    if R is None or is_small_order(R):
        return False
    s = int.from_bytes(Sb, "little")
    if s >= L:
        return False
    k = sha512_int(Rb, key, msg) % L
    # [S]B - [k]A must equal R exactly (cofactorless).
    check = point_add(base_mult(s), point_neg(scalar_mult(A, k)))
    return point_equal(check, R)
