//! Why a position was not answered, as every front end classifies it.

use togyz_tb::notation::NotationError;
use togyz_tb::ProbeError;

/// What went wrong. The order is the order of the command line's exit
/// codes: 0 answered; 1 standard input could not be read or the output
/// written; 2 bad input (a FEN, a move, or the command line itself); 3 no
/// table covers the position; 4 a table is damaged; 5 a table or its
/// folder cannot be read (permissions, an I/O failure).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Standard input could not be read, or standard output written.
    Io,
    /// The FEN (or a line of standard input) is not a position.
    BadFen,
    /// A move is written in no notation that is read.
    BadMove,
    /// A well-written move that cannot be played there.
    IllegalMove,
    /// No table covers the position.
    NoTable,
    /// A table file is damaged, or the tables contradict themselves.
    DamagedTable,
    /// A table file or the tables folder cannot be read.
    UnreadableTable,
}

impl Kind {
    /// The command line's exit code.
    pub fn code(self) -> u8 {
        match self {
            Kind::Io => 1,
            Kind::BadFen | Kind::BadMove | Kind::IllegalMove => 2,
            Kind::NoTable => 3,
            Kind::DamagedTable => 4,
            Kind::UnreadableTable => 5,
        }
    }

    /// The name in JSON error objects.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Io => "io",
            Kind::BadFen => "bad_fen",
            Kind::BadMove => "bad_move",
            Kind::IllegalMove => "illegal_move",
            Kind::NoTable => "no_table",
            Kind::DamagedTable => "damaged_table",
            Kind::UnreadableTable => "unreadable_table",
        }
    }

    /// The kind of a probe error: a missing table, or one that does not
    /// hold what was asked; a table or folder the
    /// operating system would not read ([`ProbeError::io_error`]); else a
    /// damaged table, or tables that contradict each other.
    pub fn of_probe(e: &ProbeError) -> Kind {
        match e {
            // A table that holds less than was asked (no distances, or
            // only the positions with a tuzdyk) does not cover it either.
            ProbeError::MissingTable { .. } | ProbeError::NotHeld { .. } => Kind::NoTable,
            e if e.io_error().is_some() => Kind::UnreadableTable,
            _ => Kind::DamagedTable,
        }
    }

    /// The kind of a FEN or move that could not be read or played.
    pub fn of_notation(e: &NotationError) -> Kind {
        match e {
            NotationError::MalformedMove { .. } => Kind::BadMove,
            NotationError::IllegalMove { .. } => Kind::IllegalMove,
            _ => Kind::BadFen,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;
    use std::sync::Arc;

    #[test]
    fn probe_errors_are_classified_by_what_can_be_done() {
        let missing = ProbeError::MissingTable { stones: 9 };
        assert_eq!(Kind::of_probe(&missing), Kind::NoTable);
        let not_held = ProbeError::NotHeld {
            stones: 15,
            contents: togyz_tb::Contents::Wdl,
        };
        assert_eq!(Kind::of_probe(&not_held), Kind::NoTable);
        let folder = ProbeError::Directory {
            path: "t".into(),
            source: Arc::new(io::Error::from(io::ErrorKind::PermissionDenied)),
        };
        assert_eq!(Kind::of_probe(&folder), Kind::UnreadableTable);
        let mixed = ProbeError::MixedMetrics {
            stones: 9,
            below: 8,
        };
        assert_eq!(Kind::of_probe(&mixed), Kind::DamagedTable);
        let wrong = ProbeError::Inconsistent { detail: "x".into() };
        assert_eq!(Kind::of_probe(&wrong), Kind::DamagedTable);
    }

    #[test]
    fn codes_follow_the_order_of_kinds() {
        let all = [
            Kind::Io,
            Kind::BadFen,
            Kind::BadMove,
            Kind::IllegalMove,
            Kind::NoTable,
            Kind::DamagedTable,
            Kind::UnreadableTable,
        ];
        assert!(all.windows(2).all(|w| w[0].code() <= w[1].code()));
        let names: std::collections::HashSet<_> = all.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), all.len());
    }
}
