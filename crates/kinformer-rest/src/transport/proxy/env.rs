//! [`ProxyEnv`]: `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` as Go's `http.ProxyFromEnvironment`
//! (golang.org/x/net/http/httpproxy) and client-go's `NewProxierWithNoProxyCIDR` read them.

use std::fmt;
use std::net::IpAddr;

use super::url::ProxyUrl;

/// The proxy variables of an environment: `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY`, each
/// upper-case first, then lower-case (an empty value counts as unset).
///
/// A client built without a kubeconfig `proxy-url` ([`Config::proxy_url`](crate::Config::proxy_url))
/// reads them from the process when it is built ([`from_process`](Self::from_process)), unless
/// [`Config::proxy_env`](crate::Config::proxy_env) gave it another set, as Go does:
/// - `HTTPS_PROXY` for `https://` servers, `HTTP_PROXY` for `http://` ones; a value without
///   a scheme is an `http://` proxy, `https://` and `socks5://` are honoured too;
/// - never for `localhost` or a loopback address;
/// - not for a server `NO_PROXY` names: a comma list of `*` (everything), IP addresses, CIDRs
///   (`10.0.0.0/8`), host names (`example.com`, also matching its subdomains; `.example.com`
///   and `*.example.com` match subdomains only), each optionally with a `:port`.
///
/// # Examples
/// ```
/// use kinformer_rest::Config;
/// use kinformer_rest::stack::ProxyEnv;
///
/// let env = ProxyEnv::from_vars([
///     ("HTTPS_PROXY", "http://proxy.corp:3128"),
///     ("NO_PROXY", "10.0.0.0/8,.cluster.local"),
/// ]);
/// let config = Config::new("https://api.example.com".parse()?).with_proxy_env(env);
/// # let _ = config;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ProxyEnv {
    https_proxy: String,
    http_proxy: String,
    no_proxy: String,
}

impl ProxyEnv {
    /// The variables of this process.
    pub fn from_process() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// The variables among `vars` (name, value): for tests, or an environment read elsewhere.
    pub fn from_vars<K, V>(vars: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: AsRef<str>,
        V: Into<String>,
    {
        let vars: Vec<(String, String)> = vars
            .into_iter()
            .map(|(k, v)| (k.as_ref().to_owned(), v.into()))
            .collect();
        Self::from_lookup(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Self {
        // Go's getEnvAny: the first non-empty value.
        let any = |names: [&str; 2]| {
            names
                .into_iter()
                .find_map(|n| get(n).filter(|v| !v.is_empty()))
                .unwrap_or_default()
        };
        Self {
            https_proxy: any(["HTTPS_PROXY", "https_proxy"]),
            http_proxy: any(["HTTP_PROXY", "http_proxy"]),
            no_proxy: any(["NO_PROXY", "no_proxy"]),
        }
    }

    /// The proxies and exceptions these variables describe; unusable proxy values are ignored,
    /// as Go ignores them.
    pub(crate) fn resolve(&self) -> EnvProxies {
        EnvProxies {
            https: lenient_proxy(&self.https_proxy),
            http: lenient_proxy(&self.http_proxy),
            no_proxy: NoProxy::parse(&self.no_proxy),
        }
    }
}

impl fmt::Debug for ProxyEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |v: &str| crate::config::without_userinfo(v);
        f.debug_struct("ProxyEnv")
            .field("https_proxy", &shown(&self.https_proxy))
            .field("http_proxy", &shown(&self.http_proxy))
            .field("no_proxy", &self.no_proxy)
            .finish()
    }
}

/// Go's `parseProxy`: a value that is not an `http`, `https` or `socks5` URL is tried again as
/// `http://value`.
fn lenient_proxy(value: &str) -> Option<ProxyUrl> {
    if value.is_empty() {
        return None;
    }
    ProxyUrl::parse(value)
        .or_else(|_| ProxyUrl::parse(&format!("http://{value}")))
        .ok()
}

/// The environment's proxies, parsed once when the client is built.
#[derive(Clone, Debug, Default)]
pub(crate) struct EnvProxies {
    https: Option<ProxyUrl>,
    http: Option<ProxyUrl>,
    no_proxy: NoProxy,
}

impl EnvProxies {
    /// The proxy for a server at `host` (no brackets) and `port`, if any.
    pub(crate) fn for_target(&self, https: bool, host: &str, port: u16) -> Option<&ProxyUrl> {
        let proxy = if https { &self.https } else { &self.http };
        proxy
            .as_ref()
            .filter(|_| self.no_proxy.use_proxy(host, port))
    }
}

/// The parsed `NO_PROXY` list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct NoProxy {
    all: bool,
    rules: Vec<Rule>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Rule {
    /// An address range.
    Cidr { net: IpAddr, prefix: u8 },
    /// One address, optionally one port.
    Ip { ip: IpAddr, port: Option<u16> },
    /// `.suffix` matches hosts ending in it; `exact` also the suffix without its dot.
    Domain {
        suffix: String,
        exact: bool,
        port: Option<u16>,
    },
}

impl NoProxy {
    pub(crate) fn parse(list: &str) -> Self {
        let mut rules = Vec::new();
        for entry in list.split(',') {
            let entry = entry.trim().to_ascii_lowercase();
            if entry.is_empty() {
                continue;
            }
            if entry == "*" {
                return Self {
                    all: true,
                    rules: Vec::new(),
                };
            }
            if let Some(rule) = Rule::parse(&entry) {
                rules.push(rule);
            }
        }
        Self { all: false, rules }
    }

    /// Go's `useProxy`: false for localhost, loopback addresses and whatever the list names.
    pub(crate) fn use_proxy(&self, host: &str, port: u16) -> bool {
        if host == "localhost" {
            return false;
        }
        let ip = host.parse::<IpAddr>().ok().map(|ip| ip.to_canonical());
        if ip.is_some_and(|ip| ip.is_loopback()) {
            return false;
        }
        if self.all {
            return false;
        }
        let host = host.trim().to_ascii_lowercase();
        !self.rules.iter().any(|rule| rule.matches(&host, port, ip))
    }
}

impl Rule {
    /// One entry (trimmed, lower-case); `None` for entries Go ignores (no host part).
    fn parse(entry: &str) -> Option<Self> {
        if let Some((addr, prefix)) = entry.split_once('/') {
            // An entry with a slash that is no CIDR falls through to the host forms, as in Go.
            if let (Ok(ip), Ok(prefix)) = (addr.parse::<IpAddr>(), prefix.parse::<u8>()) {
                let max = if ip.is_ipv4() { 32 } else { 128 };
                if prefix <= max {
                    return Some(Self::Cidr {
                        net: ip.to_canonical(),
                        prefix,
                    });
                }
            }
        }
        let (host, port) = split_entry(entry);
        let port = match port {
            Some(p) => Some(p.parse().ok()?),
            None => None,
        };
        if host.is_empty() {
            return None;
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Some(Self::Ip {
                ip: ip.to_canonical(),
                port,
            });
        }
        let host = host
            .strip_prefix('*')
            .filter(|h| h.starts_with('.'))
            .unwrap_or(host);
        Some(match host.strip_prefix('.') {
            Some(_) => Self::Domain {
                suffix: host.to_owned(),
                exact: false,
                port,
            },
            None => Self::Domain {
                suffix: format!(".{host}"),
                exact: true,
                port,
            },
        })
    }

    fn matches(&self, host: &str, port: u16, ip: Option<IpAddr>) -> bool {
        let port_ok = |want: &Option<u16>| want.is_none_or(|p| p == port);
        match self {
            Self::Cidr { net, prefix } => ip.is_some_and(|ip| in_cidr(ip, *net, *prefix)),
            Self::Ip { ip: want, port: p } => ip == Some(*want) && port_ok(p),
            Self::Domain {
                suffix,
                exact,
                port: p,
            } => {
                (host.ends_with(suffix.as_str()) || (*exact && host == &suffix[1..])) && port_ok(p)
            }
        }
    }
}

/// `host:port`, `[v6]:port` or a bare host (an IPv6 address without brackets included).
fn split_entry(entry: &str) -> (&str, Option<&str>) {
    if let Some(bracketed) = entry.strip_prefix('[') {
        return match bracketed.split_once("]:") {
            Some((host, port)) => (host, Some(port)),
            None => (bracketed.trim_end_matches(']'), None),
        };
    }
    match entry.rsplit_once(':') {
        // More than one colon and no brackets: an IPv6 address, not host:port.
        Some((host, _)) if host.contains(':') => (entry, None),
        Some((host, port)) => (host, Some(port)),
        None => (entry, None),
    }
}

fn in_cidr(ip: IpAddr, net: IpAddr, prefix: u8) -> bool {
    match (ip, net) {
        (IpAddr::V4(ip), IpAddr::V4(net)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            u32::from(ip) & mask == u32::from(net) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            u128::from(ip) & mask == u128::from(net) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
