//! Who may talk to the server, checked before any page: the `Host` it was
//! addressed by, a one-time token (in an address, once) or a session
//! cookie (links.rs), and for a change, the `Origin` it comes from. The CSRF token of
//! each form is checked by the action itself ([`csrf_refusal`]).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use super::Server;

/// The policy of every answer: nothing from elsewhere, no inline script,
/// no framing, forms only to this server.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Equal secrets, compared in constant time.
pub fn same_secret(given: &str, secret: &str) -> bool {
    given.len() == secret.len() && bool::from(given.as_bytes().ct_eq(secret.as_bytes()))
}

/// The refusal to show when a form's CSRF token is missing or wrong;
/// none when it is right.
pub fn csrf_refusal(s: &Server, given: &str) -> Option<Response> {
    (!same_secret(given, &s.csrf)).then(|| {
        refuse(
            StatusCode::FORBIDDEN,
            "This form did not come from a page of this server (its CSRF token is missing or \
             wrong): nothing was done. Reload the page and try again.",
        )
    })
}

/// A refusal: a short page saying why, and nothing else. Its connection
/// is closed: whoever was refused holds nothing open (conns.rs).
pub fn refuse(status: StatusCode, why: &str) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CONNECTION, "close"),
        ],
        format!("starry serve: {why}\n"),
    )
        .into_response()
}

fn cookie_value<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// The request's query without its `token` pair, and that token.
fn split_token(query: Option<&str>) -> (Option<String>, Vec<(String, String)>) {
    let mut token = None;
    let mut rest = Vec::new();
    for (k, v) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if k == "token" {
            token = Some(v.into_owned());
        } else {
            rest.push((k.into_owned(), v.into_owned()));
        }
    }
    (token, rest)
}

/// Checks a request, answers it, and logs it on one short line to
/// standard error: the time, method, path (never the query, which may hold
/// the token), status and time taken. The files of the interface and the
/// live-refresh subscriptions are not logged: they would drown the rest.
pub async fn guard(State(s): State<Arc<Server>>, req: Request, next: Next) -> Response {
    let started = std::time::Instant::now();
    let method = req.method().clone();
    let path: String = req.uri().path().chars().take(80).collect();
    let r = with_policy(check(s, req, next).await);
    let quiet =
        path.starts_with("/assets/") || path.starts_with("/events") || path == "/favicon.ico";
    if !quiet {
        eprintln!(
            "{} {method} {} {} {} ms",
            chrono::Utc::now().format("%H:%M:%S"),
            crate::text::inline(&path),
            r.status().as_u16(),
            started.elapsed().as_millis()
        );
    }
    r
}

async fn check(s: Arc<Server>, req: Request, next: Next) -> Response {
    // DNS rebinding: a page of evil.example whose name now points at
    // 127.0.0.1 still says `Host: evil.example`.
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !s.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return refuse(
            StatusCode::MISDIRECTED_REQUEST,
            "this server answers only to the address it printed (127.0.0.1, [::1] or localhost \
             and its port); this request named another host",
        );
    }
    let cookie_ok = cookie_value(req.headers(), &s.cookie).is_some_and(|c| s.keys.session_ok(c));
    if cookie_ok && let Some(t) = req.extensions().get::<super::conns::Trusted>() {
        t.0.store(true, std::sync::atomic::Ordering::Release);
    }
    let (token, rest) = split_token(req.uri().query());
    if let Some(t) = token {
        // Used up whether or not this browser is in already: an address
        // lets in once.
        let fresh = s.keys.take_link(&t);
        if !(cookie_ok || fresh) || req.method() != Method::GET {
            return refuse(
                StatusCode::FORBIDDEN,
                "this address has been used already, is older than 10 minutes, or is not this \
                 server's: each address lets one browser in, once. For a new one, run `starry \
                 serve --link` (or `starry serve --link --open`)",
            );
        }
        // Once in a cookie, the token leaves the address bar.
        let mut to = req.uri().path().to_string();
        if !rest.is_empty() {
            to.push('?');
            to.push_str(
                &form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(rest)
                    .finish(),
            );
        }
        if to.starts_with("//") {
            to = "/".into();
        }
        // A page that goes on by itself, not a redirect: a browser sent
        // here by `--open`'s file comes from another site (file:), and
        // would not send a SameSite=Strict cookie along a redirect; the
        // page's own step onward comes from this server.
        let page = super::links::forwarding_page(&to, "Go on to your games");
        let mut r = axum::response::Html(page.into_string()).into_response();
        if !cookie_ok {
            let session = match s.keys.new_session() {
                Ok(v) => v,
                Err(e) => {
                    return refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string());
                }
            };
            let cookie = format!("{}={session}; HttpOnly; SameSite=Strict; Path=/", s.cookie);
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                r.headers_mut().insert(header::SET_COOKIE, v);
            }
        }
        return with_policy(r);
    }
    if !cookie_ok {
        return refuse(
            StatusCode::FORBIDDEN,
            "this page needs an address with a ?token=… from `starry serve` (printed when it \
             started, or made by `starry serve --link`); open it once and this browser is let in",
        );
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        // A form posted by a page of another site carries that site's
        // origin; SameSite=Strict already keeps the cookie off it.
        let origin = req
            .headers()
            .get(header::ORIGIN)
            .and_then(|h| h.to_str().ok());
        if !origin.is_some_and(|o| s.origins.iter().any(|a| a.eq_ignore_ascii_case(o))) {
            return refuse(
                StatusCode::FORBIDDEN,
                "a change must come from a page of this server (the request's Origin is missing \
                 or another site's): nothing was done",
            );
        }
    }
    with_policy(next.run(req).await)
}

fn with_policy(mut r: Response) -> Response {
    let h = r.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        // Not `no-referrer`: with it a browser sends `Origin: null` on a
        // form's POST, and the origin check needs the real one.
        (header::REFERRER_POLICY, "same-origin"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        h.insert(name, HeaderValue::from_static(value));
    }
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    r
}
