//! Reading tables back into one- or two-byte cells, as `generate` (when it
//! resumes) and `verify` do.

use togyz_gen::files::decode::{load_level, DecodeAll};
use togyz_gen::files::write::write_table;
use togyz_gen::solve::cells::LevelValues;
use togyz_gen::solve::dtm::solve_all;
use togyz_tb::raw::format::{file_name, TableFile};
use togyz_tb::raw::index::Layout;
use togyz_tb::Metric;
use togyz_tb::Value;

#[test]
fn solved_tables_come_back_in_one_byte_cells_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let levels = solve_all(3).unwrap();
    for n in 1..=3 {
        write_table(dir.path(), Metric::Dtm, n, &levels.table(n)).unwrap();
        let file = TableFile::open(dir.path().join(file_name(n))).unwrap();
        assert!(file.fits_in_bytes());
        let loaded = load_level(&file).unwrap();
        assert!(matches!(loaded, LevelValues::Narrow(_)));
        assert_eq!(&loaded, levels.level(n));
        assert_eq!(loaded.widened().into_owned(), file.decode_all().unwrap());
    }
}

#[test]
fn long_distances_come_back_in_two_byte_cells() {
    let dir = tempfile::tempdir().unwrap();
    let positions = Layout::new(1).positions() as usize;
    let values = vec![Value::Win(300).pack().unwrap(); positions];
    write_table(dir.path(), Metric::Dtm, 1, &values).unwrap();
    let file = TableFile::open(dir.path().join(file_name(1))).unwrap();
    assert!(!file.fits_in_bytes());
    assert!(
        file.decode_all_narrow().is_err(),
        "a value over a byte is an error, not truncated"
    );
    assert_eq!(load_level(&file).unwrap(), LevelValues::Wide(values));
}
