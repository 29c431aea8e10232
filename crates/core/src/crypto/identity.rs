//! A person's identity: one secret from which their signing key and all
//! per-game secrets are derived, and the format of the file that holds it
//! (reading and writing that file is the program's, not the core's). Back up
//! this one file; play any number of games.

use std::path::PathBuf;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};

use super::{Hash, lp_hmac};

const KEY_LABEL: &[u8] = b"starry/1 ed25519";
const GAME_LABEL: &[u8] = b"starry/1 game secret";
/// Format tag inside the identity file.
pub const FORMAT: &str = "starry-identity/1";
/// File name inside the starry home directory.
pub const FILE_NAME: &str = "identity.json";

/// Why an identity could not be used.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error(
        "no identity at {path}: create one with `starry id new --name NAME --email EMAIL` \
         (or point STARRY_HOME at the directory that holds yours)"
    )]
    Missing { path: PathBuf },
    #[error("cannot read the identity at {path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the identity at {path} is corrupt ({why}); restore it from your backup — \
         without it you cannot sign for your games"
    )]
    Corrupt { path: PathBuf, why: String },
    #[error(
        "an identity already exists at {path} ({email}); starry never overwrites one. \
         Use another STARRY_HOME for a second identity"
    )]
    Exists { path: PathBuf, email: String },
    #[error("cannot write the identity at {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Invalid(String),
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct IdentityFile {
    format: String,
    name: String,
    email: String,
    secret: String,
}

/// A loaded identity. The master secret never leaves this struct except
/// through derivations.
pub struct Identity {
    pub name: String,
    pub email: String,
    secret: [u8; 32],
    signing: SigningKey,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the secret, not even in a debug dump.
        f.debug_struct("Identity")
            .field("name", &self.name)
            .field("email", &self.email)
            .field("key", &hex::encode(self.public_key()))
            .finish()
    }
}

/// Checks an e-mail address against the protocol's rule
/// ([`crate::text::check_email`]).
pub fn check_email(email: &str) -> Result<(), IdentityError> {
    crate::text::check_email(email).map_err(IdentityError::Invalid)
}

impl Identity {
    /// An identity from a known master secret, held in memory only. For
    /// test vectors and examples, whose secrets are public by design; a real
    /// identity comes from [`Identity::new`] with a fresh secret.
    pub fn from_master_secret(name: &str, email: &str, secret: [u8; 32]) -> Self {
        Self::from_secret(name.into(), email.into(), secret)
    }

    fn from_secret(name: String, email: String, secret: [u8; 32]) -> Self {
        let signing = SigningKey::from_bytes(&lp_hmac(&secret, &[KEY_LABEL]));
        Identity {
            name,
            email,
            secret,
            signing,
        }
    }

    /// The identity file's text for this identity (it holds the secret).
    pub fn file_text(&self) -> String {
        let file = IdentityFile {
            format: FORMAT.into(),
            name: self.name.clone(),
            email: self.email.clone(),
            secret: B64.encode(self.secret),
        };
        let mut text = serde_json::to_string_pretty(&file).expect("identity serialises");
        text.push('\n');
        text
    }

    /// A new identity for `name` and `email`, from a fresh random `secret`
    /// (the caller's: the core has no random source).
    pub fn new(name: &str, email: &str, secret: [u8; 32]) -> Result<Identity, IdentityError> {
        let name = name.trim();
        crate::text::check_name(name).map_err(IdentityError::Invalid)?;
        check_email(email)?;
        Ok(Identity::from_secret(
            name.to_string(),
            email.to_string(),
            secret,
        ))
    }

    /// Reads an identity file's bytes; `path` only names it in errors, which
    /// never quote the file (it holds the secret).
    pub fn from_file(path: PathBuf, bytes: &[u8]) -> Result<Identity, IdentityError> {
        let corrupt = |why: String| IdentityError::Corrupt {
            path: path.clone(),
            why,
        };
        let file: IdentityFile = serde_json::from_slice(bytes)
            .map_err(|e| corrupt(format!("not a starry identity: {}", e.classify_name())))?;
        if file.format != FORMAT {
            return Err(corrupt(format!(
                "unknown format `{}`, expected `{FORMAT}`",
                file.format
            )));
        }
        let secret: [u8; 32] = B64
            .decode(file.secret.trim())
            .ok()
            .and_then(|v| v.try_into().ok())
            .ok_or_else(|| corrupt("the secret is not 32 bytes of base64".into()))?;
        check_email(&file.email).map_err(|e| corrupt(e.to_string()))?;
        crate::text::check_name(&file.name).map_err(corrupt)?;
        Ok(Identity::from_secret(file.name, file.email, secret))
    }

    /// The Ed25519 public key that signs this person's entries.
    pub fn public_key(&self) -> [u8; 32] {
        self.signing.verifying_key().to_bytes()
    }

    pub fn verifying_key(&self) -> VerifyingKey {
        self.signing.verifying_key()
    }

    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        self.signing.sign(message).to_bytes()
    }

    /// The per-game secret: salts and beacon links come from it. The nonce is
    /// the one the player published in their join entry, so a reused game id
    /// never reproduces old values.
    pub fn game_secret(&self, game: &Hash, nonce: &Hash) -> Hash {
        lp_hmac(&self.secret, &[GAME_LABEL, game, nonce])
    }
}

/// Describes a serde_json error without quoting the input (which could hold
/// the secret).
trait Classify {
    fn classify_name(&self) -> String;
}

impl Classify for serde_json::Error {
    fn classify_name(&self) -> String {
        match self.classify() {
            serde_json::error::Category::Io => "read error".into(),
            serde_json::error::Category::Syntax => format!("bad JSON at line {}", self.line()),
            serde_json::error::Category::Data => format!("wrong fields near line {}", self.line()),
            serde_json::error::Category::Eof => "the file ends too early".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_text_reads_back_as_the_same_identity() {
        let a = Identity::new("Anna", "anna@example.org", [7; 32]).unwrap();
        let b = Identity::from_file("identity.json".into(), a.file_text().as_bytes()).unwrap();
        assert_eq!(a.public_key(), b.public_key());
        assert_eq!(
            (b.name.as_str(), b.email.as_str()),
            ("Anna", "anna@example.org")
        );
    }

    #[test]
    fn corrupt_identity_is_named_and_secret_not_quoted() {
        let text = "{\"format\":\"starry-identity/1\",\"name\":\"A\",\"email\":\"a@b\",\"secret\":\"SECRETSECRET\"}";
        let e = Identity::from_file("identity.json".into(), text.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(e.contains("corrupt"), "{e}");
        assert!(!e.contains("SECRETSECRET"), "{e}");
    }
}
