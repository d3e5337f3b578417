//! `togyz-gen verify` on small tables: passes on freshly written ones,
//! catches a consistently rewritten wrong entry (printing its FEN) and a
//! corrupted byte, and refuses a folder with a gap.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use togyz_gen::below::DtmLevels;
use togyz_gen::event::{silent, Event};
use togyz_gen::files::folder::FolderError;
use togyz_gen::files::write::write_table;
use togyz_gen::solve::dtm::solve_all;
use togyz_gen::verify::{self, VerifyError, VerifyOptions};
use togyz_tb::notation::parse_fen;
use togyz_tb::raw::format::{file_name, HEADER_LEN};
use togyz_tb::raw::index::Layout;
use togyz_tb::raw::index::Slot;
use togyz_tb::Metric;
use togyz_tb::TableError;
use togyz_tb::Value;

const MAX: u32 = 4;

fn levels() -> &'static DtmLevels {
    static L: OnceLock<DtmLevels> = OnceLock::new();
    L.get_or_init(|| solve_all(MAX).expect("levels solve"))
}

/// Writes the solver's tables 1..=max into `dir`.
fn write_all(dir: &Path, max: u32) {
    for n in 1..=max {
        write_table(dir, Metric::Dtm, n, &levels().table(n)).expect("table written");
    }
}

fn options(dir: &Path) -> VerifyOptions {
    VerifyOptions {
        hold_whole: 0,
        ..VerifyOptions::new(dir)
    }
}

#[test]
fn fresh_tables_verify() {
    let dir = tempfile::tempdir().unwrap();
    write_all(dir.path(), MAX);
    let reports = verify::verify_dir(dir.path()).expect("fresh tables are consistent");
    assert_eq!(reports.len(), MAX as usize);
    for (r, n) in reports.iter().zip(1..) {
        assert_eq!(r.stones, n);
        assert_eq!(r.positions, Layout::new(n).positions());
    }
    // The whole run reports each level once, as it returns it.
    let verified_events = std::sync::Mutex::new(Vec::new());
    let run = verify::verify(&options(dir.path()), &|e| {
        if let Event::Verified {
            stones,
            positions,
            path,
            ..
        } = e
        {
            assert_eq!(path, dir.path().join(file_name(stones)));
            verified_events.lock().unwrap().push((stones, positions));
        }
    })
    .expect("run passes too");
    let from_run: Vec<_> = run.levels.iter().map(|r| (r.stones, r.positions)).collect();
    assert_eq!(verified_events.into_inner().unwrap(), from_run);
    assert_eq!(from_run.len(), MAX as usize);
    // The smaller levels read unit by unit from their files instead.
    let read = verify::verify_dir_holding(dir.path(), 0, &silent)
        .expect("fresh tables are consistent, read from files");
    assert_eq!(read.len(), MAX as usize);
}

#[test]
fn a_consistently_rewritten_wrong_entry_is_caught() {
    let n = MAX;
    let mut values = levels().table(n).to_vec();
    // The first win in 3 or more becomes a win 2 plies slower: the result
    // (and so the file's monotone WDL section) is unchanged, the checksums
    // are fine, only the successors can tell.
    let (index, d) = values
        .iter()
        .enumerate()
        .find_map(|(i, &v)| match Value::unpack(v) {
            Value::Win(d) if d >= 3 => Some((i, d)),
            _ => None,
        })
        .expect("the 4-stone table has a win in 3 or more");
    values[index] = Value::Win(d + 2).pack().unwrap();
    let altered = Layout::new(n).slot(index as u64).position();

    let dir = tempfile::tempdir().unwrap();
    write_all(dir.path(), n - 1);
    write_table(dir.path(), Metric::Dtm, n, &values).unwrap();

    let from_files = verify::verify_dir_holding(dir.path(), 0, &silent).unwrap_err();
    assert!(
        matches!(from_files, VerifyError::Inconsistent { stones, .. } if stones == n),
        "{from_files}"
    );
    let err = verify::verify_dir(dir.path()).unwrap_err();
    let VerifyError::Inconsistent {
        stones,
        fen,
        stored,
        expected,
        ..
    } = &err
    else {
        panic!("expected an inconsistency, got {err}");
    };
    assert_eq!(*stones, n);
    assert!(err.to_string().contains(fen.as_str()));
    // The first inconsistent entry is the altered one, or a position with a
    // move into it (whose value the alteration also broke).
    let pos = parse_fen(fen).unwrap();
    let target = Slot::of(&altered);
    if Slot::of(&pos) == target {
        assert_eq!((*stored, *expected), (Value::Win(d + 2), Value::Win(d)));
    } else {
        assert!(
            pos.legal_moves()
                .any(|mv| Slot::of(&pos.after(mv).unwrap()) == target),
            "{fen} is neither the altered position {} nor a predecessor",
            altered.fen()
        );
    }

    // The command exits non-zero and prints the FEN.
    let out = Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args(["verify", "--quiet", "--tables"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(fen.as_str()), "stderr: {stderr}");
    assert!(
        stderr.starts_with("error: inconsistent entry"),
        "stderr: {stderr}"
    );
}

/// In passes over the levels below (no level held whole, a memory bound
/// that fits no unit beside its exits: one level or so a pass), fresh
/// tables pass, and an entry rewritten slower or faster is caught and
/// named as the check with every exit at once names it.
#[test]
fn a_check_in_passes_passes_and_catches_what_the_whole_check_does() {
    let dir = tempfile::tempdir().unwrap();
    write_all(dir.path(), MAX);
    let passes = verify::verify_dir_within(dir.path(), 0, Some(1), &silent).unwrap();
    assert_eq!(passes.len(), MAX as usize);
    let n = MAX;
    for faster in [false, true] {
        let mut values = levels().table(n).to_vec();
        let (index, d) = values
            .iter()
            .enumerate()
            .find_map(|(i, &v)| match Value::unpack(v) {
                Value::Win(d) if d >= 3 => Some((i, d)),
                _ => None,
            })
            .unwrap();
        let d = if faster { d - 2 } else { d + 2 };
        values[index] = Value::Win(d).pack().unwrap();
        let dir = tempfile::tempdir().unwrap();
        write_all(dir.path(), n - 1);
        write_table(dir.path(), Metric::Dtm, n, &values).unwrap();
        let whole = verify::verify_dir_holding(dir.path(), 0, &silent).unwrap_err();
        let passes = verify::verify_dir_within(dir.path(), 0, Some(1), &silent).unwrap_err();
        assert!(
            matches!(whole, VerifyError::Inconsistent { .. }),
            "faster {faster}: {whole}"
        );
        assert_eq!(passes.to_string(), whole.to_string(), "faster {faster}");
        // The command line, bounded.
        let out = Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
            .args([
                "verify",
                "--quiet",
                "--hold-whole",
                "0",
                "--max-memory",
                "1",
            ])
            .arg("--tables")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.trim(), format!("error: {whole}"), "faster {faster}");
    }
}

#[test]
fn a_corrupted_byte_is_caught_by_the_checksums() {
    let dir = tempfile::tempdir().unwrap();
    write_all(dir.path(), 3);
    let path = dir.path().join(file_name(3));
    let mut bytes = std::fs::read(&path).unwrap();
    // A byte of the first block's data, just after the header.
    bytes[HEADER_LEN + 5] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let err = verify::verify_dir(dir.path()).unwrap_err();
    assert!(
        matches!(
            err,
            VerifyError::Table(TableError::FileChecksum { .. } | TableError::BlockChecksum { .. })
        ),
        "{err}"
    );
    assert!(err.to_string().contains("togyz-03.tkb"), "{err}");
}

#[test]
fn gaps_and_empty_folders_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let err = verify::verify_dir(dir.path()).unwrap_err();
    assert!(
        matches!(err, VerifyError::Folder(FolderError::NoTables { .. })),
        "{err}"
    );

    write_all(dir.path(), 3);
    std::fs::remove_file(dir.path().join(file_name(2))).unwrap();
    let err = verify::verify_dir(dir.path()).unwrap_err();
    assert!(
        matches!(&err, VerifyError::Folder(FolderError::MissingTable { path, max: 3 }) if path.ends_with("togyz-02.tkb")),
        "{err}"
    );

    let err = verify::verify_dir(&dir.path().join("nowhere")).unwrap_err();
    assert!(
        matches!(err, VerifyError::Folder(FolderError::Directory { .. })),
        "{err}"
    );
}

#[test]
fn the_tables_folder_comes_from_togyz_tables_when_not_given() {
    let dir = tempfile::tempdir().unwrap();
    write_all(dir.path(), 2);
    let elsewhere = tempfile::tempdir().unwrap();
    let run = |args: &[&str], env: Option<&Path>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_togyz-gen"));
        cmd.arg("verify")
            .arg("--quiet")
            .args(args)
            .current_dir(elsewhere.path());
        match env {
            Some(d) => cmd.env("TOGYZ_TABLES", d),
            None => cmd.env_remove("TOGYZ_TABLES"),
        };
        cmd.output().unwrap()
    };
    let out = run(&[], Some(dir.path()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("verified 2 tables"));
    // --tables wins over the variable; without either, ./tables is used.
    let out = run(&["--tables", "nowhere"], Some(dir.path()));
    assert!(!out.status.success());
    let out = run(&[], None);
    assert!(String::from_utf8_lossy(&out.stderr).contains("tables"));
    assert!(!out.status.success());
    // --threads 0 is refused.
    let out = run(&["--threads", "0"], Some(dir.path()));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 1"));
}

/// `from` checks the levels from that many stones up and reads the
/// smaller ones as the levels below; a level it does not name is refused.
#[test]
fn from_checks_the_levels_above_it() {
    let dir = tempfile::tempdir().unwrap();
    write_all(dir.path(), MAX);
    for from in 1..=MAX {
        let opts = VerifyOptions {
            from,
            ..options(dir.path())
        };
        let got = verify::verify(&opts, &silent).unwrap();
        let stones: Vec<u32> = got.levels.iter().map(|r| r.stones).collect();
        assert_eq!(stones, (from..=MAX).collect::<Vec<_>>());
        assert_eq!(
            got.levels[0].positions,
            Layout::new(from).positions(),
            "{from}"
        );
    }
    for from in [0, MAX + 1] {
        let opts = VerifyOptions {
            from,
            ..options(dir.path())
        };
        let r = verify::verify(&opts, &silent);
        assert!(
            matches!(r, Err(VerifyError::NoLevelFrom { max: MAX, .. })),
            "{from}: {r:?}"
        );
    }
}

/// The header line of a verify journal for level `n`'s table in `dir`
/// (docs/generate.md, "Verification resumes").
fn journal_header(dir: &Path, n: u32) -> String {
    let file = togyz_tb::raw::format::TableFile::open(dir.join(file_name(n))).unwrap();
    let h = file.header();
    format!(
        "togyz-gen verify journal 1\ntable {} {} {:016x} {:016x}\n",
        h.stones, h.file_length, h.index_checksum, h.body_checksum
    )
}

/// Runs verify on `dir`; the error, and the units its journal gave it.
fn verify_resuming(dir: &Path) -> (Result<(), VerifyError>, Option<(usize, usize)>) {
    let resumed = std::sync::Mutex::new(None);
    let r = verify::verify(&options(dir), &|e| {
        if let Event::ChecksResumed {
            resumed: k, units, ..
        } = e
        {
            *resumed.lock().unwrap() = Some((k, units));
        }
    });
    (r.map(|_| ()), resumed.into_inner().unwrap())
}

/// A check stopped part way through a level resumes at the first unit it
/// had not finished, takes the others' censuses from the journal (so a
/// journal that misstates one fails the header's census, and is then
/// dropped), and removes the journal once the level passes.
#[test]
fn an_interrupted_check_resumes_from_its_journal() {
    let n = MAX;
    // The last win in 3 or more, made 2 plies slower: the check stops in
    // a late unit, the earlier ones recorded.
    let mut values = levels().table(n).to_vec();
    let (index, d) = (values.iter().enumerate().rev())
        .find_map(|(i, &v)| match Value::unpack(v) {
            Value::Win(d) if d >= 3 => Some((i, d)),
            _ => None,
        })
        .unwrap();
    values[index] = Value::Win(d + 2).pack().unwrap();
    let bad = tempfile::tempdir().unwrap();
    write_all(bad.path(), n - 1);
    write_table(bad.path(), Metric::Dtm, n, &values).unwrap();
    let journal = verify::journal_path(bad.path(), n);
    assert_eq!(journal, bad.path().join("togyz-04.verify"));

    let (first, resumed) = verify_resuming(bad.path());
    let first = first.unwrap_err();
    assert!(matches!(first, VerifyError::Inconsistent { .. }), "{first}");
    assert_eq!(resumed, None, "nothing to resume the first time");
    let text = std::fs::read_to_string(&journal).expect("the journal is kept");
    let header = journal_header(bad.path(), n);
    let units: Vec<&str> = text
        .strip_prefix(header.as_str())
        .unwrap()
        .lines()
        .collect();
    assert!(units.len() >= 2, "units before the bad one: {text}");
    // Levels below passed: their journals are gone.
    assert!(!verify::journal_path(bad.path(), n - 1).exists());

    // Again: the recorded units are skipped, the bad one found again.
    let (again, resumed) = verify_resuming(bad.path());
    assert_eq!(again.unwrap_err().to_string(), first.to_string());
    let (k, all) = resumed.expect("the journal's units are resumed");
    assert_eq!(k, units.len());
    assert!(k < all);
    let out = Command::new(env!("CARGO_BIN_EXE_togyz-gen"))
        .args(["verify", "--quiet", "--hold-whole", "0", "--tables"])
        .arg(bad.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(" 4 stones: {k} of {all} units already checked (")),
        "{stdout}"
    );

    // The same units of the sound table (the same entries): resumed, the
    // level passes, and its journal is removed.
    let good = tempfile::tempdir().unwrap();
    write_all(good.path(), n);
    let good_journal = verify::journal_path(good.path(), n);
    let lines = units.join("\n") + "\n";
    std::fs::write(&good_journal, journal_header(good.path(), n) + &lines).unwrap();
    let (ok, resumed) = verify_resuming(good.path());
    ok.unwrap();
    assert_eq!(resumed.map(|r| r.0), Some(k));
    assert!(!good_journal.exists());

    // A unit's census misstated: the header's census disagrees, and the
    // journal is dropped, so the next run checks every unit.
    let mut words: Vec<String> = units[0].split(' ').map(String::from).collect();
    words[2] = (words[2].parse::<u64>().unwrap() + 1).to_string();
    let lines = words.join(" ") + "\n";
    std::fs::write(&good_journal, journal_header(good.path(), n) + &lines).unwrap();
    let (wrong, resumed) = verify_resuming(good.path());
    let wrong = wrong.unwrap_err();
    assert!(
        matches!(wrong, VerifyError::HeaderCensus { field: "wins", .. }),
        "{wrong}"
    );
    assert_eq!(resumed.map(|r| r.0), Some(1));
    assert!(!good_journal.exists());
    let (ok, resumed) = verify_resuming(good.path());
    ok.unwrap();
    assert_eq!(resumed, None);

    // A journal of another table (the bad one's) is not read.
    std::fs::write(&good_journal, text).unwrap();
    let (ok, resumed) = verify_resuming(good.path());
    ok.unwrap();
    assert_eq!(resumed, None);
    assert!(!good_journal.exists());
}
