use super::*;

fn parse_ok(source: &str) -> GoFile {
    match parse(source) {
        Ok(file) => file,
        Err(e) => panic!("{e:?}"),
    }
}

fn field(names: &[&str], pointer: bool, tag: Option<&str>, line: usize) -> GoField {
    GoField {
        names: names.iter().map(|n| (*n).to_owned()).collect(),
        pointer,
        tag: tag.map(str::to_owned),
        line,
    }
}

#[test]
fn reads_struct_fields_with_pointers_embedding_and_tags() {
    let file = parse_ok(concat!(
        "package zoo\n",
        "\n",
        "// Pen { is not code }\n",
        "type Pen struct {\n",
        "\tmeta.Header `json:\"header,omitempty\" protobuf:\"bytes,1,opt,name=header\"`\n",
        "\tSize *int64 `json:\"size\"` // a } in a comment\n",
        "\tA, B string\n",
        "\t*Gate\n",
        "\tInner struct {\n",
        "\t\tX int `json:\"x\"`\n",
        "\t} `json:\"inner\"`\n",
        "\tLabels map[string][]string \"json:\\\"labels\\\"\"\n",
        "}\n",
    ));
    assert_eq!(file.structs.len(), 1);
    let pen = &file.structs[0];
    assert_eq!(pen.name, "Pen");
    assert_eq!(
        pen.fields,
        [
            field(
                &[],
                false,
                Some("json:\"header,omitempty\" protobuf:\"bytes,1,opt,name=header\""),
                5
            ),
            field(&["Size"], true, Some("json:\"size\""), 6),
            field(&["A", "B"], false, None, 7),
            field(&[], true, None, 8),
            field(&["Inner"], false, Some("json:\"inner\""), 9),
            field(&["Labels"], false, Some("json:\"labels\""), 12),
        ]
    );
}

#[test]
fn reads_groups_aliases_generics_and_imports() {
    let file = parse_ok(concat!(
        "package zoo\n",
        "import (\n",
        "\tmeta \"example.com/lib/meta/v3\"\n",
        "\t\"example.com/lib/util\"\n",
        "\t_ \"example.com/lib/ignored\"\n",
        ")\n",
        "import one \"example.com/one\"\n",
        "type (\n",
        "\tShed = meta.Shed\n",
        "\tHut Shed\n",
        "\tBox[T any] struct{ Item T `json:\"item\"` }\n",
        "\tNames []string\n",
        "\tGrid [4]Row\n",
        ")\n",
        "type Check func(a, b int) bool\n",
        "func f() {\n",
        "\ttype Local struct{ X int }\n",
        "}\n",
    ));
    let imports: Vec<(&str, &str)> = file
        .imports
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        imports,
        [
            ("_", "example.com/lib/ignored"),
            ("meta", "example.com/lib/meta/v3"),
            ("one", "example.com/one"),
            ("util", "example.com/lib/util"),
        ]
    );
    assert_eq!(
        file.named,
        [
            (
                "Shed".to_owned(),
                Some("meta".to_owned()),
                "Shed".to_owned()
            ),
            ("Hut".to_owned(), None, "Shed".to_owned()),
        ]
    );
    let names: Vec<&str> = file.structs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["Box"],
        "a type local to a function is not the package's"
    );
    assert_eq!(file.structs[0].fields[0].names, ["Item"]);
}

#[test]
fn finds_the_group_name_constant() {
    let file = parse_ok(concat!(
        "package zoo\n",
        "const (\n",
        "\tOther = \"x\"\n",
        "\tGroupName = \"zoo.example.com\"\n",
        ")\n",
        "func init() { scheme.GroupName = \"wrong\" }\n",
    ));
    assert_eq!(file.group_name.as_deref(), Some("zoo.example.com"));
    let core = parse_ok("package zoo\nconst GroupName = \"\"\n");
    assert_eq!(core.group_name.as_deref(), Some(""));
    assert_eq!(parse_ok("package zoo\n").group_name, None);
}

#[test]
fn malformed_source_is_an_error_with_its_line() {
    assert_eq!(
        parse("package zoo\ntype A struct {\n\tX int\n").map_err(|e| e.0),
        Err(3)
    );
    assert_eq!(parse("package zoo\n}\n").map_err(|e| e.0), Err(2));
    assert!(parse("package zoo\ntype (\n\tA int\n").is_err());
}
