//! PNG from SVG, in-process: resvg (pure Rust) with the DejaVu Sans fonts
//! built into the program (`crates/core/assets/fonts/`), so that no browser and no
//! system font is needed and every machine renders the same pixels.
//!
//! The PNG carries pixels only: tiny-skia writes no text chunks, so no
//! name, no comment and no secret can ride along in metadata.

use std::sync::{Arc, OnceLock};

static REGULAR: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
static BOLD: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf");

/// The largest picture rendered, in pixels per side: a hostile view cannot
/// make the renderer allocate gigabytes.
pub const MAX_SIDE: u32 = 8192;

fn options() -> &'static resvg::usvg::Options<'static> {
    static OPTIONS: OnceLock<resvg::usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut db = resvg::usvg::fontdb::Database::new();
        db.load_font_data(REGULAR.to_vec());
        db.load_font_data(BOLD.to_vec());
        // Whatever family the SVG names, the shipped font is what renders.
        db.set_sans_serif_family("DejaVu Sans");
        db.set_serif_family("DejaVu Sans");
        db.set_monospace_family("DejaVu Sans");
        resvg::usvg::Options {
            font_family: "DejaVu Sans".into(),
            fontdb: Arc::new(db),
            ..Default::default()
        }
    })
}

/// How a picture is rendered: its scale and the most colours it keeps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quality {
    pub scale: f32,
    pub colours: usize,
}

/// `starry view --format png`: full size, 256 colours (on screen, the same
/// as true colour for these drawings).
pub const FULL: Quality = Quality {
    scale: 1.0,
    colours: 256,
};

/// The picture in a turn mail: 57 % of full size and 32 colours, so that a
/// mail late in a 5-player game stays a third of the size of one that
/// carried the log twice. Everything stays legible at 100 % zoom; the
/// text part of the mail has every detail in words.
pub const MAIL: Quality = Quality {
    scale: 0.57,
    colours: 32,
};

/// Renders `svg` (as the picture module writes it) to PNG bytes at its own
/// size, on white.
pub fn render(svg: &str) -> Result<Vec<u8>, String> {
    render_with(svg, FULL)
}

/// Renders `svg` to PNG bytes at `q`.
pub fn render_with(svg: &str, q: Quality) -> Result<Vec<u8>, String> {
    let tree = resvg::usvg::Tree::from_str(svg, options())
        .map_err(|e| format!("the picture is not valid SVG ({e})"))?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(q.scale)
        .ok_or_else(|| "the picture has no size".to_string())?;
    let (w, h) = (size.width(), size.height());
    if w > MAX_SIDE || h > MAX_SIDE {
        return Err(format!(
            "the picture is {w}×{h} pixels, more than {MAX_SIDE} on a side"
        ));
    }
    let mut pixmap = resvg::tiny_skia::Pixmap::new(w, h)
        .ok_or_else(|| format!("cannot make a {w}×{h} picture"))?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(q.scale, q.scale),
        &mut pixmap.as_mut(),
    );
    encode(w, h, pixmap.data(), q.colours)
}

/// Encodes opaque RGBA pixels as an indexed PNG: exactly when `colours` or
/// fewer occur, else quantised to `colours` (NeuQuant, 2 to 256), which
/// keeps flat drawings and their anti-aliased edges faithful at a third of
/// the size of true colour — what matters for a picture carried in every
/// turn mail. Rows are not filtered: PNG's filters predict neighbouring
/// values, which palette indices are not, and unfiltered indices compress
/// about a fifth smaller.
pub fn encode(w: u32, h: u32, rgba: &[u8], colours: usize) -> Result<Vec<u8>, String> {
    let (palette, indices) = quantise(rgba, colours.clamp(2, 256));
    let mut out = Vec::new();
    {
        let mut enc = ::png::Encoder::new(&mut out, w, h);
        enc.set_color(::png::ColorType::Indexed);
        enc.set_depth(::png::BitDepth::Eight);
        enc.set_palette(palette);
        enc.set_compression(::png::Compression::High);
        enc.set_filter(::png::Filter::NoFilter);
        let mut writer = enc
            .write_header()
            .map_err(|e| format!("cannot encode the PNG ({e})"))?;
        writer
            .write_image_data(&indices)
            .map_err(|e| format!("cannot encode the PNG ({e})"))?;
    }
    Ok(out)
}

/// NeuQuant's sampling factor (1 = every pixel, 30 = fastest).
const SAMPLE: i32 = 10;

/// A palette (RGB triples) of at most `colours` and one index per pixel.
fn quantise(rgba: &[u8], colours: usize) -> (Vec<u8>, Vec<u8>) {
    use std::collections::BTreeMap;
    let mut exact: BTreeMap<[u8; 3], u8> = BTreeMap::new();
    for p in rgba.chunks_exact(4) {
        let c = [p[0], p[1], p[2]];
        if !exact.contains_key(&c) {
            if exact.len() == colours {
                exact.clear();
                break;
            }
            let i = exact.len() as u8;
            exact.insert(c, i);
        }
    }
    if !exact.is_empty() {
        let mut palette = vec![0u8; exact.len() * 3];
        for (c, &i) in &exact {
            palette[i as usize * 3..i as usize * 3 + 3].copy_from_slice(c);
        }
        let indices = rgba
            .chunks_exact(4)
            .map(|p| exact[&[p[0], p[1], p[2]]])
            .collect();
        return (palette, indices);
    }
    // Every SAMPLE-th pixel trains the network: fast, and still enough for
    // a seat's small mark to keep its own palette entry.
    let nq = color_quant::NeuQuant::new(SAMPLE, colours, rgba);
    let mut palette = nq.color_map_rgb();
    // The colours that carry meaning and occur in the picture come out
    // exact: each takes the palette entry nearest to it (one entry each),
    // so that quantising can never make two seats' colours drift together.
    let mut pinned = vec![false; palette.len() / 3];
    for key in crate::picture::SEAT_COLOURS
        .iter()
        .chain(crate::picture::SEAT_TINTS.iter())
        .chain([&crate::picture::INK, &crate::picture::PAPER])
    {
        let want = u32::from_str_radix(&key[1..], 16).unwrap_or_default();
        let rgb = [(want >> 16) as u8, (want >> 8) as u8, want as u8];
        if !rgba.chunks_exact(4).any(|p| p[..3] == rgb) {
            continue;
        }
        let nearest = palette
            .chunks_exact(3)
            .enumerate()
            .filter(|(i, _)| !pinned[*i])
            .min_by_key(|(_, c)| {
                c.iter()
                    .zip(rgb)
                    .map(|(&a, b)| (a as i32 - b as i32).pow(2))
                    .sum::<i32>()
            })
            .map(|(i, _)| i);
        if let Some(i) = nearest {
            palette[i * 3..i * 3 + 3].copy_from_slice(&rgb);
            pinned[i] = true;
        }
    }
    let indices = rgba.chunks_exact(4).map(|p| nq.index_of(p) as u8).collect();
    (palette, indices)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::picture::{INK, Svg};

    #[test]
    fn renders_text_with_the_shipped_font() {
        let mut svg = Svg::new(120, 40);
        svg.text(10, 28, 20, "start", INK, "Orion ★");
        let png = render(&svg.finish("t", "d")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // Text was drawn: some pixels are dark.
        let px = resvg::tiny_skia::Pixmap::decode_png(&png).unwrap();
        let dark = px.pixels().iter().filter(|p| p.red() < 100).count();
        assert!(dark > 50, "only {dark} dark pixels: no glyphs rendered");
    }

    #[test]
    fn the_mail_picture_is_smaller_and_keeps_its_colours_apart() {
        let mut svg = Svg::new(400, 200);
        for (i, c) in crate::picture::SEAT_COLOURS.iter().enumerate() {
            svg.circle(40 + 80 * i as i32, 100, 30, c, INK, 2);
            svg.text(40 + 80 * i as i32, 170, 14, "middle", INK, "Anna");
        }
        let s = svg.finish("t", "d");
        let full = render(&s).unwrap();
        let mail = render_with(&s, MAIL).unwrap();
        assert!(mail.len() < full.len(), "{} vs {}", mail.len(), full.len());
        let px = resvg::tiny_skia::Pixmap::decode_png(&mail).unwrap();
        assert_eq!((px.width(), px.height()), (228, 114));
        // Each seat's colour survives quantising exactly: the centre of
        // each disc is the colour drawn.
        for (i, c) in crate::picture::SEAT_COLOURS.iter().enumerate() {
            let want = u32::from_str_radix(&c[1..], 16).unwrap();
            let (r, g, b) = ((want >> 16) as u8, (want >> 8) as u8, want as u8);
            let p = px.pixel(((40 + 80 * i as u32) * 57) / 100, 57).unwrap();
            let near = |a: u8, b: u8| a == b;
            assert!(
                near(p.red(), r) && near(p.green(), g) && near(p.blue(), b),
                "seat {i}: {c} became {:?}",
                (p.red(), p.green(), p.blue())
            );
        }
    }

    #[test]
    fn same_svg_same_bytes() {
        let mut svg = Svg::new(60, 60);
        svg.circle(30, 30, 20, "#0072B2", INK, 2);
        let s = svg.finish("t", "d");
        assert_eq!(render(&s).unwrap(), render(&s).unwrap());
    }

    #[test]
    fn refuses_what_is_not_svg_or_too_large() {
        assert!(render("<nope").is_err());
        let huge = Svg::new(100_000, 10).finish("t", "d");
        assert!(render(&huge).unwrap_err().contains("more than"));
    }
}
