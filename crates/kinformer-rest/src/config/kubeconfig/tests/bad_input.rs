//! Kubeconfigs that cannot be used: each is a typed error that names the file or field and
//! never quotes a value.

use super::*;

#[test]
fn malformed_files_are_typed_errors() {
    assert!(
        Kubeconfig::from_yaml("clusters: [", None)
            .unwrap_err()
            .is_config()
    );
    assert!(
        Kubeconfig::from_yaml("clusters: 5", None)
            .unwrap_err()
            .is_config()
    );
    let k = Kubeconfig::from_yaml("clusters: null\nusers: null\ncontexts: null\n", None).unwrap();
    assert!(
        load(&k, None)
            .unwrap_err()
            .to_string()
            .contains("current-context")
    );
    let bad_data = "clusters:\n- name: c\n  cluster: {server: 'https://h', certificate-authority-data: '!!!'}\ncontexts:\n- name: c\n  context: {cluster: c}\ncurrent-context: c\n";
    let k = Kubeconfig::from_yaml(bad_data, None).unwrap();
    assert!(load(&k, None).unwrap_err().to_string().contains("base64"));
}

#[test]
fn a_bad_certificate_authority_is_reported_with_its_file() {
    let dir = temp_dir("bad-ca");
    let yaml = |ca_line: &str| {
        format!(
            "clusters:\n- name: c\n  cluster:\n    server: https://h\n    {ca_line}\ncontexts:\n- name: c\n  context: {{cluster: c}}\ncurrent-context: c\n"
        )
    };
    let not_der = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    std::fs::write(dir.join("ca.pem"), not_der).unwrap();
    std::fs::write(dir.join("empty.pem"), "not a certificate").unwrap();
    let path = dir.join("config");
    std::fs::write(&path, yaml("certificate-authority: ca.pem")).unwrap();
    let err = load(&Kubeconfig::read_from(&path).unwrap(), None).unwrap_err();
    let text = err.to_string();
    assert!(err.is_config(), "{text}");
    let file = dir.join("ca.pem");
    assert!(
        text.contains(&format!(
            "cannot parse the certificate-authority file {}",
            file.display()
        )),
        "{text}"
    );
    assert!(!text.contains("peer"), "{text}");
    std::fs::write(&path, yaml("certificate-authority: empty.pem")).unwrap();
    let text = load(&Kubeconfig::read_from(&path).unwrap(), None)
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("no certificate found in the certificate-authority file"),
        "{text}"
    );
    let data = format!("certificate-authority-data: {}", b64(not_der));
    let k = Kubeconfig::from_yaml(&yaml(&data), None).unwrap();
    let text = load(&k, None).unwrap_err().to_string();
    assert!(
        text.contains("cannot parse the certificate-authority-data"),
        "{text}"
    );
}

#[test]
fn an_invalid_file_is_named_once() {
    let dir = temp_dir("garbage");
    let path = dir.join("config");
    std::fs::write(&path, "garbage: [").unwrap();
    let err = Kubeconfig::read_from(&path).unwrap_err();
    let mut line = err.to_string();
    let mut cause = std::error::Error::source(&err);
    while let Some(c) = cause {
        line = format!("{line}: {c}");
        cause = c.source();
    }
    assert_eq!(line.matches("invalid kubeconfig").count(), 1, "{line}");
    assert!(line.contains(&path.display().to_string()), "{line}");
}

#[test]
fn parse_errors_do_not_quote_values() {
    let yaml = "users:\n- name: u\n  user: tok-SECRET-1\nclusters:\n- name: c\n  cluster: {server: x, insecure-skip-tls-verify: tok-SECRET-2}\n";
    let err = Kubeconfig::from_yaml(yaml, None).unwrap_err();
    let mut text = format!("{err} {err:?}");
    let mut cause = std::error::Error::source(&err);
    while let Some(e) = cause {
        text.push_str(&format!(" {e} {e:?}"));
        cause = e.source();
    }
    assert!(!text.contains("SECRET"), "{text}");
    assert!(
        text.contains("invalid type: string \"<redacted>\""),
        "{text}"
    );
    assert!(text.contains("line 3"), "the location stays: {text}");
}
