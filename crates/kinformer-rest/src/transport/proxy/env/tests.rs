use super::*;

fn proxied(no_proxy: &str, host: &str, port: u16) -> bool {
    NoProxy::parse(no_proxy).use_proxy(host, port)
}

#[test]
fn upper_case_first_then_lower_case_and_empty_is_unset() {
    let env = ProxyEnv::from_vars([
        ("HTTPS_PROXY", "http://upper:1"),
        ("https_proxy", "http://lower:1"),
        ("HTTP_PROXY", ""),
        ("http_proxy", "http://lower-http:2"),
        ("no_proxy", "internal"),
    ]);
    let proxies = env.resolve();
    let https = proxies.for_target(true, "api.example.com", 443).unwrap();
    assert_eq!(https.to_string(), "http://upper:1");
    let http = proxies.for_target(false, "api.example.com", 80).unwrap();
    assert_eq!(http.to_string(), "http://lower-http:2");
    assert!(proxies.for_target(true, "internal", 443).is_none());
    assert_eq!(
        ProxyEnv::from_vars([("HTTPS_PROXY", "")]),
        ProxyEnv::default()
    );
}

#[test]
fn the_scheme_of_the_server_picks_the_variable() {
    let only_http = ProxyEnv::from_vars([("HTTP_PROXY", "proxy:3128")]).resolve();
    assert!(only_http.for_target(true, "api.example.com", 443).is_none());
    assert!(only_http.for_target(false, "api.example.com", 80).is_some());
}

#[test]
fn values_without_a_known_scheme_are_http_proxies() {
    for (value, shown) in [
        ("proxy.corp:3128", "http://proxy.corp:3128"),
        ("proxy.corp", "http://proxy.corp:80"),
        ("https://proxy.corp", "https://proxy.corp:443"),
        ("socks5://user:pw@bastion:1080", "socks5://bastion:1080"),
    ] {
        let proxies = ProxyEnv::from_vars([("HTTPS_PROXY", value)]).resolve();
        let proxy = proxies.for_target(true, "api.example.com", 443);
        assert_eq!(
            proxy.map(ToString::to_string).as_deref(),
            Some(shown),
            "{value}"
        );
    }
    let garbage = ProxyEnv::from_vars([("HTTPS_PROXY", "proxy corp:3128")]).resolve();
    assert!(garbage.for_target(true, "api.example.com", 443).is_none());
}

#[test]
fn localhost_and_loopback_are_never_proxied() {
    for host in [
        "localhost",
        "127.0.0.1",
        "127.1.2.3",
        "::1",
        "::ffff:127.0.0.1",
    ] {
        assert!(!proxied("", host, 443), "{host}");
    }
    assert!(proxied("", "localhost.example.com", 443));
    assert!(proxied("", "10.0.0.1", 443));
}

#[test]
fn star_matches_everything() {
    assert!(!proxied("*", "api.example.com", 443));
    assert!(!proxied("foo, *", "10.0.0.1", 6443));
    // Only a lone `*`.
    assert!(proxied("*example.com", "api.other.com", 443));
}

#[test]
fn domains_match_themselves_and_subdomains() {
    let list = "example.com, .dot.org, *.star.net";
    assert!(!proxied(list, "example.com", 443));
    assert!(!proxied(list, "api.example.com", 443));
    assert!(!proxied(list, "API.Example.COM", 443));
    assert!(proxied(list, "notexample.com", 443));
    assert!(!proxied(list, "a.dot.org", 443));
    assert!(proxied(list, "dot.org", 443));
    assert!(!proxied(list, "a.star.net", 443));
    assert!(proxied(list, "star.net", 443));
    assert!(proxied(list, "example.org", 443));
}

#[test]
fn ports_narrow_a_rule() {
    let list = "example.com:6443,10.0.0.5:443,[2001:db8::1]:443";
    assert!(!proxied(list, "api.example.com", 6443));
    assert!(proxied(list, "api.example.com", 443));
    assert!(!proxied(list, "10.0.0.5", 443));
    assert!(proxied(list, "10.0.0.5", 6443));
    assert!(!proxied(list, "2001:db8::1", 443));
    assert!(proxied(list, "2001:db8::1", 6443));
}

#[test]
fn ip_addresses_and_cidrs() {
    let list = "10.0.0.0/8, 192.168.1.7, 2001:db8::/32, fd00::1";
    assert!(!proxied(list, "10.200.3.4", 443));
    assert!(proxied(list, "11.0.0.1", 443));
    assert!(!proxied(list, "192.168.1.7", 443));
    assert!(proxied(list, "192.168.1.8", 443));
    assert!(!proxied(list, "2001:db8:ffff::1", 443));
    assert!(proxied(list, "2001:db9::1", 443));
    assert!(!proxied(list, "fd00::1", 443));
    // A CIDR matches addresses only, never a name.
    assert!(proxied(list, "ten.example.com", 443));
    assert!(!proxied("0.0.0.0/0", "8.8.8.8", 443));
    assert!(proxied("0.0.0.0/0", "2001:db8::1", 443));
}

#[test]
fn malformed_entries_are_ignored() {
    let list = ":443, , example.com:port, 10.0.0.0/33";
    assert!(proxied(list, "example.com", 443));
    assert!(proxied(list, "10.0.0.1", 443));
    assert_eq!(NoProxy::parse(" ,, "), NoProxy::default());
}

#[test]
fn debug_hides_proxy_credentials() {
    let env = ProxyEnv::from_vars([("HTTPS_PROXY", "http://user:hunter2@proxy:3128")]);
    let shown = format!("{env:?}");
    assert!(
        !shown.contains("hunter2") && shown.contains("proxy:3128"),
        "{shown}"
    );
}
