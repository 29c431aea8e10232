//! Which server certificates starry trusts: the usual authorities
//! (webpki-roots), plus the certificates of the account's `ca_file`, each
//! one both as an authority and as a pinned certificate.
//!
//! Pinned, because the certificate a small server most often has is a
//! self-signed one made with `openssl req -x509`, which marks it
//! `CA:TRUE`: webpki refuses a CA certificate as a server's own
//! (`CaUsedAsEndEntity`), so adding it as an authority alone never makes it
//! work. A server that presents exactly a certificate of `ca_file` is
//! trusted as the person who put it there meant, whatever its name and
//! constraints; the TLS handshake still proves that the server holds its
//! key.

use std::path::Path;
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime, pem::PemObject};
use rustls::{DigitallySignedStruct, SignatureScheme};

/// The certificates (DER) of a PEM file; an error (one sentence) when it
/// cannot be read or holds none.
pub(crate) fn read_pem_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem = std::fs::read(path).map_err(|e| format!("cannot be read ({e})"))?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem)
        .filter_map(|c| c.ok())
        .collect();
    if certs.is_empty() {
        return Err("holds no PEM certificate (-----BEGIN CERTIFICATE-----)".into());
    }
    Ok(certs)
}

/// The usual authorities, plus `extra` as authorities and as pins.
#[derive(Debug)]
pub(crate) struct Verifier {
    webpki: Arc<WebPkiServerVerifier>,
    pinned: Vec<CertificateDer<'static>>,
}

impl Verifier {
    pub(crate) fn new(
        extra: Vec<CertificateDer<'static>>,
        provider: Arc<CryptoProvider>,
    ) -> Result<Verifier, String> {
        let mut roots = rustls::RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        // One that cannot serve as an authority (an old v1 certificate,
        // say) may still be pinned.
        roots.add_parsable_certificates(extra.iter().cloned());
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Verifier {
            webpki,
            pinned: extra,
        })
    }

    /// Whether `end_entity` is one of the pinned certificates.
    pub(crate) fn is_pinned(&self, end_entity: &CertificateDer<'_>) -> bool {
        self.pinned
            .iter()
            .any(|p| p.as_ref() == end_entity.as_ref())
    }
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.webpki.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Ok(v) => Ok(v),
            Err(_) if self.is_pinned(end_entity) => Ok(ServerCertVerified::assertion()),
            Err(e) => Err(e),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}

/// What to tell the user about a certificate that was not trusted, from
/// the TLS library's words; `ca_file` is the one already set, if any, so
/// that the hint does not ask for what is there.
pub(crate) fn certificate_hint(
    detail: &str,
    ca_file: Option<&Path>,
    variable: &str,
) -> Option<String> {
    let unknown = detail.contains("UnknownIssuer")
        || detail.contains("unknown issuer")
        || detail.contains("CaUsedAsEndEntity")
        || detail.contains("invalid peer certificate: Other");
    if unknown {
        return Some(match ca_file {
            Some(ca) => format!(
                "the server's certificate is neither one of the certificates in {} (ca_file) \
                 nor signed by one of them or by an authority starry trusts: put the server's \
                 own certificate (for a self-signed one) or the CA that signed it in that file, \
                 in PEM form",
                ca.display()
            ),
            None => format!(
                "the server's certificate is not signed by an authority starry trusts; if the \
                 server uses a self-signed certificate or a private CA, set `ca_file` in \
                 mail.toml (or {variable}) to that certificate, or that CA, in PEM form"
            ),
        });
    }
    if detail.contains("NotValidForName") || detail.contains("not valid for name") {
        return Some(
            "the server's certificate is not valid for this host name: use the name the \
             certificate was issued for (your provider's documentation gives the host name)"
                .into(),
        );
    }
    if detail.contains("Expired")
        || detail.contains("NotValidYet")
        || detail.contains("expired")
        || detail.contains("not valid yet")
    {
        return Some(
            "the server's certificate is expired or not yet valid; check the clock of this \
             computer, or tell the server's administrator"
                .into(),
        );
    }
    None
}
