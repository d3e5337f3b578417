//! The seeds of a unit cut into kazan parts, kept in its work folder
//! between its seeding and its solve ([`SeedFiles`]): the exits it reads
//! of the levels below are freed before its quiet-move graph is built.

use crate::files::folder::seed_file_path;
use crate::files::work::UnitFileError;
use crate::solve::error::SolveError;
use crate::solve::parts::{SeedKey, SeedStore};
use crate::solve::unit::UnitId;
use byteorder::{ByteOrder, LittleEndian as LE};
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// zstd level of seed files: written and read once, by the same process.
const SEED_LEVEL: i32 = 1;
/// Bytes of each file's write buffer.
const WRITE_BUFFER: usize = 1 << 20;

type Writer = zstd::stream::write::Encoder<'static, BufWriter<File>>;
type Reader = zstd::stream::read::Decoder<'static, BufReader<File>>;

/// The seeds of one unit, each key in its own file in the work folder
/// (`.unit-AA-BB.tkv.part-NAME.HOST.PID.tmp`, a temporary's name: a killed run's are
/// removed as stale when the level is next taken up), as little-endian
/// 32-bit words in one zstd frame with its checksum. A file goes once it
/// is read to its end, and every file when the store goes.
pub struct SeedFiles {
    dir: PathBuf,
    unit: UnitId,
    writers: HashMap<SeedKey, Writer>,
    readers: HashMap<SeedKey, Reader>,
    /// Every file made and not yet removed.
    files: Vec<PathBuf>,
    bytes: Vec<u8>,
    /// Why a seed could not be kept or read ([`SolveError::Part`] says
    /// only that).
    failed: Option<UnitFileError>,
}

impl SeedFiles {
    /// An empty store for `unit` in work folder `dir`.
    pub fn new(dir: &Path, unit: UnitId) -> SeedFiles {
        SeedFiles {
            dir: dir.to_path_buf(),
            unit,
            writers: HashMap::new(),
            readers: HashMap::new(),
            files: Vec::new(),
            bytes: Vec::new(),
            failed: None,
        }
    }

    /// Why a seed could not be kept or read back, once.
    pub fn failure(&mut self) -> Option<UnitFileError> {
        self.failed.take()
    }

    /// The files the store holds now.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(PathBuf::as_path)
    }

    fn path(&self, key: SeedKey) -> PathBuf {
        let name = match key {
            SeedKey::Carry(pass) => format!("carry-{pass}"),
            SeedKey::Part(mask) => format!("seed-{mask:x}"),
        };
        seed_file_path(&self.dir, self.unit, &name)
    }

    /// Keeps `e`, about the file of `key`, as the failure.
    fn fail(&mut self, key: SeedKey, source: io::Error) -> SolveError {
        self.failed = Some(UnitFileError::Io {
            path: self.path(key),
            source,
        });
        SolveError::Part
    }

    /// Keeps a damaged file of `key` as the failure.
    fn damaged(&mut self, key: SeedKey, reason: &str) -> SolveError {
        self.failed = Some(UnitFileError::Damaged {
            path: self.path(key),
            reason: reason.into(),
        });
        SolveError::Part
    }

    fn remove(&mut self, key: SeedKey) {
        let path = self.path(key);
        let _ = std::fs::remove_file(&path);
        self.files.retain(|p| *p != path);
    }
}

impl Drop for SeedFiles {
    fn drop(&mut self) {
        self.writers.clear();
        self.readers.clear();
        for path in &self.files {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl SeedStore for SeedFiles {
    fn create(&mut self, key: SeedKey) -> Result<(), SolveError> {
        self.readers.remove(&key);
        let path = self.path(key);
        let open = || -> io::Result<Writer> {
            let out = BufWriter::with_capacity(WRITE_BUFFER, File::create(&path)?);
            let mut encoder = zstd::stream::write::Encoder::new(out, SEED_LEVEL)?;
            encoder.include_checksum(true)?;
            Ok(encoder)
        };
        if !self.files.contains(&path) {
            self.files.push(path.clone());
        }
        match open() {
            Ok(w) => {
                self.writers.insert(key, w);
                Ok(())
            }
            Err(e) => Err(self.fail(key, e)),
        }
    }

    fn write(&mut self, key: SeedKey, words: &[u32]) -> Result<(), SolveError> {
        self.bytes.resize(words.len() * 4, 0);
        LE::write_u32_into(words, &mut self.bytes);
        let r = match self.writers.get_mut(&key) {
            Some(w) => w.write_all(&self.bytes),
            None => Err(io::Error::other("written before it was made")),
        };
        r.map_err(|e| self.fail(key, e))
    }

    fn finish(&mut self, key: SeedKey) -> Result<(), SolveError> {
        let r = match self.writers.remove(&key) {
            Some(w) => w.finish().and_then(|mut out| out.flush()),
            None => Err(io::Error::other("finished before it was made")),
        };
        r.map_err(|e| self.fail(key, e))
    }

    fn read(&mut self, key: SeedKey, words: &mut [u32], last: bool) -> Result<(), SolveError> {
        if !self.readers.contains_key(&key) {
            let path = self.path(key);
            let opened = File::open(&path).and_then(Reader::new);
            match opened {
                Ok(r) => self.readers.insert(key, r),
                Err(e) => return Err(self.fail(key, e)),
            };
        }
        let Some(reader) = self.readers.get_mut(&key) else {
            return Err(SolveError::Part);
        };
        // In slices of the buffer, so that a part's states (gigabytes)
        // never take a second copy.
        const SLICE: usize = 1 << 16;
        let mut at = 0;
        let mut failed = None;
        self.bytes.resize(SLICE * 4, 0);
        while at < words.len() {
            let len = (words.len() - at).min(SLICE);
            match reader.read_exact(&mut self.bytes[..len * 4]) {
                Ok(()) => LE::read_u32_into(&self.bytes[..len * 4], &mut words[at..at + len]),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
            at += len;
        }
        if let Some(e) = failed {
            return Err(if e.kind() == io::ErrorKind::UnexpectedEof {
                self.damaged(key, "fewer seeds than its unit")
            } else {
                self.fail(key, e)
            });
        }
        if last {
            let more = reader.read(&mut self.bytes[..1]);
            self.readers.remove(&key);
            match more {
                Ok(0) => self.remove(key),
                Ok(_) => return Err(self.damaged(key, "more seeds than its unit")),
                Err(e) => return Err(self.fail(key, e)),
            }
        }
        Ok(())
    }
}
