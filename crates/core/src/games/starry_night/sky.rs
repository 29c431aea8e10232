//! The starry sky: which grid points hold stars, how they are named, and how
//! a random sky is drawn from the setup randomness.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::geometry::Point;
use crate::games::{Draw, RuleError};

/// The fewest stars a sky may have.
pub const MIN_STARS: usize = 3;
/// The most stars a sky may have; the benchmark plays whole random games of
/// this size (docs/performance.md). A signed game is bounded lower by the
/// beacon chain (docs/starry-night.md).
pub const MAX_STARS: usize = 200;
/// The most grid points per side.
pub const MAX_GRID: u32 = 100;
/// The default random sky: 12 stars on a 10 × 10 grid.
pub const DEFAULT_STARS: u32 = 12;
pub const DEFAULT_GRID: u32 = 10;

/// Where the stars are: given, or drawn at random when the game starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Sky {
    /// These stars, as `[x, y]` grid points (x from the left, y from the top).
    Stars {
        width: u32,
        height: u32,
        stars: Vec<Point>,
    },
    /// `count` stars drawn uniformly from the `width × height` grid points.
    Random { count: u32, width: u32, height: u32 },
}

impl Default for Sky {
    fn default() -> Self {
        Sky::Random {
            count: DEFAULT_STARS,
            width: DEFAULT_GRID,
            height: DEFAULT_GRID,
        }
    }
}

impl Sky {
    pub fn grid(&self) -> (u32, u32) {
        match self {
            Sky::Stars { width, height, .. } | Sky::Random { width, height, .. } => {
                (*width, *height)
            }
        }
    }

    pub fn count(&self) -> usize {
        match self {
            Sky::Stars { stars, .. } => stars.len(),
            Sky::Random { count, .. } => *count as usize,
        }
    }

    /// Checks the sky's numbers; a random sky's stars are drawn later.
    pub fn check(&self) -> Result<(), RuleError> {
        // A star off every grid first: with a grid made to hold the stars,
        // the grid's size would be the wrong thing to blame.
        if let Sky::Stars { stars, .. } = self
            && stars.len() <= MAX_STARS
            && let Some(p) = stars
                .iter()
                .find(|p| p.0 < 0 || p.1 < 0 || p.0 as u32 >= MAX_GRID || p.1 as u32 >= MAX_GRID)
        {
            return Err(RuleError::bad_setup(
                "sky",
                format!(
                    "star {p} is off the largest grid: x and y run from 0 to {}",
                    MAX_GRID - 1
                ),
            ));
        }
        let (w, h) = self.grid();
        if !(1..=MAX_GRID).contains(&w) || !(1..=MAX_GRID).contains(&h) {
            return Err(RuleError::bad_setup(
                "sky",
                format!("the grid is {w}×{h}; each side must be 1 to {MAX_GRID} points"),
            ));
        }
        let n = self.count();
        if !(MIN_STARS..=MAX_STARS).contains(&n) {
            return Err(RuleError::bad_setup(
                "sky",
                format!(
                    "a sky needs {MIN_STARS} to {MAX_STARS} stars (10 to 15 play well), not {n}"
                ),
            ));
        }
        if n as u64 > u64::from(w) * u64::from(h) {
            return Err(RuleError::bad_setup(
                "sky",
                format!("{n} stars do not fit on a {w}×{h} grid of {} points", w * h),
            ));
        }
        if let Sky::Stars { stars, .. } = self {
            for (i, p) in stars.iter().enumerate() {
                if p.0 < 0 || p.1 < 0 || p.0 as u32 >= w || p.1 as u32 >= h {
                    return Err(RuleError::bad_setup(
                        "sky",
                        format!(
                            "star {p} lies outside the {w}×{h} grid (x from 0 to {}, y from 0 to {})",
                            w - 1,
                            h - 1
                        ),
                    ));
                }
                if stars[..i].contains(p) {
                    return Err(RuleError::bad_setup(
                        "sky",
                        format!("star {p} is given twice; the stars must be distinct points"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The stars in label order (reading order: top row first, left to
    /// right). A random sky draws its points one at a time, each uniformly
    /// from the grid points not yet taken, listed in reading order
    /// (docs/starry-night.md, "The sky").
    pub fn stars(&self, draw: &mut Draw) -> Result<Vec<Point>, RuleError> {
        self.check()?;
        let mut stars = match self {
            Sky::Stars { stars, .. } => stars.clone(),
            Sky::Random {
                count,
                width,
                height,
            } => {
                let mut free: Vec<Point> = (0..*height as i32)
                    .flat_map(|y| (0..*width as i32).map(move |x| Point(x, y)))
                    .collect();
                (0..*count).map(|_| draw.pick(&mut free)).collect()
            }
        };
        stars.sort_by(|a, b| a.reading_cmp(*b));
        Ok(stars)
    }
}

/// Parses stars written as `x,y` pairs separated by blanks, newlines or `;`
/// (a `#` starts a comment to the end of its line).
pub fn parse_stars(text: &str) -> Result<Vec<Point>, String> {
    let mut out = Vec::new();
    // A byte-order mark, as some editors write, is no star.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default();
        for word in line
            .split(|c: char| c.is_whitespace() || c == ';')
            .filter(|w| !w.is_empty())
        {
            out.push(parse_point(word).ok_or_else(|| {
                format!(
                    "`{}` is not a star; write each star as x,y (e.g. `3,4`), with x and y from 0 to {}",
                    crate::text::excerpt(word),
                    MAX_GRID - 1
                )
            })?);
            if out.len() > MAX_STARS {
                return Err(format!("more than {MAX_STARS} stars"));
            }
        }
    }
    Ok(out)
}

/// `x,y` with small non-negative integers.
pub fn parse_point(word: &str) -> Option<Point> {
    let (x, y) = word.split_once(',')?;
    let num = |s: &str| -> Option<i32> {
        let s = s.trim();
        if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    Some(Point(num(x)?, num(y)?))
}

/// `WxH`, e.g. `10x10`.
pub fn parse_grid(text: &str) -> Option<(u32, u32)> {
    let (w, h) = text.trim().split_once(['x', 'X', '×'])?;
    let num = |s: &str| -> Option<u32> {
        let s = s.trim();
        if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    Some((num(w)?, num(h)?))
}

/// A star's label: `A` … `Z`, then `AA`, `AB`, … (as spreadsheet columns).
pub fn label(mut i: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'A' + (i % 26) as u8);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII")
}

/// The star index of a label, case-insensitive.
pub fn parse_label(text: &str) -> Option<usize> {
    if text.is_empty() || text.len() > 3 || !text.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let mut n: usize = 0;
    for b in text.bytes() {
        n = n * 26 + usize::from(b.to_ascii_uppercase() - b'A') + 1;
    }
    Some(n - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip() {
        for (i, l) in [
            (0, "A"),
            (25, "Z"),
            (26, "AA"),
            (27, "AB"),
            (51, "AZ"),
            (52, "BA"),
            (199, "GR"),
        ] {
            assert_eq!(label(i), l);
            assert_eq!(parse_label(l), Some(i));
            assert_eq!(parse_label(&l.to_lowercase()), Some(i));
        }
        assert_eq!(parse_label(""), None);
        assert_eq!(parse_label("A1"), None);
    }

    #[test]
    fn stars_parse() {
        assert_eq!(parse_stars("1,2 3,4\n5,6;7,8 # x").unwrap().len(), 4);
        assert!(parse_stars("1,2 3").is_err());
        assert!(parse_stars("1,-2").is_err());
        assert!(parse_stars("1,99999").is_err());
        assert_eq!(parse_grid("10x12"), Some((10, 12)));
        assert_eq!(parse_grid("10"), None);
    }

    #[test]
    fn a_random_sky_is_distinct_sorted_and_reproducible() {
        let sky = Sky::default();
        let a = sky.stars(&mut Draw::new([5; 32])).unwrap();
        let b = sky.stars(&mut Draw::new([5; 32])).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len(), 12);
        assert!(a.windows(2).all(|w| w[0].reading_cmp(w[1]).is_lt()));
        assert_ne!(a, sky.stars(&mut Draw::new([6; 32])).unwrap());
    }
}
