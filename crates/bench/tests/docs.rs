//! docs/PERFORMANCE.md's tables are generated from the committed benchmark
//! JSON: regenerating them must give exactly what the document shows.

use std::process::Command;

#[test]
fn performance_tables_match_the_committed_json() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let doc = std::fs::read_to_string(format!("{root}/docs/PERFORMANCE.md")).unwrap();
    let mut sections = 0;
    for block in doc.split("<!-- BEGIN GENERATED: ").skip(1) {
        let (files, rest) = block.split_once(" -->\n").expect("marker line");
        let (shown, _) = rest
            .split_once("<!-- END GENERATED -->")
            .expect("end marker");
        let output = Command::new(env!("CARGO_BIN_EXE_unbound-bench"))
            .current_dir(root)
            .args(["--report-from", files])
            .output()
            .expect("run unbound-bench");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let generated = String::from_utf8(output.stdout).unwrap();
        assert_eq!(
            shown, generated,
            "PERFORMANCE.md section for {files} differs from the JSON; regenerate it"
        );
        sections += 1;
    }
    assert_eq!(sections, 2, "H200 and lavapipe sections");
}
