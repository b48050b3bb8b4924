//! TLS certificate files named in a `mysql://` URL (`ssl_ca`, `ssl_cert`, `ssl_key`, as the
//! MySQL client's `--ssl-ca`, `--ssl-cert`, `--ssl-key`), which mysql_async's URL parser does
//! not know: they are taken out of the URL, read, and set on the connection options.

use std::path::PathBuf;

use mysql_async::{ClientIdentity, Opts, OptsBuilder, SslOpts};

/// The certificate files a URL names.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct TlsFiles {
    /// Certificate authorities to trust instead of the built-in web roots (PEM).
    ca: Option<PathBuf>,
    /// A client certificate chain (PEM) and its private key (PEM).
    identity: Option<(PathBuf, PathBuf)>,
}

/// Takes `ssl_ca`, `ssl_cert` and `ssl_key` out of `url`; returns the files and the URL left
/// for mysql_async. Errors name the problem, never the URL (it may hold a password).
pub(super) fn take_files(url: &str) -> Result<(TlsFiles, String), String> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((TlsFiles::default(), url.to_owned()));
    };
    let mut ca = None;
    let mut cert = None;
    let mut key = None;
    let mut kept = Vec::new();
    for pair in query.split('&') {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let slot = match crate::url::percent_decode(name)?.as_str() {
            "ssl_ca" => &mut ca,
            "ssl_cert" => &mut cert,
            "ssl_key" => &mut key,
            _ => {
                kept.push(pair);
                continue;
            }
        };
        *slot = Some(PathBuf::from(crate::url::percent_decode(value)?));
    }
    let identity = match (cert, key) {
        (Some(cert), Some(key)) => Some((cert, key)),
        (None, None) => None,
        _ => return Err("ssl_cert and ssl_key must be given together".into()),
    };
    let rest = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((TlsFiles { ca, identity }, rest))
}

impl TlsFiles {
    /// `opts` with TLS required and the files read into it (so a missing file fails now,
    /// naming it); `opts` unchanged when no file was named. The host-name and CA checks stay
    /// as the URL set them (`verify_identity`, `verify_ca`); a CA file replaces the built-in
    /// roots.
    pub(super) fn apply(self, opts: Opts) -> Result<Opts, String> {
        if self.ca.is_none() && self.identity.is_none() {
            return Ok(opts);
        }
        let mut ssl = opts.ssl_opts().cloned().unwrap_or_else(SslOpts::default);
        if let Some(ca) = &self.ca {
            ssl = ssl
                .with_root_certs(vec![read(ca, "ssl_ca")?.into()])
                .with_disable_built_in_roots(true);
        }
        if let Some((cert, key)) = &self.identity {
            let identity =
                ClientIdentity::new(read(cert, "ssl_cert")?.into(), read(key, "ssl_key")?.into());
            ssl = ssl.with_client_identity(Some(identity));
        }
        Ok(OptsBuilder::from_opts(opts).ssl_opts(ssl).into())
    }
}

fn read(path: &PathBuf, parameter: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("could not read {parameter} {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn the_files_leave_the_url_and_enter_the_options() {
        let url = format!(
            "mysql://u:pw@db:3306/shop?pool_max=40&ssl_ca={}&ssl_cert={}&ssl_key={}",
            fixture("unrelated-ca.pem"),
            fixture("client-cert.pem"),
            fixture("client-key.pem")
        );
        let (files, rest) = take_files(&url).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rest, "mysql://u:pw@db:3306/shop?pool_max=40");
        let opts = Opts::from_url(&rest).unwrap_or_else(|e| panic!("{e}"));
        assert!(opts.ssl_opts().is_none());
        let opts = files.apply(opts).unwrap_or_else(|e| panic!("{e}"));
        let ssl = opts
            .ssl_opts()
            .unwrap_or_else(|| panic!("TLS is required now"));
        assert_eq!(ssl.root_certs().len(), 1);
        assert!(ssl.disable_built_in_roots());
        assert!(ssl.client_identity().is_some());
        assert!(!ssl.skip_domain_validation() && !ssl.accept_invalid_certs());
    }

    #[test]
    fn missing_halves_and_files_are_named() {
        let half = take_files("mysql://u:pw@db/x?ssl_cert=/c.pem").map(|_| ());
        assert!(half.unwrap_err().contains("together"));
        let (files, rest) = take_files("mysql://u:pw@db/x?ssl_ca=%2Fno%20such%2Fca.pem")
            .unwrap_or_else(|e| panic!("{e}"));
        let opts = Opts::from_url(&rest).unwrap_or_else(|e| panic!("{e}"));
        let error = files.apply(opts).map(|_| ()).unwrap_err();
        assert!(error.contains("ssl_ca /no such/ca.pem"), "{error}");
        let (files, rest) = take_files("mysql://u:pw@db/x").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (files, rest.as_str()),
            (TlsFiles::default(), "mysql://u:pw@db/x")
        );
    }
}
