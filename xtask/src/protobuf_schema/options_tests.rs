use super::*;

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_owned).collect()
}

const DIRS: &str = "--api a --apimachinery m --apiextensions e --aggregator g";

#[test]
fn options_default_the_output_and_key_revisions_by_source() {
    let line = format!("{DIRS} --revision v9 --revision aggregator=abc");
    let read = match options(&args(&line), Path::new("/root")) {
        Ok(read) => read,
        Err(e) => panic!("{e}"),
    };
    let dirs: Vec<&str> = read.dirs.iter().filter_map(|d| d.to_str()).collect();
    assert_eq!(dirs, ["a", "m", "e", "g"]);
    assert_eq!(
        read.revisions,
        [Some("v9"), Some("v9"), Some("v9"), Some("abc")].map(|r| r.map(str::to_owned))
    );
    assert_eq!(
        read.out,
        Path::new("/root/crates/kinformer-protobuf/schema/kubernetes.schema")
    );
    let line = format!("--out x.schema {DIRS}");
    let out = options(&args(&line), Path::new("/root")).map(|o| o.out);
    assert_eq!(out.ok(), Some(PathBuf::from("x.schema")));
}

#[test]
fn bad_command_lines_are_usage_errors() {
    for line in [
        "--api a --apimachinery m --apiextensions e".to_owned(),
        format!("{DIRS} --colour blue"),
        format!("{DIRS} --out"),
    ] {
        let result = options(&args(&line), Path::new("/root"));
        assert!(matches!(result, Err(Error::Usage(_))), "{line}");
    }
}

#[test]
fn a_source_without_protos_is_an_error() {
    let empty = std::env::temp_dir().join(format!("protobuf-schema-empty-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&empty) {
        panic!("{e}");
    }
    let line = format!(
        "--api {0} --apimachinery {0} --apiextensions {0} --aggregator {0} --out {0}/out",
        empty.display()
    );
    let result = options(&args(&line), Path::new("/root")).and_then(|o| generate(&o));
    let _ = std::fs::remove_dir_all(&empty);
    assert!(matches!(
        result,
        Err(Error::NoProtos {
            source: "kubernetes/api",
            ..
        })
    ));
}
