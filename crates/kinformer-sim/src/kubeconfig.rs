//! A kubeconfig that points kubectl (or any client) at the simulator.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// Renders a kubeconfig YAML with one cluster, user and context, all named `kinformer-sim`.
pub(crate) fn render(url: &str, ca_pem: Option<&str>, token: Option<&str>) -> String {
    let mut cluster = format!("    server: {url}\n");
    if let Some(ca) = ca_pem {
        cluster.push_str(&format!(
            "    certificate-authority-data: {}\n",
            STANDARD.encode(ca)
        ));
    }
    let user = match token {
        Some(t) => format!(
            "    token: \"{}\"\n",
            t.replace('\\', "\\\\").replace('"', "\\\"")
        ),
        None => "    {}\n".to_owned(),
    };
    let user = if token.is_some() { user } else { String::new() };
    let user_block = if user.is_empty() {
        "- name: kinformer-sim\n  user: {}\n".to_owned()
    } else {
        format!("- name: kinformer-sim\n  user:\n{user}")
    };
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: kinformer-sim\n  cluster:\n{cluster}users:\n{user_block}contexts:\n- name: kinformer-sim\n  context:\n    cluster: kinformer-sim\n    user: kinformer-sim\n    namespace: default\ncurrent-context: kinformer-sim\npreferences: {{}}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_tls_and_token() {
        let k = render("https://127.0.0.1:1", Some("PEM"), Some("t0k"));
        assert!(k.contains("server: https://127.0.0.1:1\n"));
        assert!(k.contains(&format!(
            "certificate-authority-data: {}",
            STANDARD.encode("PEM")
        )));
        assert!(k.contains("token: \"t0k\""));
        assert!(render("http://x", None, None).contains("user: {}"));
    }
}
