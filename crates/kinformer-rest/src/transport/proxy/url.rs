//! [`ProxyUrl`]: a parsed `scheme://[user[:password]@]host[:port]` proxy address, as client-go's
//! `parseProxyURL` accepts it for a kubeconfig's `proxy-url` (schemes `http`, `https`,
//! `socks5`).

use std::fmt;
use std::net::IpAddr;

use crate::auth::Secret;
use crate::error::{Error, Kind, Result};

/// How to talk to the proxy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProxyScheme {
    /// HTTP/1.1 over TCP: `CONNECT` for `https://` servers, absolute-form requests otherwise.
    Http,
    /// As [`Http`](Self::Http), over a TLS connection to the proxy.
    Https,
    /// RFC 1928, with RFC 1929 username/password authentication when the URL has a user.
    Socks5,
}

impl ProxyScheme {
    fn parse(scheme: &str) -> Option<Self> {
        match scheme.to_ascii_lowercase().as_str() {
            "http" => Some(Self::Http),
            "https" => Some(Self::Https),
            "socks5" => Some(Self::Socks5),
            _ => None,
        }
    }

    /// Go's `portMap`: the port of a URL that names none.
    fn default_port(self) -> u16 {
        match self {
            Self::Http => 80,
            Self::Https => 443,
            Self::Socks5 => 1080,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Https => "https",
            Self::Socks5 => "socks5",
        }
    }
}

/// A user name and password from the URL's user info (percent-decoded).
#[derive(Clone)]
pub(crate) struct Credentials {
    pub(crate) user: String,
    pub(crate) password: Secret,
}

/// A proxy to dial.
#[derive(Clone)]
pub(crate) struct ProxyUrl {
    pub(crate) scheme: ProxyScheme,
    /// The host, without the brackets of an IPv6 address.
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) credentials: Option<Credentials>,
    /// `http://host:port`, what the TCP connector dials.
    pub(crate) dial: http::Uri,
}

/// Why a URL is not a proxy URL.
#[derive(Debug)]
pub(crate) enum UrlProblem {
    /// Not `scheme://authority`, a bad port or percent-encoding, no host.
    Malformed(&'static str),
    /// A scheme other than `http`, `https` and `socks5`.
    Scheme(String),
}

impl ProxyUrl {
    /// A kubeconfig `proxy-url` (or [`Config::proxy_url`](crate::Config::proxy_url)): a config
    /// error naming `proxy-url` when it is not a proxy URL.
    pub(crate) fn parse_setting(url: &str) -> Result<Self> {
        Self::parse(url).map_err(|problem| {
            let shown = crate::config::without_userinfo(url);
            let message = match problem {
                UrlProblem::Scheme(scheme) => format!(
                    "proxy-url {shown:?}: unsupported scheme {scheme:?}, must be http, https, or socks5"
                ),
                UrlProblem::Malformed(why) => format!("invalid proxy-url {shown:?}: {why}"),
            };
            Error::new(Kind::Config, message)
        })
    }

    pub(crate) fn parse(url: &str) -> Result<Self, UrlProblem> {
        let (scheme, rest) = url
            .split_once("://")
            .ok_or(UrlProblem::Malformed("not scheme://host[:port]"))?;
        let scheme =
            ProxyScheme::parse(scheme).ok_or_else(|| UrlProblem::Scheme(scheme.to_owned()))?;
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((userinfo, hostport)) => (Some(userinfo), hostport),
            None => (None, authority),
        };
        let (host, port) = split_host_port(hostport)?;
        if host.is_empty() {
            return Err(UrlProblem::Malformed("no host"));
        }
        if !host.bytes().all(|b| b.is_ascii_graphic() && b != b'@') {
            return Err(UrlProblem::Malformed("invalid host"));
        }
        let port = match port {
            None | Some("") => scheme.default_port(),
            Some(p) => p
                .parse()
                .map_err(|_| UrlProblem::Malformed("invalid port"))?,
        };
        let credentials = userinfo
            .map(|info| {
                let (user, password) = info.split_once(':').unwrap_or((info, ""));
                Ok::<_, UrlProblem>(Credentials {
                    user: percent_decode(user)?,
                    password: Secret::new(percent_decode(password)?),
                })
            })
            .transpose()?;
        let dial = format!("http://{}", host_port(host, port))
            .parse()
            .map_err(|_| UrlProblem::Malformed("invalid host"))?;
        Ok(Self {
            scheme,
            host: host.to_owned(),
            port,
            credentials,
            dial,
        })
    }
}

/// `host:port`, brackets around an IPv6 address (Go's `net.JoinHostPort`).
pub(crate) fn host_port(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// `host`, `host:port`, `[v6]` or `[v6]:port`; the host without brackets.
fn split_host_port(s: &str) -> Result<(&str, Option<&str>), UrlProblem> {
    if let Some(bracketed) = s.strip_prefix('[') {
        let (host, after) = bracketed
            .split_once(']')
            .ok_or(UrlProblem::Malformed("unclosed [ in host"))?;
        if host.parse::<IpAddr>().is_err() {
            return Err(UrlProblem::Malformed("invalid IPv6 address"));
        }
        return match after {
            "" => Ok((host, None)),
            _ => after
                .strip_prefix(':')
                .map(|port| (host, Some(port)))
                .ok_or(UrlProblem::Malformed("invalid port")),
        };
    }
    Ok(match s.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (s, None),
    })
}

fn percent_decode(s: &str) -> Result<String, UrlProblem> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or(UrlProblem::Malformed("invalid percent-encoding"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| UrlProblem::Malformed("invalid percent-encoding"))
}

impl fmt::Display for ProxyUrl {
    /// `scheme://host:port`, never the credentials.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}://{}",
            self.scheme.name(),
            host_port(&self.host, self.port)
        )
    }
}

impl fmt::Debug for ProxyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProxyUrl")
            .field("url", &self.to_string())
            .field("credentials", &self.credentials.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_schemes_with_default_ports() {
        for (url, shown) in [
            ("http://proxy.local", "http://proxy.local:80"),
            ("HTTPS://proxy.local/", "https://proxy.local:443"),
            ("socks5://10.0.0.1", "socks5://10.0.0.1:1080"),
            ("socks5://[::1]:9050", "socks5://[::1]:9050"),
            ("http://proxy.local:3128/path?q", "http://proxy.local:3128"),
        ] {
            assert_eq!(ProxyUrl::parse(url).unwrap().to_string(), shown, "{url}");
        }
        assert_eq!(
            ProxyUrl::parse("socks5://[::1]:9050").unwrap().dial,
            "http://[::1]:9050/"
        );
    }

    #[test]
    fn credentials_are_percent_decoded_and_never_shown() {
        let p = ProxyUrl::parse("socks5://al%40ice:p%3Aw:d@proxy.local:1080").unwrap();
        let c = p.credentials.as_ref().unwrap();
        assert_eq!(c.user, "al@ice");
        assert_eq!(c.password.expose(), "p:w:d");
        assert!(!format!("{p} {p:?}").contains("p:w"));
        let no_password = ProxyUrl::parse("http://user@proxy.local").unwrap();
        assert_eq!(no_password.credentials.unwrap().password.expose(), "");
    }

    #[test]
    fn errors_name_proxy_url_and_hide_credentials() {
        let err = ProxyUrl::parse_setting("ftp://u:hunter2@proxy.local").unwrap_err();
        assert!(err.is_config());
        let text = err.to_string();
        assert!(
            text.contains("proxy-url") && text.contains("\"ftp\""),
            "{text}"
        );
        assert!(!text.contains("hunter2"), "{text}");
        for bad in [
            "proxy.local:3128",
            "http://",
            "http://proxy.local:port",
            "http://proxy.local:99999",
            "http://[::1",
            "http://u:%zz@proxy.local",
        ] {
            let err = ProxyUrl::parse_setting(bad).unwrap_err();
            assert!(
                err.is_config() && err.to_string().contains("proxy-url"),
                "{bad}: {err}"
            );
        }
    }
}
