//! The drawing as a planar map, updated edge by edge.
//!
//! Stars are vertices; each edge is two half-edges, `2e` (from → to) and
//! `2e + 1` (to → from). Around every star the edges are kept sorted by
//! angle (a rotation system); following `next` from a half-edge walks one
//! boundary cycle with its face on the left. A bounded face has one outer
//! cycle (positive area) and one hole cycle (zero or negative area) per
//! component inside it; the unbounded face has only holes. A component
//! inside a bounded face that is not its border is an *island* of that
//! face; an isolated star is a component without a cycle.
//!
//! Adding an edge changes one face only: joining two components merges two
//! cycles (no new face), closing a cycle splits one cycle in two and so one
//! face in two. Only the cycles touched are walked again, so an edge costs
//! time in proportion to the faces it touches, not to the whole drawing.

use std::collections::HashMap;

use super::geometry::{
    Point, angle_cmp, direction, segments_meet, strictly_inside, twice_area, winding,
};

/// A star's index, in label order.
pub type Star = usize;
/// A face's index; faces are never reused, a split face dies and two new
/// ones are born.
pub type FaceId = usize;
type Cycle = usize;
type Half = usize;

/// A face as the checks compare it: its outer cycle as sorted directed
/// edges (empty for the unbounded face) and its islands by smallest star.
pub type FaceSummary = (Vec<(Star, Star)>, Vec<Star>);

/// The unbounded face, around everything.
pub const OUTSIDE: FaceId = 0;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct CycleInfo {
    face: FaceId,
    /// The outer boundary of its (bounded) face, rather than a hole in it.
    outer: bool,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Face {
    /// The outer cycle; `None` for the unbounded face.
    outer: Option<Cycle>,
    /// Components inside the face that are not its border, by their
    /// union-find root. For the unbounded face: every outermost component.
    islands: Vec<Star>,
    alive: bool,
    /// Who captured this sea, if anyone.
    pub captor: Option<usize>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Component {
    /// The cycle around the component's outside; `None` for a lone star.
    outer: Option<Cycle>,
    /// The face the component lies in.
    face: FaceId,
}

/// Why an edge cannot be drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Illegal {
    SameStar,
    AlreadyJoined,
    ThroughStar(Star),
    Crosses(Star, Star),
    InsideCapturedSea(FaceId),
}

/// What an edge did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Added {
    /// Faces created by a split.
    pub created: Vec<FaceId>,
    /// Seas captured by this edge (new faces with no island, or a sea whose
    /// last island this edge joined to its border).
    pub captured: Vec<FaceId>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Map {
    stars: Vec<Point>,
    /// Per star: (neighbour, half-edge out to it), sorted by angle.
    rotation: Vec<Vec<(Star, Half)>>,
    edges: Vec<(Star, Star)>,
    joined: HashMap<(Star, Star), usize>,
    cycle_of: Vec<Cycle>,
    cycles: Vec<CycleInfo>,
    faces: Vec<Face>,
    parent: Vec<Star>,
    components: Vec<Component>,
    /// Every edge that may be drawn now, as (smaller, larger) star pairs,
    /// kept in step with each edge drawn.
    candidates: Vec<(Star, Star)>,
}

impl Map {
    /// An empty drawing: every star alone in the unbounded face.
    pub fn new(stars: Vec<Point>) -> Map {
        let n = stars.len();
        let mut map = Map {
            rotation: vec![Vec::new(); n],
            edges: Vec::new(),
            joined: HashMap::new(),
            cycle_of: Vec::new(),
            cycles: Vec::new(),
            faces: vec![Face {
                outer: None,
                islands: (0..n).collect(),
                alive: true,
                captor: None,
            }],
            parent: (0..n).collect(),
            components: vec![
                Component {
                    outer: None,
                    face: OUTSIDE
                };
                n
            ],
            candidates: Vec::new(),
            stars,
        };
        map.candidates = map.first_candidates();
        map
    }

    /// Pairs with no star strictly between them: from each star, the
    /// nearest star in each reduced direction.
    fn first_candidates(&self) -> Vec<(Star, Star)> {
        let mut out = Vec::new();
        for a in 0..self.stars.len() {
            let mut nearest: HashMap<(i64, i64), (i64, Star)> = HashMap::new();
            for b in 0..self.stars.len() {
                if a == b {
                    continue;
                }
                let (dx, dy) = direction(self.stars[a], self.stars[b]);
                let g = gcd(dx.abs(), dy.abs());
                let key = (dx / g, dy / g);
                let e = nearest.entry(key).or_insert((g, b));
                if g < e.0 {
                    *e = (g, b);
                }
            }
            out.extend(
                nearest
                    .values()
                    .filter(|&&(_, b)| a < b)
                    .map(|&(_, b)| (a, b)),
            );
        }
        out.sort_unstable();
        out
    }

    pub fn stars(&self) -> &[Point] {
        &self.stars
    }

    pub fn edges(&self) -> &[(Star, Star)] {
        &self.edges
    }

    pub fn degree(&self, s: Star) -> usize {
        self.rotation[s].len()
    }

    pub fn is_joined(&self, a: Star, b: Star) -> bool {
        self.joined.contains_key(&(a.min(b), a.max(b)))
    }

    /// Every edge that may be drawn now, sorted.
    pub fn legal_edges(&self) -> &[(Star, Star)] {
        &self.candidates
    }

    pub fn face(&self, f: FaceId) -> &Face {
        &self.faces[f]
    }

    /// The bounded faces that exist now (the seas), in order of birth.
    pub fn seas(&self) -> impl Iterator<Item = FaceId> + '_ {
        (1..self.faces.len()).filter(|&f| self.faces[f].alive)
    }

    /// Number of faces now, the unbounded one included.
    pub fn face_count(&self) -> usize {
        self.faces.iter().filter(|f| f.alive).count()
    }

    /// Number of connected components, lone stars included.
    pub fn component_count(&self) -> usize {
        (0..self.stars.len())
            .filter(|&s| self.parent[s] == s)
            .count()
    }

    fn find(&self, mut s: Star) -> Star {
        while self.parent[s] != s {
            s = self.parent[s];
        }
        s
    }

    fn find_compress(&mut self, s: Star) -> Star {
        let root = self.find(s);
        let mut s = s;
        while self.parent[s] != root {
            let next = self.parent[s];
            self.parent[s] = root;
            s = next;
        }
        root
    }

    /// The stars of the component that `s` belongs to, in label order.
    pub fn component_stars(&self, s: Star) -> Vec<Star> {
        let root = self.find(s);
        (0..self.stars.len())
            .filter(|&t| self.find(t) == root)
            .collect()
    }

    fn half_from(&self, h: Half) -> Star {
        let (a, b) = self.edges[h / 2];
        if h.is_multiple_of(2) { a } else { b }
    }

    fn half_to(&self, h: Half) -> Star {
        let (a, b) = self.edges[h / 2];
        if h.is_multiple_of(2) { b } else { a }
    }

    /// The half-edge after `h` on its boundary cycle (face on the left):
    /// at `h`'s end, the edge just before the way back in angular order.
    fn next(&self, h: Half) -> Half {
        let (u, v) = (self.half_from(h), self.half_to(h));
        let rot = &self.rotation[v];
        let i = rot
            .iter()
            .position(|&(w, _)| w == u)
            .expect("edges are in the rotation");
        rot[(i + rot.len() - 1) % rot.len()].1
    }

    fn walk(&self, start: Half) -> Vec<Half> {
        let mut out = vec![start];
        let mut h = self.next(start);
        while h != start {
            out.push(h);
            h = self.next(h);
        }
        out
    }

    fn segments<'a>(&'a self, walk: &'a [Half]) -> impl Iterator<Item = (Point, Point)> + 'a {
        walk.iter()
            .map(|&h| (self.stars[self.half_from(h)], self.stars[self.half_to(h)]))
    }

    /// The half-edges of a face's outer cycle, in walking order.
    pub fn outer_walk(&self, f: FaceId) -> Option<Vec<(Star, Star)>> {
        let c = self.faces[f].outer?;
        let start = self.cycle_of.iter().position(|&x| x == c)?;
        Some(
            self.walk(start)
                .into_iter()
                .map(|h| (self.half_from(h), self.half_to(h)))
                .collect(),
        )
    }

    /// A component's stars for each island of a face, by the island's
    /// smallest star.
    pub fn islands(&self, f: FaceId) -> Vec<Star> {
        let mut v: Vec<Star> = self.faces[f]
            .islands
            .iter()
            .map(|&r| self.component_stars(r)[0])
            .collect();
        v.sort_unstable();
        v
    }

    /// Twice the area of a face: its outer cycle minus what its islands
    /// enclose (nested seas are faces of their own and are not counted).
    pub fn twice_area(&self, f: FaceId) -> i64 {
        let face = &self.faces[f];
        let Some(outer) = face.outer else { return 0 };
        let mut total = self.cycle_area(outer);
        for &r in &face.islands {
            if let Some(c) = self.components[r].outer {
                total += self.cycle_area(c);
            }
        }
        total
    }

    fn cycle_area(&self, c: Cycle) -> i64 {
        let start = self
            .cycle_of
            .iter()
            .position(|&x| x == c)
            .expect("live cycle");
        let walk = self.walk(start);
        twice_area(self.segments(&walk))
    }

    /// The face that the edge from `a` towards `b` would run through, and
    /// the cycle passing the corner at `a` it leaves from (`None` for a lone
    /// star).
    fn corner(&self, a: Star, b: Star) -> (FaceId, Option<Cycle>) {
        let rot = &self.rotation[a];
        if rot.is_empty() {
            let root = self.find(a);
            return (self.components[root].face, None);
        }
        let d = direction(self.stars[a], self.stars[b]);
        let i = rot.partition_point(|&(w, _)| {
            angle_cmp(direction(self.stars[a], self.stars[w]), d).is_lt()
        });
        let (_, out) = rot[(i + rot.len() - 1) % rot.len()];
        let c = self.cycle_of[out];
        (self.cycles[c].face, Some(c))
    }

    /// The component `s` belongs to, named by its root star (the name
    /// [`Map::island_roots`] uses). For the bots' look-ahead.
    pub fn component_of(&self, s: Star) -> Star {
        self.find(s)
    }

    /// The islands of a face by their components' roots (for the unbounded
    /// face: every outermost component), in no particular order.
    pub fn island_roots(&self, f: FaceId) -> &[Star] {
        &self.faces[f].islands
    }

    /// The stars joined to `s`, in the angular order of the rotation.
    pub fn neighbours(&self, s: Star) -> impl Iterator<Item = Star> + '_ {
        self.rotation[s].iter().map(|&(w, _)| w)
    }

    /// The face an edge between `a` and `b` would lie in (assuming it
    /// crosses nothing).
    pub fn face_between(&self, a: Star, b: Star) -> FaceId {
        self.corner(a, b).0
    }

    /// Decides an edge by the rules, checking everything from scratch.
    pub fn check(&self, a: Star, b: Star) -> Result<(), Illegal> {
        if a == b {
            return Err(Illegal::SameStar);
        }
        if self.is_joined(a, b) {
            return Err(Illegal::AlreadyJoined);
        }
        let (pa, pb) = (self.stars[a], self.stars[b]);
        let mut between: Vec<Star> = (0..self.stars.len())
            .filter(|&s| strictly_inside(pa, pb, self.stars[s]))
            .collect();
        between.sort_by_key(|&s| {
            let (dx, dy) = direction(pa, self.stars[s]);
            dx * dx + dy * dy
        });
        if let Some(&s) = between.first() {
            return Err(Illegal::ThroughStar(s));
        }
        for &(c, d) in &self.edges {
            if c != a
                && c != b
                && d != a
                && d != b
                && segments_meet(pa, pb, self.stars[c], self.stars[d])
            {
                return Err(Illegal::Crosses(c, d));
            }
        }
        let f = self.face_between(a, b);
        if self.faces[f].captor.is_some() {
            return Err(Illegal::InsideCapturedSea(f));
        }
        Ok(())
    }

    /// Draws an edge, which must be legal, and says which faces it made
    /// and which seas it captured for `mover`.
    pub fn add(&mut self, a: Star, b: Star, mover: usize) -> Added {
        debug_assert_eq!(self.check(a, b), Ok(()));
        let (face, ca) = self.corner(a, b);
        let (_, cb) = self.corner(b, a);
        let e = self.edges.len();
        self.edges.push((a, b));
        self.joined.insert((a.min(b), a.max(b)), e);
        self.insert_rotation(a, b, 2 * e);
        self.insert_rotation(b, a, 2 * e + 1);
        self.cycle_of.push(usize::MAX);
        self.cycle_of.push(usize::MAX);
        let (ra, rb) = (self.find_compress(a), self.find_compress(b));
        let mut added = Added::default();
        if ra != rb {
            self.join(face, (ra, ca), (rb, cb), 2 * e, mover, &mut added);
        } else {
            let cycle = ca.expect("a star joined to its own component has edges");
            self.split(face, cycle, ra, 2 * e, mover, &mut added);
        }
        self.update_candidates(a, b, &added);
        added
    }

    fn insert_rotation(&mut self, a: Star, b: Star, h: Half) {
        let d = direction(self.stars[a], self.stars[b]);
        let stars = &self.stars;
        let rot = &mut self.rotation[a];
        let i = rot.partition_point(|&(w, _)| angle_cmp(direction(stars[a], stars[w]), d).is_lt());
        rot.insert(i, (b, h));
    }

    fn new_cycle(&mut self, start: Half, face: FaceId, outer: bool) -> (Cycle, Vec<Half>) {
        let c = self.cycles.len();
        self.cycles.push(CycleInfo { face, outer });
        let walk = self.walk(start);
        for &h in &walk {
            self.cycle_of[h] = c;
        }
        (c, walk)
    }

    /// The edge joins two components inside `face`: their cycles become one.
    fn join(
        &mut self,
        face: FaceId,
        (ra, ca): (Star, Option<Cycle>),
        (rb, cb): (Star, Option<Cycle>),
        h: Half,
        mover: usize,
        added: &mut Added,
    ) {
        let border = self.faces[face].outer;
        let (rborder, island) = if border.is_some() && border == ca {
            (Some(ra), rb)
        } else if border.is_some() && border == cb {
            (Some(rb), ra)
        } else {
            (None, ra)
        };
        let islands = &mut self.faces[face].islands;
        match rborder {
            Some(rborder) => {
                // An island joins the border: it becomes part of it.
                islands.retain(|&r| r != island);
                let (c, _) = self.new_cycle(h, face, true);
                self.faces[face].outer = Some(c);
                self.parent[island] = rborder;
                if self.faces[face].islands.is_empty() {
                    self.faces[face].captor = Some(mover);
                    added.captured.push(face);
                }
            }
            None => {
                // Two islands (or two outermost components) become one.
                islands.retain(|&r| r != ra && r != rb);
                let (c, _) = self.new_cycle(h, face, false);
                self.parent[rb] = ra;
                self.components[ra] = Component {
                    outer: Some(c),
                    face,
                };
                self.faces[face].islands.push(ra);
            }
        }
    }

    /// The edge closes a cycle of one component: `cycle` splits in two, and
    /// so does its face.
    fn split(
        &mut self,
        face: FaceId,
        cycle: Cycle,
        root: Star,
        h: Half,
        mover: usize,
        added: &mut Added,
    ) {
        let old_islands = std::mem::take(&mut self.faces[face].islands);
        let (c1, w1) = self.new_cycle(h, face, true);
        let (c2, w2) = self.new_cycle(h + 1, face, true);
        let area1 = twice_area(self.segments(&w1));
        let area2 = twice_area(self.segments(&w2));
        if self.cycles[cycle].outer {
            // A sea is cut in two: both halves are new seas.
            self.faces[face].alive = false;
            let f1 = self.new_face(c1);
            let f2 = self.new_face(c2);
            for r in old_islands {
                let inside = winding(self.segments(&w1), self.stars[r]) != 0;
                self.move_island(r, if inside { f1 } else { f2 });
            }
            for f in [f1, f2] {
                added.created.push(f);
                if self.faces[f].islands.is_empty() {
                    self.faces[f].captor = Some(mover);
                    added.captured.push(f);
                }
            }
        } else {
            // The component's outside is cut: one part stays its outside in
            // `face`, the other encloses a new sea.
            let (inner, inner_walk, rest) = if area1 > area2 {
                (c1, w1, c2)
            } else {
                (c2, w2, c1)
            };
            self.cycles[rest].outer = false;
            self.components[root].outer = Some(rest);
            let f = self.new_face(inner);
            let mut stay = Vec::new();
            for r in old_islands {
                if r != root && winding(self.segments(&inner_walk), self.stars[r]) != 0 {
                    self.move_island(r, f);
                } else {
                    stay.push(r);
                }
            }
            self.faces[face].islands = stay;
            added.created.push(f);
            if self.faces[f].islands.is_empty() {
                self.faces[f].captor = Some(mover);
                added.captured.push(f);
            }
        }
    }

    /// Records that the component `r` now lies in face `f`, its outside
    /// cycle included.
    fn move_island(&mut self, r: Star, f: FaceId) {
        self.faces[f].islands.push(r);
        self.components[r].face = f;
        if let Some(c) = self.components[r].outer {
            self.cycles[c].face = f;
        }
    }

    fn new_face(&mut self, outer: Cycle) -> FaceId {
        let f = self.faces.len();
        self.faces.push(Face {
            outer: Some(outer),
            islands: Vec::new(),
            alive: true,
            captor: None,
        });
        self.cycles[outer].face = f;
        f
    }

    /// Drops the candidates that the new edge `a b` rules out: itself, those
    /// that meet it, and those inside a sea it captured.
    fn update_candidates(&mut self, a: Star, b: Star, added: &Added) {
        let (pa, pb) = (self.stars[a], self.stars[b]);
        let stars = &self.stars;
        self.candidates.retain(|&(c, d)| {
            if (c, d) == (a.min(b), a.max(b)) {
                return false;
            }
            // Sharing a star, two edges can only meet along a line, and a
            // candidate never has a star strictly inside it.
            c == a || c == b || d == a || d == b || !segments_meet(pa, pb, stars[c], stars[d])
        });
        if !added.captured.is_empty() {
            let candidates = std::mem::take(&mut self.candidates);
            self.candidates = candidates
                .into_iter()
                .filter(|&(c, d)| self.faces[self.face_between(c, d)].captor.is_none())
                .collect();
        }
    }

    /// Cycles and faces traced again from the bare edge list, for checking
    /// the incremental bookkeeping: per sea, its outer cycle (as a sorted
    /// list of directed edges) and the smallest star of each island; last,
    /// the outermost components of the unbounded face.
    pub fn faces_from_scratch(&self) -> Vec<FaceSummary> {
        let fresh = {
            let mut m = Map::new(self.stars.clone());
            m.candidates.clear();
            for &(a, b) in &self.edges {
                let e = m.edges.len();
                m.edges.push((a, b));
                m.insert_rotation(a, b, 2 * e);
                m.insert_rotation(b, a, 2 * e + 1);
            }
            m
        };
        let halves = 2 * fresh.edges.len();
        let mut seen = vec![false; halves];
        let mut cycles: Vec<(Vec<Half>, i64)> = Vec::new();
        for start in 0..halves {
            if seen[start] {
                continue;
            }
            let walk = fresh.walk(start);
            for &h in &walk {
                seen[h] = true;
            }
            let area = twice_area(fresh.segments(&walk));
            cycles.push((walk, area));
        }
        // Each sea's outer cycle has positive area; every hole cycle (and
        // every lone star) belongs to the smallest sea around it.
        let seas: Vec<usize> = (0..cycles.len()).filter(|&i| cycles[i].1 > 0).collect();
        let mut result: Vec<FaceSummary> = seas
            .iter()
            .map(|&i| {
                let mut edges: Vec<(Star, Star)> = cycles[i]
                    .0
                    .iter()
                    .map(|&h| (fresh.half_from(h), fresh.half_to(h)))
                    .collect();
                edges.sort_unstable();
                (edges, Vec::new())
            })
            .collect();
        let comp_of_cycle: Vec<Star> = cycles
            .iter()
            .map(|(walk, _)| self.find(fresh.half_from(walk[0])))
            .collect();
        let mut outside = Vec::new();
        // One representative per component: its smallest star.
        for s in 0..self.stars.len() {
            if self.component_stars(s)[0] != s {
                continue;
            }
            let (root, p) = (self.find(s), self.stars[s]);
            // A sea bounded by this very component does not hold it; of the
            // others around it, the smallest is the one it lies in.
            let around = seas
                .iter()
                .enumerate()
                .filter(|&(_, &i)| {
                    comp_of_cycle[i] != root && winding(fresh.segments(&cycles[i].0), p) != 0
                })
                .min_by_key(|&(_, &i)| cycles[i].1);
            match around {
                Some((k, _)) => result[k].1.push(s),
                None => outside.push(s),
            }
        }
        result.sort();
        result.push((Vec::new(), outside));
        result
    }

    /// The same, from the incremental bookkeeping.
    pub fn faces_tracked(&self) -> Vec<FaceSummary> {
        let mut result: Vec<FaceSummary> = self
            .seas()
            .map(|f| {
                let mut edges = self.outer_walk(f).expect("a sea has an outer cycle");
                edges.sort_unstable();
                (edges, self.islands(f))
            })
            .collect();
        result.sort();
        result.push((Vec::new(), self.islands(OUTSIDE)));
        result
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
