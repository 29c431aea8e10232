//! ASCII armor for a log: the one implementation is the core's
//! ([`starry_core::armor`], which the web player shares); here it answers in
//! the mail layer's error type ([`MailError::Armor`]).

pub use starry_core::armor::{ArmorError, BEGIN, END, WIDTH, armor};

use super::MailError;

/// Finds and decodes every armored block in `text`, in order
/// ([`starry_core::armor::dearmor_all`]): a BEGIN line without its END line
/// or any damage is [`MailError::Armor`].
pub fn dearmor_all(text: &str) -> Result<Vec<Vec<u8>>, MailError> {
    Ok(starry_core::armor::dearmor_all(text)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mail layer's errors say what the core's say, line for line.
    #[test]
    fn the_core_s_refusals_in_the_mail_layer_s_words() {
        let block = armor(b"one\n");
        let cut: String = block.lines().take(2).map(|l| format!("{l}\n")).collect();
        let err = dearmor_all(&format!("hi\n{cut}")).unwrap_err();
        assert!(
            matches!(err, MailError::Armor(ArmorError::Truncated { line: 2 })),
            "{err:?}"
        );
        let core = starry_core::armor::dearmor_all(&format!("hi\n{cut}")).unwrap_err();
        assert_eq!(err.to_string(), core.to_string());

        let bad = block.replacen("b25l", "b2#l", 1);
        let err = dearmor_all(&bad).unwrap_err();
        assert!(
            matches!(err, MailError::Armor(ArmorError::Bad { line: 2, .. })),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            starry_core::armor::dearmor_all(&bad)
                .unwrap_err()
                .to_string()
        );
        assert_eq!(dearmor_all(&block).unwrap(), vec![b"one\n".to_vec()]);
    }
}
