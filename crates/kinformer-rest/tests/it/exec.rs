//! Exec credential plugins run directly, never through a shell: arguments and environment
//! values arrive literally, the environment is inherited plus the kubeconfig's `env`, and the
//! command is found as kubectl finds it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_rest::{Client, Config, Kubeconfig, KubeconfigOptions, RestClient};

use crate::server::{TestServer, respond, serve};

/// Arguments a shell would expand, split or run.
const TRICKY_ARGS: &[&str] = &[
    "$HOME",
    "a;touch pwned-semicolon",
    "$(touch pwned-subst)",
    "`touch pwned-backtick`",
    "*",
    "two words",
    r#"'single' "double" \back"#,
    "",
];

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kinformer-rest-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn recording_server() -> TestServer {
    let cm = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}"#;
    serve(Default::default(), Arc::new(move |_req| respond(200, cm))).await
}

/// Sends one request with the kubeconfig's context and returns the bearer token it carried.
async fn token_sent(server: &TestServer, kubeconfig: &Path, context: &str) -> String {
    let k = Kubeconfig::read_from(kubeconfig).unwrap();
    let config = Config::from_custom_kubeconfig(k, &KubeconfigOptions::context(context)).unwrap();
    let rc = RestClient::new(Client::from_config(&config).unwrap(), "", "v1");
    let request = rc.get().namespace("ns").resource("configmaps").name("cm");
    request.into::<ConfigMap>().await.unwrap();
    let seen = server.seen();
    let header = seen.last().unwrap().headers["authorization"]
        .to_str()
        .unwrap();
    header.strip_prefix("Bearer ").unwrap().to_owned()
}

/// A kubeconfig (JSON is YAML) with one user per `(context, exec)` pair.
fn write_kubeconfig(path: &Path, server: &str, users: &[(&str, serde_json::Value)]) {
    let users_json: Vec<_> = users
        .iter()
        .map(|(name, exec)| serde_json::json!({"name": name, "user": {"exec": exec}}))
        .collect();
    let contexts: Vec<_> = users
        .iter()
        .map(|(name, _)| serde_json::json!({"name": name, "context": {"cluster": "c", "user": name}}))
        .collect();
    let kubeconfig = serde_json::json!({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": users_json, "contexts": contexts, "current-context": users[0].0,
    });
    std::fs::write(path, kubeconfig.to_string()).unwrap();
}

fn credential(token: &str) -> String {
    format!(
        r#"{{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{{"token":"{token}"}}}}"#
    )
}

/// NUL-separated fields a plugin wrote.
fn fields(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let mut fields: Vec<String> = text.split('\0').map(str::to_owned).collect();
    assert_eq!(fields.pop().as_deref(), Some(""), "NUL-terminated");
    fields
}

#[tokio::test]
async fn arguments_and_environment_arrive_literally() {
    let dir = temp_dir("exec-literal");
    let server = recording_server().await;
    // The plugin records its argv and environment, then answers.
    let script = dir.join("plugin.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncd \"$OUT\" || exit 9\n\
             printf '%s\\0' \"$@\" > argv\n\
             printf '%s\\0' \"$FROM_KUBECONFIG\" \"$HOME\" \"$PATH\" \"$KUBERNETES_EXEC_INFO\" > env\n\
             echo '{}'\n",
            credential("literal-token")
        ),
    )
    .unwrap();
    let mut args = vec![script.display().to_string()];
    args.extend(TRICKY_ARGS.iter().map(|a| (*a).to_owned()));
    let exec = serde_json::json!({
        "apiVersion": "client.authentication.k8s.io/v1",
        "command": "/bin/sh",
        "args": args,
        "env": [
            {"name": "OUT", "value": dir.display().to_string()},
            {"name": "FROM_KUBECONFIG", "value": "$PATH; $(touch pwned-env) *"},
            {"name": "HOME", "value": "/home/from-kubeconfig"},
        ],
        "provideClusterInfo": true,
        "interactiveMode": "Never",
    });
    let kubeconfig = dir.join("config");
    write_kubeconfig(
        &kubeconfig,
        &server.url("http").to_string(),
        &[("literal", exec)],
    );

    assert_eq!(
        token_sent(&server, &kubeconfig, "literal").await,
        "literal-token"
    );

    assert_eq!(fields(&dir.join("argv")), TRICKY_ARGS);
    let env = fields(&dir.join("env"));
    assert_eq!(
        env[0], "$PATH; $(touch pwned-env) *",
        "kubeconfig env, unexpanded"
    );
    assert_eq!(
        env[1], "/home/from-kubeconfig",
        "kubeconfig env overrides inherited"
    );
    assert_eq!(
        env[2],
        std::env::var("PATH").unwrap(),
        "the rest is inherited"
    );
    let info: serde_json::Value = serde_json::from_str(&env[3]).unwrap();
    assert_eq!(info["kind"], "ExecCredential");
    assert_eq!(info["apiVersion"], "client.authentication.k8s.io/v1");
    assert_eq!(info["spec"]["interactive"], false);
    assert_eq!(
        info["spec"]["cluster"]["server"],
        server.url("http").to_string()
    );
    // Nothing was run by a shell on the way (here or where the test runs).
    let created: Vec<_> = [dir.clone(), std::env::current_dir().unwrap()]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap())
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with("pwned"))
        .collect();
    assert!(created.is_empty(), "{created:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn find_on_path(program: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{program} is not on PATH"))
}

#[tokio::test]
async fn commands_resolve_like_kubectl() {
    let dir = temp_dir("exec-resolve");
    let server = recording_server().await;
    let kube_dir = dir.join("kube");
    std::fs::create_dir_all(kube_dir.join("bin")).unwrap();
    // Links to existing programs (no freshly written executable, which another thread's fork
    // could hold open for writing).
    std::os::unix::fs::symlink(find_on_path("cat"), kube_dir.join("bin/cred-plugin")).unwrap();
    // A decoy next to the kubeconfig: a bare name must come from PATH, not from here.
    std::os::unix::fs::symlink(find_on_path("echo"), kube_dir.join("cat")).unwrap();
    let cred = |name: &str, token: &str| {
        let path = dir.join(name);
        std::fs::write(&path, credential(token)).unwrap();
        path.display().to_string()
    };
    let exec = |command: &str, file: String| {
        serde_json::json!({
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": command, "args": [file], "interactiveMode": "Never",
        })
    };
    let kubeconfig = kube_dir.join("config");
    write_kubeconfig(
        &kubeconfig,
        &server.url("http").to_string(),
        &[
            (
                "relative",
                exec("bin/cred-plugin", cred("relative.json", "relative-token")),
            ),
            (
                "dot-relative",
                exec("./bin/cred-plugin", cred("dot.json", "dot-token")),
            ),
            ("on-path", exec("cat", cred("path.json", "path-token"))),
            ("path-in-env", {
                let mut e = exec("cat", cred("env.json", "env-path-token"));
                e["env"] =
                    serde_json::json!([{"name": "PATH", "value": kube_dir.display().to_string()}]);
                e
            }),
        ],
    );
    assert_ne!(std::env::current_dir().unwrap(), kube_dir);

    assert_eq!(
        token_sent(&server, &kubeconfig, "relative").await,
        "relative-token"
    );
    assert_eq!(
        token_sent(&server, &kubeconfig, "dot-relative").await,
        "dot-token"
    );
    assert_eq!(
        token_sent(&server, &kubeconfig, "on-path").await,
        "path-token"
    );
    // A PATH in the plugin's env is its environment, not where the plugin is looked up (the
    // decoy `cat` is in that folder).
    assert_eq!(
        token_sent(&server, &kubeconfig, "path-in-env").await,
        "env-path-token"
    );
    let k = Kubeconfig::read_from(&kubeconfig).unwrap();
    let options = KubeconfigOptions::context("relative");
    let config = Config::from_custom_kubeconfig(k, &options).unwrap();
    let kinformer_rest::auth::Auth::Exec(exec) = config.auth() else {
        panic!("not exec: {:?}", config.auth())
    };
    assert_eq!(Path::new(exec.command()), kube_dir.join("bin/cred-plugin"));
    let _ = std::fs::remove_dir_all(&dir);
}
