//! One self-contained HTML page: the picture inline, the text view and the
//! history in words. No script, no external request (a Content Security
//! Policy forbids any), so it can be opened from a mail or a disk anywhere.

use super::esc;

/// What the page shows.
pub struct Page<'a> {
    /// The page's title, e.g. `Starry Sky — game 1a2b… — after 12 entries`.
    pub title: &'a str,
    /// The picture, as [`super::Svg::finish`] wrote it.
    pub svg: &'a str,
    /// The text view (any text; escaped here).
    pub text: &'a str,
    /// What happened, one sentence per entry, oldest first.
    pub history: &'a [String],
}

const STYLE: &str = "body{font-family:'DejaVu Sans',Verdana,sans-serif;margin:1.5em;color:#1a1a1a;\
background:#fff;max-width:72em}h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em}\
figure{margin:0;overflow-x:auto}pre{background:#f4f6fb;padding:1em;overflow-x:auto;\
font-size:.85em;line-height:1.25}ol{padding-left:2.5em}li{margin:.15em 0}";

/// The page. The board and the text view scroll sideways when wider than
/// the screen, so each can take the focus (and be scrolled with the keys),
/// named for a screen reader.
pub fn page(p: &Page) -> String {
    let mut history = String::new();
    for h in p.history {
        history.push_str("<li>");
        history.push_str(&esc(h));
        history.push_str("</li>\n");
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n\
         <h1>{title}</h1>\n<figure id=\"board\" tabindex=\"0\" aria-label=\"the board\">\n{svg}</figure>\n\
         <h2 id=\"words\">The position in words</h2>\n<pre id=\"view\" tabindex=\"0\" aria-labelledby=\"words\">{text}</pre>\n\
         <h2>What happened</h2>\n<ol id=\"history\" start=\"0\">\n{history}</ol>\n\
         </main>\n</body>\n</html>\n",
        title = esc(p.title),
        svg = p.svg,
        text = esc_multiline(p.text),
    )
}

/// Like [`esc`], line by line, keeping the line breaks.
fn esc_multiline(s: &str) -> String {
    s.lines().map(esc).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_stays_text() {
        let h = vec!["<script>alert(1)</script> placed 7".to_string()];
        let out = page(&Page {
            title: "T <i>",
            svg: "<svg></svg>\n",
            text: "a\n<img src=x onerror=alert(1)>\u{1b}[2J",
            history: &h,
        });
        assert!(!out.contains("<script>"));
        assert!(!out.contains("<img"));
        assert!(!out.contains('\u{1b}'));
        assert!(out.contains("default-src 'none'"));
        assert!(out.contains("&lt;script&gt;alert(1)&lt;/script&gt; placed 7"));
        // What scrolls can be reached from the keyboard.
        assert!(out.contains("<figure id=\"board\" tabindex=\"0\" aria-label=\"the board\">"));
        assert!(out.contains("<pre id=\"view\" tabindex=\"0\" aria-labelledby=\"words\">"));
    }
}
