//! `togyz-gen reblock`: WDL tables written again with another block size.

use std::path::PathBuf;
use std::time::Instant;
use togyz_gen::files::reblock::{reblock, ReblockError};

/// Arguments of `togyz-gen reblock`.
#[derive(clap::Args, Debug, Clone)]
pub struct ReblockArgs {
    /// The WDL tables to write again (`togyz-NN.tkb` files of `generate
    /// --wdl-from`); they are only read.
    #[arg(required = true)]
    pub tables: Vec<PathBuf>,
    /// Folder for the new tables, under the same names; a file already
    /// there is never overwritten.
    #[arg(long)]
    pub out: PathBuf,
    /// Boards a WDL block in the new tables (the generator writes 65536).
    /// A probe decompresses a whole block, so smaller blocks answer a
    /// search's scattered probes faster, in larger files.
    #[arg(long, default_value_t = 4096)]
    pub block_boards: u32,
}

/// Runs `togyz-gen reblock`: one line a table written.
///
/// # Errors
///
/// [`ReblockError`] of the first table that fails (the tables before it
/// are kept); a folder that cannot be made.
pub fn run(args: &ReblockArgs) -> Result<(), ReblockError> {
    std::fs::create_dir_all(&args.out).map_err(|source| {
        togyz_gen::files::write::WriteError::Io {
            path: args.out.clone(),
            source,
        }
    })?;
    for src in &args.tables {
        let start = Instant::now();
        let before = std::fs::metadata(src).map(|m| m.len()).unwrap_or(0);
        let s = reblock(src, &args.out, args.block_boards)?;
        say!(
            "{} -> {}: {} boards a block, {} bytes ({:+.1} %), in {:.1} s",
            src.display(),
            s.path.display(),
            args.block_boards,
            s.bytes,
            (s.bytes as f64 / before.max(1) as f64 - 1.0) * 100.0,
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
