//! Exact plane geometry on integer grid points. Every predicate is decided
//! with integer cross and dot products, so a replay on any machine gives the
//! same answer; there is no floating point anywhere in the rules.
//!
//! Coordinates are grid indices (at most [`super::sky::MAX_GRID`]), so every
//! product below fits an `i64` with room to spare.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;

/// A grid point: `x` counts columns from the left, `y` rows from the top
/// (as the text view and the pictures draw them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct Point(pub i32, pub i32);

impl Point {
    pub fn x(self) -> i64 {
        i64::from(self.0)
    }
    pub fn y(self) -> i64 {
        i64::from(self.1)
    }
    /// Reading order: top row first, left to right. Stars are labelled in
    /// this order.
    pub fn reading_cmp(self, other: Point) -> Ordering {
        (self.1, self.0).cmp(&(other.1, other.0))
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.0, self.1)
    }
}

/// Twice the signed area of the triangle `a b c`: positive when `c` lies to
/// the left of `a → b` in the coordinate system's own orientation, zero when
/// the three are collinear.
pub fn orient(a: Point, b: Point, c: Point) -> i64 {
    (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x())
}

/// Whether `p` lies strictly between `a` and `b` on the segment `a b`.
pub fn strictly_inside(a: Point, b: Point, p: Point) -> bool {
    if p == a || p == b || orient(a, b, p) != 0 {
        return false;
    }
    let dot = (p.x() - a.x()) * (b.x() - a.x()) + (p.y() - a.y()) * (b.y() - a.y());
    let len = (b.x() - a.x()).pow(2) + (b.y() - a.y()).pow(2);
    dot > 0 && dot < len
}

/// Whether `p` lies on the closed segment `a b`.
fn on_closed(a: Point, b: Point, p: Point) -> bool {
    orient(a, b, p) == 0
        && p.x() >= a.x().min(b.x())
        && p.x() <= a.x().max(b.x())
        && p.y() >= a.y().min(b.y())
        && p.y() <= a.y().max(b.y())
}

/// Whether the closed segments `a b` and `c d` have any point in common.
pub fn segments_meet(a: Point, b: Point, c: Point, d: Point) -> bool {
    let (o1, o2) = (orient(a, b, c), orient(a, b, d));
    let (o3, o4) = (orient(c, d, a), orient(c, d, b));
    if o1.signum() * o2.signum() < 0 && o3.signum() * o4.signum() < 0 {
        return true;
    }
    (o1 == 0 && on_closed(a, b, c))
        || (o2 == 0 && on_closed(a, b, d))
        || (o3 == 0 && on_closed(c, d, a))
        || (o4 == 0 && on_closed(c, d, b))
}

/// Orders directions (non-zero vectors) by angle, starting from the positive
/// x axis and turning towards the positive y axis; exact, no `atan2`.
pub fn angle_cmp(u: (i64, i64), v: (i64, i64)) -> Ordering {
    fn half(d: (i64, i64)) -> u8 {
        if d.1 > 0 || (d.1 == 0 && d.0 > 0) {
            0
        } else {
            1
        }
    }
    half(u).cmp(&half(v)).then_with(|| {
        let cross = u.0 * v.1 - u.1 * v.0;
        0.cmp(&cross)
    })
}

/// The direction from `a` to `b`.
pub fn direction(a: Point, b: Point) -> (i64, i64) {
    (b.x() - a.x(), b.y() - a.y())
}

/// Twice the signed area enclosed by a closed walk (shoelace formula). A walk
/// with its region on the left is positive.
pub fn twice_area(walk: impl Iterator<Item = (Point, Point)>) -> i64 {
    walk.map(|(u, v)| u.x() * v.y() - v.x() * u.y()).sum()
}

/// How many times a closed walk winds around `p`, which must not lie on it.
pub fn winding(walk: impl Iterator<Item = (Point, Point)>, p: Point) -> i64 {
    let mut w = 0;
    for (u, v) in walk {
        if u.y() <= p.y() {
            if v.y() > p.y() && orient(u, v, p) > 0 {
                w += 1;
            }
        } else if v.y() <= p.y() && orient(u, v, p) < 0 {
            w -= 1;
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meeting_segments() {
        let p = |x, y| Point(x, y);
        // A proper crossing, a touch at an endpoint, a collinear overlap,
        // collinear but apart, parallel.
        assert!(segments_meet(p(0, 0), p(4, 4), p(0, 4), p(4, 0)));
        assert!(segments_meet(p(0, 0), p(4, 0), p(2, 0), p(2, 3)));
        assert!(segments_meet(p(0, 0), p(4, 0), p(3, 0), p(6, 0)));
        assert!(!segments_meet(p(0, 0), p(2, 0), p(3, 0), p(6, 0)));
        assert!(!segments_meet(p(0, 0), p(4, 0), p(0, 1), p(4, 1)));
    }

    #[test]
    fn strictly_inside_excludes_endpoints_and_beyond() {
        let p = |x, y| Point(x, y);
        assert!(strictly_inside(p(0, 0), p(4, 2), p(2, 1)));
        assert!(!strictly_inside(p(0, 0), p(4, 2), p(4, 2)));
        assert!(!strictly_inside(p(0, 0), p(4, 2), p(6, 3)));
        assert!(!strictly_inside(p(0, 0), p(4, 2), p(2, 2)));
    }

    #[test]
    fn angles_go_round_once() {
        let dirs = [
            (1, 0),
            (2, 1),
            (0, 1),
            (-1, 1),
            (-1, 0),
            (-1, -1),
            (0, -1),
            (3, -1),
        ];
        for i in 0..dirs.len() {
            for j in 0..dirs.len() {
                assert_eq!(angle_cmp(dirs[i], dirs[j]), i.cmp(&j), "{i} {j}");
            }
        }
    }

    #[test]
    fn area_and_winding_of_a_square() {
        let sq = [Point(0, 0), Point(2, 0), Point(2, 2), Point(0, 2)];
        let walk = || (0..4).map(|i| (sq[i], sq[(i + 1) % 4]));
        assert_eq!(twice_area(walk()), 8);
        assert_eq!(winding(walk(), Point(1, 1)), 1);
        assert_eq!(winding(walk(), Point(3, 1)), 0);
    }
}
