//! Canonical JSON: the one byte string each value has. A line is accepted only
//! if re-serialising what was parsed gives back the identical bytes, which
//! rejects duplicate keys, reordered keys, whitespace, escapes chosen
//! differently and number tricks, without a separate normaliser.
//!
//! The rules (also in docs/protocol.md): compact (no whitespace), object keys
//! sorted by their UTF-8 bytes, integers only, strings with the minimal
//! escapes (`\"`, `\\`, `\b \f \n \r \t`, other control characters as
//! `\u00XX` in lower-case hex), everything else as raw UTF-8.

use std::fmt::Write;

use serde_json::Value;

/// The canonical bytes of a JSON value.
pub fn to_bytes(value: &Value) -> Vec<u8> {
    // serde_json without `preserve_order` keeps object keys in a BTreeMap, so
    // they come out sorted; compact output and its string escaping are exactly
    // the rules above.
    serde_json::to_vec(value).expect("a JSON value always serialises")
}

/// Where a value breaks the integers-only rule, as a JSON pointer.
pub fn find_float(value: &Value, path: &mut String) -> Option<String> {
    find_where(
        value,
        path,
        &|v| matches!(v, Value::Number(n) if !(n.is_i64() || n.is_u64())),
    )
}

/// The first place, as a JSON pointer, whose value `hit` picks.
fn find_where(value: &Value, path: &mut String, hit: &dyn Fn(&Value) -> bool) -> Option<String> {
    if hit(value) {
        return Some(path.clone());
    }
    match value {
        Value::Array(items) => items.iter().enumerate().find_map(|(i, v)| {
            let len = path.len();
            // Written in place: most walks find nothing, and an allocation
            // per array element was a tenth of parsing a line.
            let _ = write!(path, "/{i}");
            let found = find_where(v, path, hit);
            path.truncate(len);
            found
        }),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            let len = path.len();
            path.push('/');
            path.push_str(k);
            let found = find_where(v, path, hit);
            path.truncate(len);
            found
        }),
        _ => None,
    }
}

/// How deep a line's JSON may nest: objects and arrays, the line's own
/// object counting as level 1 (docs/protocol.md, section 3.1). The deepest
/// line starry writes (a custom board's lines inside the options) nests 8.
pub const MAX_DEPTH: usize = 32;

/// Where a JSON text first opens an object or array deeper than
/// [`MAX_DEPTH`] (a byte offset), scanning the bytes alone: so a reader
/// refuses a deep line before any parser recurses into it. Brackets inside
/// strings do not count.
pub fn too_deep(bytes: &[u8]) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(i);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Where a value holds a `null`, as a JSON pointer.
pub fn find_null(value: &Value, path: &mut String) -> Option<String> {
    find_where(value, path, &|v| v.is_null())
}

/// The JSON type of a value, in words.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The first place, as a JSON pointer, where `given` has another JSON type
/// than `written` (what a game wrote after reading `given`), with both
/// types. Only places both have are compared: a field one side lacks, or
/// arrays of other lengths, are a difference of value, not of type.
pub fn type_mismatch(
    given: &Value,
    written: &Value,
    path: &mut String,
) -> Option<(String, &'static str, &'static str)> {
    match (given, written) {
        (Value::Array(a), Value::Array(b)) => {
            a.iter().zip(b).enumerate().find_map(|(i, (x, y))| {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                let found = type_mismatch(x, y, path);
                path.truncate(len);
                found
            })
        }
        (Value::Object(a), Value::Object(b)) => a.iter().find_map(|(k, x)| {
            let y = b.get(k)?;
            let len = path.len();
            path.push('/');
            path.push_str(k);
            let found = type_mismatch(x, y, path);
            path.truncate(len);
            found
        }),
        _ if std::mem::discriminant(given) != std::mem::discriminant(written) => {
            Some((path.clone(), type_name(given), type_name(written)))
        }
        _ => None,
    }
}

/// Converts a typed value to JSON, refusing floats (a rules engine bug).
pub fn to_value<T: serde::Serialize>(v: &T) -> Value {
    let value = serde_json::to_value(v).expect("protocol types serialise");
    debug_assert!(find_float(&value, &mut String::new()).is_none());
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_compact_minimal_escapes() {
        let v: Value =
            serde_json::from_str("{ \"b\": 1, \"a\": \"x\\u0041\\n\\u0001é\" }").unwrap();
        assert_eq!(to_bytes(&v), "{\"a\":\"xA\\n\\u0001é\",\"b\":1}".as_bytes());
    }

    #[test]
    fn depth_is_counted_outside_strings_only() {
        let nest = |d: usize| format!("{}{}", "[".repeat(d), "]".repeat(d));
        assert_eq!(too_deep(nest(MAX_DEPTH).as_bytes()), None);
        assert_eq!(too_deep(nest(MAX_DEPTH + 1).as_bytes()), Some(MAX_DEPTH));
        let quoted = format!("{{\"a\":\"{}\\\"{}\"}}", "[".repeat(100), "{".repeat(100));
        assert_eq!(too_deep(quoted.as_bytes()), None);
        let mixed = format!("{}{}", "{\"a\":[".repeat(16), "1");
        assert_eq!(too_deep(mixed.as_bytes()), None);
        let deeper = format!("{}{}", "{\"a\":[".repeat(17), "1");
        assert_eq!(too_deep(deeper.as_bytes()), Some(6 * 16));
    }

    #[test]
    fn nulls_and_types_are_found() {
        let v: Value = serde_json::from_str("{\"a\":[1,{\"b\":null}]}").unwrap();
        assert_eq!(find_null(&v, &mut String::new()).as_deref(), Some("/a/1/b"));
        let given: Value = serde_json::from_str("{\"a\":[[1,2]],\"x\":1}").unwrap();
        let written: Value = serde_json::from_str("{\"a\":[{\"p\":1}]}").unwrap();
        assert_eq!(
            type_mismatch(&given, &written, &mut String::new()),
            Some(("/a/0".into(), "an array", "an object"))
        );
        let top: Value = serde_json::from_str("[]").unwrap();
        assert_eq!(
            type_mismatch(&top, &written, &mut String::new()),
            Some((String::new(), "an array", "an object"))
        );
        assert_eq!(type_mismatch(&written, &written, &mut String::new()), None);
    }

    #[test]
    fn floats_are_found() {
        let v: Value = serde_json::from_str("{\"a\":[1,{\"b\":1.5}]}").unwrap();
        assert_eq!(
            find_float(&v, &mut String::new()).as_deref(),
            Some("/a/1/b")
        );
        let v: Value = serde_json::from_str("{\"a\":[1,-2,18446744073709551615]}").unwrap();
        assert_eq!(find_float(&v, &mut String::new()), None);
    }
}
