//! Inputs the fuzz targets (fuzz/, README "Fuzzing") found wrongly
//! handled, each kept as a test with the input inline.

use togyz_tb::record::parse_records;
use togyz_tb::Side;

/// A FEN tag may separate its fields by more than one space (the FEN
/// parser allows it); who moves first must still be read from the fourth
/// field, or the move numbers of a game North starts are refused.
#[test]
fn a_fen_tag_with_a_doubled_space_still_names_the_first_mover() {
    let text = "[FEN \"7,2S,1/8,2S 79  79 N 1\"]\n\n1... 21 2. 23 *\n";
    let games = parse_records(text);
    assert_eq!(games.len(), 1);
    let game = games[0].as_ref().expect("the record reads");
    assert_eq!(game.first_mover(), Side::North);
    assert_eq!(game.start().unwrap().side_to_move(), Side::North);
    assert_eq!(game.moves.len(), 2);
}
