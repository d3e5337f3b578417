//! # togyz_tb._native
//!
//! The compiled half of the Python package `togyz_tb` (PyO3): the
//! `Tablebase` and `Position` classes and the exception classes. The
//! package's `__init__.py` re-exports them; `_native.pyi` types them.
//!
//! Probes run with the GIL released, so Python threads probe in parallel;
//! the batch calls answer a whole list of FENs in one release.

use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use togyz_answer::{Distance, Kind, MoveAnswer, SearchAnswer, TablesAnswer};
use togyz_tb::notation::{self, parse_fen, NotationError};
use togyz_tb::search::{Budget, Solver};
use togyz_tb::Wdl;
use togyz_tb::{Move, Position, Side};
use togyz_tb::{MoveValue, ProbeError, Tablebase, DEFAULT_CACHE_BYTES};

create_exception!(
    togyz_tb,
    TablebaseError,
    PyException,
    "Base class of every error togyz_tb raises."
);
create_exception!(
    togyz_tb,
    BadFenError,
    TablebaseError,
    "The FEN text cannot be read."
);
create_exception!(
    togyz_tb,
    IllegalMoveError,
    TablebaseError,
    "The move cannot be played in this position (or cannot be read)."
);
create_exception!(
    togyz_tb,
    MissingTableError,
    TablebaseError,
    "No open table holds the position's stone count."
);
create_exception!(
    togyz_tb,
    DamagedTableError,
    TablebaseError,
    "A table file is damaged, or the tables contradict each other."
);
create_exception!(
    togyz_tb,
    TableIoError,
    TablebaseError,
    "A tables folder or file could not be read."
);

/// Why a call failed, before it becomes a Python exception (built without
/// the GIL).
enum Failure {
    BadFen(String),
    Illegal(String),
    /// A probe error, with the index of the FEN in a batch.
    Probe(ProbeError, Option<usize>),
}

impl From<ProbeError> for Failure {
    fn from(e: ProbeError) -> Failure {
        Failure::Probe(e, None)
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::BadFen(m) => BadFenError::new_err(m),
            Failure::Illegal(m) => IllegalMoveError::new_err(m),
            Failure::Probe(e, at) => {
                let m = match at {
                    Some(i) => format!("fens[{i}]: {e}"),
                    None => e.to_string(),
                };
                match Kind::of_probe(&e) {
                    Kind::NoTable => MissingTableError::new_err(m),
                    Kind::UnreadableTable => TableIoError::new_err(m),
                    _ => DamagedTableError::new_err(m),
                }
            }
        }
    }
}

fn fen_failure(e: NotationError) -> Failure {
    Failure::BadFen(e.to_string())
}

/// The position of an argument that is a FEN or a [`PyPosition`]. Checks
/// the type first: a failed extraction would build a Python exception,
/// which costs more than a probe.
fn position_of(obj: &Bound<'_, PyAny>) -> PyResult<Position> {
    if let Ok(fen) = obj.cast::<PyString>() {
        return Ok(parse_fen(fen.to_str()?).map_err(fen_failure)?);
    }
    if let Ok(p) = obj.cast::<PyPosition>() {
        return Ok(p.get().pos);
    }
    Err(PyTypeError::new_err(format!(
        "expected a FEN (str) or a Position, got {}",
        obj.get_type().name()?
    )))
}

/// A move given as a hole number (1..9) or in notation (`"91"`, `"i1i2"`).
#[derive(FromPyObject)]
enum MoveArg {
    Hole(i64),
    Text(String),
}

impl MoveArg {
    /// The move it names, legal in `pos`.
    fn resolve(&self, pos: &Position) -> Result<Move, Failure> {
        let mv = match self {
            MoveArg::Hole(h) => u8::try_from(*h)
                .ok()
                .and_then(Move::new)
                .ok_or_else(|| Failure::Illegal(format!("hole {h}: holes are numbered 1..9")))?,
            MoveArg::Text(t) => {
                return notation::parse_move(pos, t).map_err(|e| Failure::Illegal(e.to_string()))
            }
        };
        if let Err(e) = pos.after(mv) {
            return Err(Failure::Illegal(format!("{e} in {}", pos.fen())));
        }
        Ok(mv)
    }
}

/// The legal moves of `pos` as hole numbers 1..9.
fn holes(pos: &Position) -> Vec<u32> {
    pos.legal_moves().map(|m| m.hole() as u32).collect()
}

fn wdl_int(w: Wdl) -> i8 {
    match w {
        Wdl::Loss => -1,
        Wdl::Draw => 0,
        Wdl::Win => 1,
    }
}

/// Notation of a legal move; the moves come from the position itself, so
/// a failure is a bug.
fn written(r: Result<String, NotationError>) -> Result<String, Failure> {
    r.map_err(|e| Failure::Illegal(format!("internal error: {e}")))
}

/// The position after a legal move; an illegal one is a bug.
fn after(pos: &Position, mv: Move) -> Result<Position, Failure> {
    pos.after(mv)
        .map_err(|e| Failure::Illegal(format!("internal error: {e}")))
}

/// The tables' answer for `pos`: [`TablesAnswer`], the shape of
/// `togyz-probe query --json`, with each move's hole number.
fn answer(tb: &Tablebase, pos: &Position) -> Result<TablesAnswer, Failure> {
    let (value, metric) = tb.value_with_metric(pos)?;
    let moves = tb.moves(pos)?;
    let line = tb.principal_variation(pos)?;
    Ok(TablesAnswer {
        moves: answer_moves(pos, &moves),
        ..TablesAnswer::new(pos, value, metric, &[], &line)
    })
}

/// The valued moves of `pos`, best first, as in [`answer`].
fn ranked(tb: &Tablebase, pos: &Position) -> Result<Vec<MoveAnswer>, Failure> {
    Ok(answer_moves(pos, &tb.moves(pos)?))
}

fn answer_moves(pos: &Position, moves: &[MoveValue]) -> Vec<MoveAnswer> {
    moves
        .iter()
        .map(|m| MoveAnswer {
            hole: Some(m.mv.hole()),
            ..MoveAnswer::new(pos, m)
        })
        .collect()
}

/// An answer as a Python dict, key for key as its JSON.
fn dict<'py>(py: Python<'py>, answer: &impl serde::Serialize) -> PyResult<Bound<'py, PyDict>> {
    Ok(pythonize::pythonize(py, answer)?.cast_into::<PyDict>()?)
}

/// Endgame tables opened from one or more folders, probed from any number
/// of threads.
#[pyclass(name = "Tablebase", module = "togyz_tb", frozen)]
struct PyTablebase {
    tb: Tablebase,
}

#[pymethods]
impl PyTablebase {
    /// Opens the `togyz-NN.tkb` tables in `paths` (a folder or a list of
    /// folders; the first folder holding a stone count wins), with a cache
    /// of up to `cache_bytes` of decompressed blocks.
    #[new]
    #[pyo3(signature = (paths, cache_bytes = DEFAULT_CACHE_BYTES))]
    fn new(py: Python<'_>, paths: &Bound<'_, PyAny>, cache_bytes: u64) -> PyResult<Self> {
        let dirs: Vec<PathBuf> = match paths.extract::<PathBuf>() {
            Ok(one) => vec![one],
            Err(_) => paths.extract()?,
        };
        let tb = py
            .detach(|| Tablebase::open_with_cache(&dirs, cache_bytes))
            .map_err(Failure::from)?;
        Ok(PyTablebase { tb })
    }

    /// The largest N such that tables for 1..N stones are all open.
    #[getter]
    fn complete_up_to(&self) -> u32 {
        self.tb.complete_up_to()
    }

    /// The full answer for a position, the dict `togyz-probe query --json`
    /// prints: fen, stones, side, result, dtm, source ("tables"), moves
    /// (best first) and pv.
    fn probe<'py>(&self, py: Python<'py>, fen: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let pos = position_of(fen)?;
        let a = py.detach(|| answer(&self.tb, &pos))?;
        dict(py, &a)
    }

    /// 1 (win), 0 (draw) or -1 (loss) for the side to move.
    fn wdl(&self, py: Python<'_>, fen: &Bound<'_, PyAny>) -> PyResult<i8> {
        let pos = position_of(fen)?;
        let w = py.detach(|| Ok::<_, Failure>(self.tb.wdl(&pos)?))?;
        Ok(wdl_int(w))
    }

    /// `(result, dtm)`: "win", "draw" or "loss" and plies to the end (None
    /// for a draw, and where the table holds DTC: `probe(fen)["dtc"]` has
    /// the distance to conversion).
    fn value(
        &self,
        py: Python<'_>,
        fen: &Bound<'_, PyAny>,
    ) -> PyResult<(&'static str, Option<u32>)> {
        let pos = position_of(fen)?;
        let (v, metric) = py.detach(|| Ok::<_, Failure>(self.tb.value_with_metric(&pos)?))?;
        Ok((v.wdl().name(), Distance::of(v, metric).dtm))
    }

    /// Every legal move with its value for the mover, best first, as in
    /// `probe(fen)["moves"]`.
    fn moves<'py>(&self, py: Python<'py>, fen: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let pos = position_of(fen)?;
        let ms = py.detach(|| ranked(&self.tb, &pos))?;
        let dicts = ms
            .iter()
            .map(|m| dict(py, m))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, dicts)
    }

    /// The best move, as in `moves(fen)[0]`; None when the game is over.
    fn best_move<'py>(
        &self,
        py: Python<'py>,
        fen: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let pos = position_of(fen)?;
        let ms = py.detach(|| ranked(&self.tb, &pos))?;
        ms.first().map(|m| dict(py, m)).transpose()
    }

    /// `wdl` for every FEN of a list, with the GIL released once. An
    /// unreadable FEN or missing table raises, naming its index.
    fn wdl_many(&self, py: Python<'_>, fens: Vec<String>) -> PyResult<Vec<i8>> {
        let out = py.detach(|| {
            fens.iter()
                .enumerate()
                .map(|(i, f)| {
                    let probe = || Ok(wdl_int(self.tb.wdl(&parse_fen(f).map_err(fen_failure)?)?));
                    probe().map_err(|e| at_index(i, e))
                })
                .collect::<Result<Vec<_>, Failure>>()
        })?;
        Ok(out)
    }

    /// `probe` for every FEN of a list, with the GIL released once.
    fn probe_many<'py>(&self, py: Python<'py>, fens: Vec<String>) -> PyResult<Bound<'py, PyList>> {
        let answers = py.detach(|| {
            fens.iter()
                .enumerate()
                .map(|(i, f)| {
                    let probe = || answer(&self.tb, &parse_fen(f).map_err(fen_failure)?);
                    probe().map_err(|e| at_index(i, e))
                })
                .collect::<Result<Vec<_>, Failure>>()
        })?;
        let dicts = answers
            .iter()
            .map(|a| dict(py, a))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, dicts)
    }

    /// Proves the result for the side to move: by the tables when they
    /// cover the position, else by proof search whose leaves are table
    /// probes, within `seconds` of wall time (and `nodes` per question when
    /// given; `seconds=0` lifts the time limit, which then needs `nodes`).
    /// The dict is `togyz-probe query --json`'s above the tables, without
    /// the moves: fen, stones, side, result ("win", "draw", "loss", or
    /// "unknown" when not proven), source ("rules", "tables" or "search"),
    /// proven (for "unknown" only: what was shown, {"lower", "upper"}),
    /// best (a move achieving the proven result, or None) and search
    /// (nodes, depth, graph_positions, graph_closed, seconds,
    /// table_stones). The GIL is released while it searches; it takes up
    /// to `memory` bytes (at least 1,000,000; by default about 387 MB)
    /// while a hard search fills its tables. A node limit bounds df-pn and
    /// the iterative deepening, not the retrograde solve beside it (up to 2^18 positions, about
    /// 0.1 s when they do not close).
    #[pyo3(signature = (fen, seconds = 5.0, nodes = None, memory = None))]
    fn solve<'py>(
        &self,
        py: Python<'py>,
        fen: &Bound<'_, PyAny>,
        seconds: f64,
        nodes: Option<u64>,
        memory: Option<u64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let pos = position_of(fen)?;
        let budget = limits(seconds, nodes, memory)?;
        let r = py.detach(|| Ok::<_, Failure>(self.tb.solve(&pos, budget)?))?;
        dict(py, &SearchAnswer::new(&pos, &r))
    }

    fn __repr__(&self) -> String {
        let stones: Vec<u32> = self.tb.stones().collect();
        format!("Tablebase(stones={stones:?})")
    }
}

/// The budget of a `solve`: its limits, checked.
fn limits(seconds: f64, nodes: Option<u64>, memory: Option<u64>) -> PyResult<Budget> {
    let budget = Budget::limits(seconds, nodes.unwrap_or(0));
    let budget = match memory {
        Some(bytes) => budget.and_then(|b| b.with_memory(bytes)),
        None => budget,
    };
    budget.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A proof searcher that keeps its tables from one `solve` to the next, so
/// the positions of one game help each other (walking a game backwards,
/// each search starts from what the later ones proved).
#[pyclass(name = "Solver", module = "togyz_tb")]
struct PySolver {
    // Declared before `_tb`, so dropped before the tablebase it borrows.
    solver: Solver<'static>,
    /// Keeps the tablebase `solver` borrows alive.
    _tb: Py<PyTablebase>,
}

#[pymethods]
impl PySolver {
    /// A solver over `tb` with a time limit for each `solve` (`seconds=0`
    /// lifts it, which then needs `nodes`) and its tables bounded to
    /// `memory` bytes (at least 1,000,000; by default about 387 MB), kept
    /// until the solver is dropped.
    #[new]
    #[pyo3(signature = (tb, seconds = 5.0, nodes = None, memory = None))]
    fn new(
        tb: Py<PyTablebase>,
        seconds: f64,
        nodes: Option<u64>,
        memory: Option<u64>,
    ) -> PyResult<Self> {
        let budget = limits(seconds, nodes, memory)?;
        let borrowed: *const Tablebase = &tb.get().tb;
        // SAFETY: `PyTablebase` is a frozen class, so the Python object
        // holding it never moves or changes its `tb` while a reference to
        // the object lives; `_tb` is that reference and is dropped after
        // `solver`, the only holder of the extended borrow.
        let tablebase: &'static Tablebase = unsafe { &*borrowed };
        Ok(PySolver {
            solver: Solver::new(tablebase, budget),
            _tb: tb,
        })
    }

    /// As `Tablebase.solve`, with this solver's limits and tables. The GIL
    /// is released while it searches; one thread at a time may use a
    /// solver.
    fn solve<'py>(
        &mut self,
        py: Python<'py>,
        fen: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let pos = position_of(fen)?;
        let solver = &mut self.solver;
        let r = py.detach(|| Ok::<_, Failure>(solver.solve(&pos)?))?;
        dict(py, &SearchAnswer::new(&pos, &r))
    }
}

/// A failure of the `i`-th FEN of a batch: the same class, the index in
/// the message.
fn at_index(i: usize, f: Failure) -> Failure {
    match f {
        Failure::BadFen(m) => Failure::BadFen(format!("fens[{i}]: {m}")),
        Failure::Illegal(m) => Failure::Illegal(format!("fens[{i}]: {m}")),
        Failure::Probe(e, at) => Failure::Probe(e, at.or(Some(i))),
    }
}

/// A Togyz Kumalak position (immutable): board, kazans, tuzdyks and side
/// to move.
#[pyclass(
    name = "Position",
    module = "togyz_tb",
    frozen,
    eq,
    hash,
    from_py_object
)]
#[derive(Clone, PartialEq, Eq, Hash)]
struct PyPosition {
    pos: Position,
}

#[pymethods]
impl PyPosition {
    /// Reads a PlayStrategy FEN, e.g. `"7,2S,1/8,2S 79 79 S 1"`.
    #[staticmethod]
    fn from_fen(fen: &str) -> PyResult<Self> {
        let pos = parse_fen(fen).map_err(fen_failure)?;
        Ok(PyPosition { pos })
    }

    /// The starting position.
    #[staticmethod]
    fn start() -> Self {
        PyPosition {
            pos: Position::start(),
        }
    }

    /// The position as a PlayStrategy FEN.
    fn fen(&self) -> String {
        self.pos.fen()
    }

    /// The legal moves as hole numbers 1..9 of the side to move's row
    /// (empty when the game is over).
    fn legal_moves(&self) -> Vec<u32> {
        holes(&self.pos)
    }

    /// The position after a move: a hole number 1..9 or a move in
    /// traditional (`"91"`) or UCI (`"i1i2"`) notation. Raises
    /// IllegalMoveError if it cannot be played.
    fn play(&self, mv: MoveArg) -> PyResult<Self> {
        let m = mv.resolve(&self.pos)?;
        Ok(PyPosition {
            pos: after(&self.pos, m)?,
        })
    }

    /// The move in traditional notation (`"91"`, `"36x"`).
    fn traditional(&self, mv: MoveArg) -> PyResult<String> {
        let m = mv.resolve(&self.pos)?;
        Ok(written(notation::traditional(&self.pos, m))?)
    }

    /// `"S"` (South, moves first) or `"N"`.
    #[getter]
    fn side_to_move(&self) -> String {
        self.pos.side_to_move().letter().to_string()
    }

    /// Stones in the 18 holes: South's holes 1..9, then North's holes 1..9.
    #[getter]
    fn holes(&self) -> Vec<u32> {
        self.pos.holes().iter().map(|&h| h as u32).collect()
    }

    /// `(south, north)` kazans.
    #[getter]
    fn kazans(&self) -> (u8, u8) {
        let [s, n] = self.pos.kazans();
        (s, n)
    }

    /// `(south, north)` tuzdyks as hole numbers 1..8 in the opponent's row,
    /// None for none.
    #[getter]
    fn tuzdyks(&self) -> (Option<u8>, Option<u8>) {
        let t = |side| self.pos.tuzdyk(side);
        (t(Side::South), t(Side::North))
    }

    /// Stones on the board (the table that holds this position).
    #[getter]
    fn stones(&self) -> u32 {
        self.pos.stones_on_board()
    }

    /// Whether the game is over.
    fn is_game_over(&self) -> bool {
        self.pos.outcome().is_some()
    }

    /// The result of a finished game in words, None while it goes on.
    fn result(&self) -> Option<String> {
        notation::result_text(&self.pos)
    }

    fn __str__(&self) -> String {
        self.pos.fen()
    }

    fn __repr__(&self) -> String {
        format!("Position.from_fen({:?})", self.pos.fen())
    }
}

/// The module `togyz_tb._native`.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<PyTablebase>()?;
    m.add_class::<PyPosition>()?;
    m.add_class::<PySolver>()?;
    m.add("TablebaseError", py.get_type::<TablebaseError>())?;
    m.add("BadFenError", py.get_type::<BadFenError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("MissingTableError", py.get_type::<MissingTableError>())?;
    m.add("DamagedTableError", py.get_type::<DamagedTableError>())?;
    m.add("TableIoError", py.get_type::<TableIoError>())?;
    m.add("DEFAULT_CACHE_BYTES", DEFAULT_CACHE_BYTES)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
