//! Canonical JSON: the one byte string each value has. A line is accepted only
//! if re-serialising what was parsed gives back the identical bytes, which
//! rejects duplicate keys, reordered keys, whitespace, escapes chosen
//! differently and number tricks, without a separate normaliser.
//!
//! The rules (also in docs/protocol.md): compact (no whitespace), object keys
//! sorted by their UTF-8 bytes, integers only, strings with the minimal
//! escapes (`\"`, `\\`, `\b \f \n \r \t`, other control characters as
//! `\u00XX` in lower-case hex), everything else as raw UTF-8.

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
    match value {
        Value::Number(n) if !(n.is_i64() || n.is_u64()) => Some(path.clone()),
        Value::Array(items) => items.iter().enumerate().find_map(|(i, v)| {
            let len = path.len();
            path.push_str(&format!("/{i}"));
            let found = find_float(v, path);
            path.truncate(len);
            found
        }),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            let len = path.len();
            path.push('/');
            path.push_str(k);
            let found = find_float(v, path);
            path.truncate(len);
            found
        }),
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
