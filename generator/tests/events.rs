//! The library's `generate` and `assemble` report each step through their
//! callback, and print nothing themselves.

use std::sync::Mutex;
use togyz_gen::event::{silent, Event};
use togyz_gen::run::assemble::assemble;
use togyz_gen::run::generate::generate;
use togyz_gen::run::options::GenerateOptions;
use togyz_tb::raw::format::file_name;

/// What a run reported, as owned text: the event's name and its level.
fn names(events: &Mutex<Vec<String>>) -> Vec<String> {
    events.lock().unwrap().clone()
}

#[test]
fn generate_reports_each_level_and_the_summaries_agree() {
    let out = tempfile::tempdir().unwrap();
    let events = Mutex::new(Vec::new());
    let assembled = Mutex::new(Vec::new());
    let report = |e: Event<'_>| {
        let name = format!("{e:?}");
        let name = name.split([' ', '{']).next().unwrap().to_string();
        if let Event::Assembled {
            stones,
            path,
            bytes,
            positions,
            ..
        } = e
        {
            assert_eq!(path, out.path().join(file_name(stones)));
            assembled.lock().unwrap().push((stones, bytes, positions));
        }
        events.lock().unwrap().push(name);
    };
    let mut options = GenerateOptions::new(3, out.path());
    options.threads = Some(2);
    let summaries = generate(&options, &report).unwrap();
    let events = names(&events);
    assert_eq!(events.first().map(String::as_str), Some("Planned"));
    for name in ["UnitsStarted", "UnitsEnded", "UnitsSolved"] {
        assert_eq!(
            events.iter().filter(|e| *e == name).count(),
            3,
            "{name} once per level: {events:?}"
        );
    }
    let from_events = assembled.into_inner().unwrap();
    let from_summaries: Vec<_> = summaries
        .iter()
        .map(|s| (s.stones, s.bytes, s.positions))
        .collect();
    assert_eq!(from_events, from_summaries);

    // Again: every table is kept, and said so.
    let kept = Mutex::new(Vec::new());
    let again = generate(&options, &|e| {
        if let Event::Kept { stones, .. } = e {
            kept.lock().unwrap().push(stones);
        }
    })
    .unwrap();
    assert!(again.iter().all(|s| s.reused));
    assert_eq!(kept.into_inner().unwrap(), [1, 2, 3]);
}

#[test]
fn assemble_reports_a_folder_with_nothing_to_do() {
    let out = tempfile::tempdir().unwrap();
    let nothing = Mutex::new(0);
    assemble(out.path(), &|e| {
        if let Event::NothingToAssemble { out: o } = e {
            assert_eq!(o, out.path());
            *nothing.lock().unwrap() += 1;
        }
    })
    .unwrap();
    assert_eq!(nothing.into_inner().unwrap(), 1);
    let file = out.path().join("not-a-folder");
    std::fs::write(&file, b"").unwrap();
    assert!(assemble(&file, &silent).is_err());
}
