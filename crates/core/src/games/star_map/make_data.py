#!/usr/bin/env python3
"""Makes the shipped Star Map set: discs.json and parts.json (next to this
script, or in the folder given as the only argument) and prints the balance
tables of docs/star-map.md ("The shipped set").

The real game's disc and map-part contents are not published; this set is
ours. The script is deterministic (a fixed seed, Python's `random`, stdlib
only): running it again writes the same files byte for byte. It checks every
design rule below with asserts before it writes anything.

Discs (56: 12 corner, 12 three, 16 two, 16 one; 120 fields):
- 15 empty fields, so 105 stars: exactly 15 of each of the 7 stars.
- Per shape, the counts of the 7 stars differ by at most 1 (STAR_TARGETS).
- Each disc follows a pattern (TEMPLATES): letters are stars, equal letters
  equal stars, different letters different stars, `.` an empty field. At
  most one empty field per disc, only on corner, three and two discs, spread
  over the elbow, the arms, the ends and the middle.
- The 7 single-star-kind discs (`aaa` / `aa`) are one per star.
- No two discs are the same (up to rotation), except the one-field discs.
- A search spreads the neighbouring pairs of different stars over the 21
  pairs of stars and the neighbouring equal pairs over the 7 stars.

Map parts (16, each double-sided, 3 x 3 squares):
- Bonus side: 2 or 3 bonus squares (values 1-3, mostly 1 and 2).
- Symbols side: 2-4 restrictions and 1-2 bonus squares. In all 21 `=X` and
  21 `!X` (3 of each per star) and 7 meteorites `#`. No star twice on a
  part, at most one meteorite per part, never two `=X` side by side (only
  one disc could cover them), other symbols side by side rarely, at most one
  restriction on a part's corner squares (any corner can be a centre square
  of the map, which is always plain).
"""

import json
import os
import random
import sys

SEED = 3003

STARS = [
    ("R", "red"),
    ("O", "orange"),
    ("Y", "yellow"),
    ("G", "green"),
    ("B", "blue"),
    ("V", "violet"),
    ("W", "white"),
]
CODES = [c for c, _ in STARS]
SHAPES = ["corner", "three", "two", "one"]
COUNT = {"corner": 12, "three": 12, "two": 16, "one": 16}
SIZE = {"corner": 3, "three": 3, "two": 2, "one": 1}
# Neighbouring fields on a disc. Corner: elbow, right arm, lower arm (the two
# arms touch only diagonally). Three: left, middle, right.
ADJ = {"corner": [(0, 1), (0, 2)], "three": [(0, 1), (1, 2)], "two": [(0, 1)], "one": []}
POSITION_NAMES = {
    "corner": ["elbow", "right arm", "lower arm"],
    "three": ["end", "middle", "end"],
    "two": ["end", "end"],
    "one": ["-"],
}

TEMPLATES = {
    # 7 full + 5 with an empty field (elbow 2, right arm 2, lower arm 1)
    "corner": ["aaa", "aaa", "abc", "abc", "aab", "aba", "abb",
               ".aa", ".ab", "a.a", "a.b", "ab."],
    # 7 full + 5 with an empty field (ends 3, middle 2)
    "three": ["aaa", "aaa", "abc", "abc", "aab", "aab", "aba",
              ".aa", ".ab", "ab.", "a.a", "a.b"],
    # 11 full + 5 with an empty field
    "two": ["aa", "aa", "aa"] + ["ab"] * 8 + ["a.", "a.", "a.", ".a", ".a"],
    "one": ["a"] * 16,
}

# Stars per shape, R O Y G B V W. Each row differs by at most 1; each column
# adds up to 15.
STAR_TARGETS = {
    "corner": [5, 4, 5, 4, 4, 4, 5],  # 31 stars + 5 empty = 36 fields
    "three": [4, 5, 4, 5, 4, 5, 4],   # 31 stars + 5 empty = 36 fields
    "two": [4, 4, 4, 4, 4, 4, 3],     # 27 stars + 5 empty = 32 fields
    "one": [2, 2, 2, 2, 3, 2, 3],     # 16 stars
}


# ---------------------------------------------------------------- discs

def realise(template, assign):
    return "".join("." if t == "." else CODES[assign[t]] for t in template)


def canonical(shape, fields):
    """The same disc turned round reads the same way (no flipping)."""
    if shape in ("three", "two"):
        return min(fields, fields[::-1])
    return fields  # corner: field order is fixed under rotation; one: itself


def disc_cost(state):
    """state: list of (shape, template, assign). Lower is better."""
    cost = 0
    counts = {s: [0] * 7 for s in SHAPES}
    seen = {s: {} for s in SHAPES}
    mono = [0] * 7
    equal_pairs = [0] * 7
    pairs = {}
    for shape, template, assign in state:
        letters = sorted(set(template) - {"."})
        vals = [assign[l] for l in letters]
        if len(set(vals)) != len(vals):
            cost += 1000  # the pattern asks for different stars
        fields = realise(template, assign)
        for c in fields:
            if c != ".":
                counts[shape][CODES.index(c)] += 1
        if shape != "one":
            key = canonical(shape, fields)
            seen[shape][key] = seen[shape].get(key, 0) + 1
        if "." not in template and len(letters) == 1 and shape != "one":
            mono[vals[0]] += 1
        for i, j in ADJ[shape]:
            a, b = fields[i], fields[j]
            if a == "." or b == ".":
                continue
            if a == b:
                equal_pairs[CODES.index(a)] += 1
            else:
                k = tuple(sorted((CODES.index(a), CODES.index(b))))
                pairs[k] = pairs.get(k, 0) + 1
    for s in SHAPES:
        cost += 1000 * sum(abs(a - b) for a, b in zip(counts[s], STAR_TARGETS[s]))
        cost += 1000 * sum(n - 1 for n in seen[s].values())
    cost += 50 * sum((m - 1) ** 2 for m in mono)
    mean_eq = sum(equal_pairs) / 7
    cost += 10 * sum((e - mean_eq) ** 2 for e in equal_pairs)
    all_pairs = [pairs.get((a, b), 0) for a in range(7) for b in range(a + 1, 7)]
    mean_p = sum(all_pairs) / len(all_pairs)
    cost += 5 * sum((p - mean_p) ** 2 for p in all_pairs)
    return cost


def make_discs(rng):
    # The discs of one star kind (2 corner, 2 three, 3 two) get one star
    # each, dealt first; the search leaves them alone.
    mono_stars = list(range(7))
    rng.shuffle(mono_stars)
    state = []
    fixed = set()
    for shape in SHAPES:
        if shape == "one":
            stars = [i for i in range(7) for _ in range(STAR_TARGETS["one"][i])]
            for i in stars:
                fixed.add(len(state))
                state.append(("one", "a", {"a": i}))
            continue
        for t in TEMPLATES[shape]:
            letters = sorted(set(t) - {"."})
            if "." not in t and len(letters) == 1:
                fixed.add(len(state))
                state.append((shape, t, {"a": mono_stars.pop()}))
                continue
            picks = rng.sample(range(7), len(letters))
            state.append((shape, t, dict(zip(letters, picks))))
    assert not mono_stars
    movable = [i for i in range(len(state)) if i not in fixed]
    cost = disc_cost(state)
    temp = 40.0
    steps = 60000
    for step in range(steps):
        i = rng.choice(movable)
        shape, t, assign = state[i]
        old = dict(assign)
        if rng.random() < 0.5:
            # swap one star with a disc of the same shape (keeps the counts)
            j = rng.choice([k for k in movable if state[k][0] == shape and k != i])
            other = state[j][2]
            oldj = dict(other)
            li = rng.choice(sorted(assign))
            lj = rng.choice(sorted(other))
            assign[li], other[lj] = other[lj], assign[li]
        else:
            j = None
            l = rng.choice(sorted(assign))
            assign[l] = rng.randrange(7)
        new = disc_cost(state)
        if new <= cost or rng.random() < pow(2.718281828, (cost - new) / temp):
            cost = new
        else:
            state[i] = (shape, t, old)
            if j is not None:
                state[j] = (state[j][0], state[j][1], oldj)
        temp = max(0.05, 40.0 * (1 - step / steps))
    discs = [(shape, realise(t, a), t) for shape, t, a in state]
    # Stable, readable order inside each shape: by pattern, then by stars.
    order = {s: {t: k for k, t in enumerate(dict.fromkeys(TEMPLATES[s]))} for s in SHAPES}
    discs.sort(key=lambda d: (SHAPES.index(d[0]), order[d[0]][d[2]],
                              [CODES.index(c) if c != "." else 9 for c in d[1]]))
    return [(s, f) for s, f, _ in discs], cost


# ---------------------------------------------------------------- parts

CORNERS = {0, 2, 6, 8}


def neighbours(p):
    y, x = divmod(p, 3)
    out = []
    for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= y + dy < 3 and 0 <= x + dx < 3:
            out.append((y + dy) * 3 + x + dx)
    return out


# Per part: (restrictions, bonus squares on the symbols side); shuffled.
SYMBOL_PLAN = [(2, 1)] * 3 + [(3, 1)] * 5 + [(3, 2)] * 4 + [(4, 2)] * 4
BONUS_PLAN = [2] * 8 + [3] * 8                                 # bonus side
BONUS_VALUES = [1] * 22 + [2] * 13 + [3] * 5                   # 40 squares
SYMBOL_BONUS_VALUES = [1] * 9 + [2] * 10 + [3] * 5             # 24 squares
RESTRICTIONS = ["=" + c for c in CODES for _ in range(3)] + \
               ["!" + c for c in CODES for _ in range(3)] + ["#"] * 7


def parts_cost(parts):
    """parts: list of {"b": {pos: value}, "s": {pos: token}}."""
    cost = 0
    pos_r = [0] * 9
    pos_b = [0] * 9
    pos_sb = [0] * 9
    corner_r = 0
    totals = []
    for p in parts:
        s, b = p["s"], p["b"]
        restr = {q: t for q, t in s.items() if not t.isdigit()}
        stars = [t[1] for t in restr.values() if t != "#"]
        cost += 1000 * (len(stars) - len(set(stars)))
        cost += 1000 * max(0, list(restr.values()).count("#") - 1)
        cr = sum(1 for q in restr if q in CORNERS)
        corner_r += cr
        cost += 1000 * max(0, cr - 1)
        for q in restr:
            pos_r[q] += 1
            for n in neighbours(q):
                if n in restr and n > q:
                    if restr[q][0] == "=" and restr[n][0] == "=":
                        cost += 1000  # two different stars forced side by side
                    else:
                        cost += 30  # allowed, but keep the symbols apart
        for q, t in s.items():
            if t.isdigit():
                pos_sb[q] += 1
                # a bonus next to a restriction is a reward for meeting it
                if not any(n in restr for n in neighbours(q)):
                    cost += 20
                if q in CORNERS:
                    cost += 15
        for q in b:
            pos_b[q] += 1
            if q in CORNERS:
                cost += 8
            for n in neighbours(q):
                if n in b and n > q:
                    cost += 25  # bonuses side by side
        cbc = sum(1 for q in b if q in CORNERS)
        cost += 200 * max(0, cbc - 1)
        totals.append(sum(b.values()))
        # on the symbols side the points grow with the restrictions
        sb = sum(int(t) for t in s.values() if t.isdigit())
        cost += 10 * (sb - (len(restr) - 0.25)) ** 2
        # the same value twice on a side is dull
        cost += 5 * (len(b) - len(set(b.values())))
    cost += 100 * max(0, corner_r - 7)
    # each kind of symbol spread over the nine squares of a part
    for kind in "=!#":
        arr = [0] * 9
        for p in parts:
            for q, t in p["s"].items():
                if t[0] == kind:
                    arr[q] += 1
        cost += 4 * sum(a * a for a in arr)
    for arr in (pos_r, pos_b, pos_sb):
        m = sum(arr) / 9
        cost += 2 * sum((a - m) ** 2 for a in arr)
    m = sum(totals) / len(totals)
    cost += 10 * sum((t - m) ** 2 for t in totals)
    return cost


def make_parts(rng):
    plan = SYMBOL_PLAN[:]
    rng.shuffle(plan)
    bplan = BONUS_PLAN[:]
    rng.shuffle(bplan)
    restr = RESTRICTIONS[:]
    rng.shuffle(restr)
    bvals = BONUS_VALUES[:]
    rng.shuffle(bvals)
    svals = SYMBOL_BONUS_VALUES[:]
    rng.shuffle(svals)
    parts = []
    for (nr, nb), nbb in zip(plan, bplan):
        squares = rng.sample(range(9), nr + nb)
        s = {}
        for q in squares[:nr]:
            s[q] = restr.pop()
        for q in squares[nr:]:
            s[q] = str(svals.pop())
        b = {q: bvals.pop() for q in rng.sample(range(9), nbb)}
        parts.append({"s": s, "b": b})
    assert not restr and not bvals and not svals

    def snapshot():
        return [{"s": dict(p["s"]), "b": dict(p["b"])} for p in parts]

    cost = parts_cost(parts)
    steps = 60000
    temp = 60.0
    for step in range(steps):
        saved = snapshot()
        r = rng.random()
        i = rng.randrange(16)
        p = parts[i]
        if r < 0.3:
            # swap two restriction tokens between parts
            j = rng.randrange(16)
            qi = rng.choice([q for q, t in p["s"].items() if not t.isdigit()])
            qj = rng.choice([q for q, t in parts[j]["s"].items() if not t.isdigit()])
            p["s"][qi], parts[j]["s"][qj] = parts[j]["s"][qj], p["s"][qi]
        elif r < 0.55:
            # move a symbols-side square to a free square
            q = rng.choice(sorted(p["s"]))
            free = [f for f in range(9) if f not in p["s"]]
            f = rng.choice(free)
            p["s"][f] = p["s"].pop(q)
        elif r < 0.75:
            q = rng.choice(sorted(p["b"]))
            free = [f for f in range(9) if f not in p["b"]]
            f = rng.choice(free)
            p["b"][f] = p["b"].pop(q)
        elif r < 0.9:
            j = rng.randrange(16)
            qi = rng.choice(sorted(p["b"]))
            qj = rng.choice(sorted(parts[j]["b"]))
            p["b"][qi], parts[j]["b"][qj] = parts[j]["b"][qj], p["b"][qi]
        else:
            j = rng.randrange(16)
            qi = rng.choice([q for q, t in p["s"].items() if t.isdigit()])
            qj = rng.choice([q for q, t in parts[j]["s"].items() if t.isdigit()])
            p["s"][qi], parts[j]["s"][qj] = parts[j]["s"][qj], p["s"][qi]
        new = parts_cost(parts)
        if new <= cost or rng.random() < pow(2.718281828, (cost - new) / temp):
            cost = new
        else:
            parts[:] = saved
        temp = max(0.05, 60.0 * (1 - step / steps))
    return parts, cost


def side_rows(squares):
    return [" ".join(str(squares.get(y * 3 + x, ".")) for x in range(3)) for y in range(3)]


# ---------------------------------------------------------------- checks

def check_discs(discs):
    assert len(discs) == 56
    assert [s for s, _ in discs] == [s for s in SHAPES for _ in range(COUNT[s])]
    total = [0] * 7
    empty = 0
    for shape in SHAPES:
        fs = [f for s, f in discs if s == shape]
        counts = [sum(f.count(c) for f in fs) for c in CODES]
        assert counts == STAR_TARGETS[shape], (shape, counts)
        assert max(counts) - min(counts) <= 1
        for f in fs:
            assert len(f) == SIZE[shape]
            assert f.count(".") <= 1 and f.strip(".")
            assert set(f) <= set(CODES) | {"."}
        if shape != "one":
            keys = [canonical(shape, f) for f in fs]
            assert len(keys) == len(set(keys)), shape
        total = [a + b for a, b in zip(total, counts)]
        empty += sum(f.count(".") for f in fs)
    assert total == [15] * 7 and empty == 15
    assert sum(len(f) for _, f in discs) == 120


def check_parts(parts):
    assert len(parts) == 16
    eq = {c: 0 for c in CODES}
    no = {c: 0 for c in CODES}
    met = 0
    corner_r = 0
    for p in parts:
        s, b = p["s"], p["b"]
        assert 2 <= len(b) <= 3 and all(1 <= v <= 3 for v in b.values())
        restr = {q: t for q, t in s.items() if not t.isdigit()}
        bon = [t for t in s.values() if t.isdigit()]
        assert 2 <= len(restr) <= 4 and 1 <= len(bon) <= 2
        stars = [t[1] for t in restr.values() if t != "#"]
        assert len(stars) == len(set(stars))
        assert list(restr.values()).count("#") <= 1
        for q, t in restr.items():
            if t[0] == "=":
                assert not any(restr.get(n, "")[:1] == "=" for n in neighbours(q))
        cr = sum(1 for q in restr if q in CORNERS)
        assert cr <= 1
        corner_r += cr
        for t in restr.values():
            if t == "#":
                met += 1
            elif t[0] == "=":
                eq[t[1]] += 1
            else:
                no[t[1]] += 1
    assert all(v == 3 for v in eq.values()) and all(v == 3 for v in no.values())
    assert met == 7
    return corner_r


# ---------------------------------------------------------------- output

def discs_json(discs):
    lines = ["{", '  "stars": [']
    for k, (c, n) in enumerate(STARS):
        comma = "," if k < len(STARS) - 1 else ""
        lines.append("    " + json.dumps({"code": c, "name": n}) + comma)
    lines += ["  ],", '  "discs": [']
    for k, (s, f) in enumerate(discs):
        comma = "," if k < len(discs) - 1 else ""
        lines.append("    " + json.dumps({"shape": s, "fields": f}) + comma)
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def parts_json(parts):
    lines = ["{", '  "parts": [']
    for k, p in enumerate(parts):
        comma = "," if k < len(parts) - 1 else ""
        lines.append('    {"id": %d,' % (k + 1))
        lines.append('     "bonus": %s,' % json.dumps(side_rows(p["b"])))
        lines.append('     "symbols": %s}%s' % (json.dumps(side_rows(p["s"])), comma))
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def table(header, rows):
    numeric = [all(isinstance(r[i], int) for r in rows) for i in range(len(header))]
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("--:" if n else "---" for n in numeric) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(x) for x in r) + " |")
    return "\n".join(out)


def report(discs, parts, corner_r):
    out = []
    out.append("Stars per shape (discs):\n")
    rows = []
    tot = [0] * 7
    for shape in SHAPES:
        fs = [f for s, f in discs if s == shape]
        c = [sum(f.count(x) for f in fs) for x in CODES]
        tot = [a + b for a, b in zip(tot, c)]
        rows.append([shape] + c + [sum(c)])
    rows.append(["all"] + tot + [sum(tot)])
    out.append(table(["shape"] + CODES + ["stars"], rows))

    out.append("\nEmpty fields per shape and position:\n")
    rows = []
    for shape in SHAPES:
        fs = [f for s, f in discs if s == shape]
        names = POSITION_NAMES[shape]
        per = {}
        for f in fs:
            for i, ch in enumerate(f):
                if ch == ".":
                    per[names[i]] = per.get(names[i], 0) + 1
        desc = ", ".join("%s %d" % (n, per[n]) for n in dict.fromkeys(names) if n in per) or "-"
        rows.append([shape, COUNT[shape], SIZE[shape] * COUNT[shape],
                     sum(f.count(".") for f in fs), desc])
    rows.append(["all", len(discs), sum(len(f) for _, f in discs),
                 sum(f.count(".") for _, f in discs), ""])
    out.append(table(["shape", "discs", "fields", "empty", "where"], rows))

    out.append("\nDisc patterns (same letter = same star, . = empty field):\n")
    rows = []
    for shape in SHAPES[:3]:
        fs = [f for s, f in discs if s == shape]
        mono = sum(1 for f in fs if "." not in f and len(set(f)) == 1)
        two = sum(1 for f in fs if "." not in f and len(set(f)) == 2)
        three = sum(1 for f in fs if "." not in f and len(set(f)) == 3)
        withe = sum(1 for f in fs if "." in f)
        rows.append([shape, mono, two, three, withe])
    out.append(table(["shape", "one star kind", "two kinds", "three kinds", "with an empty field"], rows))

    eqp = [0] * 7
    pairs = {}
    for shape, f in discs:
        for i, j in ADJ[shape]:
            a, b = f[i], f[j]
            if "." in (a, b):
                continue
            if a == b:
                eqp[CODES.index(a)] += 1
            else:
                k = "".join(sorted((a, b), key=CODES.index))
                pairs[k] = pairs.get(k, 0) + 1
    out.append("\nEqual neighbouring fields on one disc, per star: " +
               ", ".join("%s %d" % (c, n) for c, n in zip(CODES, eqp)))
    allp = [pairs.get(a + b, 0) for i, a in enumerate(CODES) for b in CODES[i + 1:]]
    out.append("Different neighbouring stars on one disc: %d pairs of fields over the 21 "
               "star pairs, each pair %d to %d times" % (sum(allp), min(allp), max(allp)))

    out.append("\nRestrictions (symbols side):\n")
    eq = [0] * 7
    no = [0] * 7
    met = 0
    for p in parts:
        for t in p["s"].values():
            if t == "#":
                met += 1
            elif t[0] == "=":
                eq[CODES.index(t[1])] += 1
            elif t[0] == "!":
                no[CODES.index(t[1])] += 1
    out.append(table(["square"] + CODES + ["all"],
                     [["=X only star X"] + eq + [sum(eq)],
                      ["!X not star X"] + no + [sum(no)]]))
    out.append("\nMeteorites: %d. Restriction squares: %d, %d of them on a part's corner."
               % (met, sum(eq) + sum(no) + met, corner_r))

    out.append("\nSquares per side (16 parts, 144 squares a side):\n")
    rows = []
    for side, key in (("bonus", "b"), ("symbols", "s")):
        vals = [int(t) for p in parts for t in map(str, p[key].values()) if t.isdigit()]
        nres = 0 if key == "b" else sum(eq) + sum(no)
        nmet = 0 if key == "b" else met
        rows.append([side, nres, nmet, len(vals), vals.count(1), vals.count(2),
                     vals.count(3), sum(vals)])
    out.append(table(["side", "=X/!X", "meteorites", "bonus squares", "1s", "2s", "3s",
                      "bonus points"], rows))

    out.append("\nPer part:\n")
    rows = []
    for k, p in enumerate(parts):
        r = sum(1 for t in p["s"].values() if not t.isdigit())
        sb = [int(t) for t in p["s"].values() if t.isdigit()]
        bb = list(p["b"].values())
        rows.append([k + 1, len(bb), sum(bb), r, len(sb), sum(sb)])
    out.append(table(["part", "bonus side: bonus squares", "points",
                      "symbols side: restrictions", "bonus squares", "points"], rows))
    return "\n".join(out)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rng = random.Random(SEED)
    discs, dcost = make_discs(rng)
    parts, pcost = make_parts(rng)
    check_discs(discs)
    corner_r = check_parts(parts)
    d_text = discs_json(discs)
    p_text = parts_json(parts)
    assert json.loads(d_text)["discs"] == [{"shape": s, "fields": f} for s, f in discs]
    assert len(json.loads(p_text)["parts"]) == 16
    for name, text in (("discs.json", d_text), ("parts.json", p_text)):
        with open(os.path.join(out_dir, name), "w", encoding="ascii", newline="\n") as fh:
            fh.write(text)
    print(report(discs, parts, corner_r))
    print("\n(search costs: discs %.1f, parts %.1f)" % (dcost, pcost))


if __name__ == "__main__":
    main()
