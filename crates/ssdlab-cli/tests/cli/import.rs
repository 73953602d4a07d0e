//! `ssdlab import mqsim` on hand-made XML: an unknown tag and a value ssdlab cannot express
//! are input errors (exit 2) naming the file, the line and the tag, and nothing is written.

#[allow(unused_imports)]
use super::*;

/// A small ssdconfig.xml; `extra` goes on line 5, inside Device_Parameter_Set.
fn config_with(extra: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<Execution_Parameter_Set>\n<Host_Parameter_Set><PCIe_Lane_Count>4</PCIe_Lane_Count></Host_Parameter_Set>\n<Device_Parameter_Set>\n{extra}\n<Flash_Channel_Count>2</Flash_Channel_Count>\n</Device_Parameter_Set>\n</Execution_Parameter_Set>\n"
    )
}

/// Writes `config_with(extra)` as `ssdconfig.xml` in `dir` and runs `ssdlab import mqsim` on it
/// into `dir/out`: the config's path, the output folder and the run.
fn import_with(dir: &TempDir, extra: &str) -> (PathBuf, PathBuf, Output) {
    let cfg = dir.write("ssdconfig.xml", &config_with(extra));
    let out = dir.path("out");
    let o = ssdlab([
        "import".into(),
        "mqsim".into(),
        "--config".into(),
        cfg.clone().into_os_string(),
        "--out".into(),
        out.clone().into_os_string(),
    ]);
    (cfg, out, o)
}

/// The import of `config_with(extra)` is an input error (exit 2) whose stderr names the
/// config's path, line 5 and `message`; nothing is written.
fn assert_refused(tag: &str, extra: &str, message: &str) {
    let dir = TempDir::new(tag);
    let (cfg, out, o) = import_with(&dir, extra);
    o.assert_input_error(&[&format!("{}:5: {message}", cfg.display())]);
    assert!(!out.join("drive.toml").exists(), "nothing is written on error");
}

#[test]
fn import_mqsim_refuses_an_unknown_tag_naming_file_line_and_tag() {
    assert_refused("mqimport-unknown", "<GC_Magic_Knob>3</GC_Magic_Knob>", "<GC_Magic_Knob>: unknown tag");
}

#[test]
fn import_mqsim_refuses_a_value_it_cannot_express() {
    let extra = "<GC_Block_Selection_Policy>RANDOM_PP</GC_Block_Selection_Policy>";
    assert_refused("mqimport-value", extra, "<GC_Block_Selection_Policy>: victim policy `RANDOM_PP`");
}

#[test]
fn import_mqsim_writes_a_drive_that_runs_as_mqsim_compat_with_the_xml_values() {
    let dir = TempDir::new("mqimport-ok");
    let (_, out, o) = import_with(&dir, "<Transaction_Scheduling_Policy>FLIN</Transaction_Scheduling_Policy>");
    o.assert_success();
    let text = std::fs::read_to_string(out.join("drive.toml")).expect("drive.toml written");
    assert!(text.contains("<Flash_Channel_Count>2</Flash_Channel_Count> (line 6): channels\nchannels = 2\n"), "{text}");
    assert!(text.contains("policy = \"flin\""), "{text}");
    let v = ssdlab(["validate".into(), "--config".into(), out.join("drive.toml").into_os_string()]);
    v.assert_success();
}
