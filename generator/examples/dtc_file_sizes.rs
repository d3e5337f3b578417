//! The sections of written DTC tables, and what other block sizes and zstd
//! levels would make of the same bytes:
//! `cargo run --release -p togyz-gen --example dtc_file_sizes -- <tables> <n>...`.
//!
//! For each table: the WDL and DTC sections' bits a position as written,
//! then (unless `DTC_SIZES_ONLY_FILE` is set) for each block size, layout
//! and zstd level the bits, the compression time (all threads) and the mean
//! time to decompress one block (one thread).
use rayon::prelude::*;
use std::time::Instant;
use togyz_gen::files::decode::DecodeAll;
use togyz_tb::raw::format::{file_name, TableFile};
use togyz_tb::Value;

/// Compressed bytes, seconds to compress, mean microseconds to decompress
/// a block.
fn measure(data: &[u8], block: usize, level: i32) -> (u64, f64, f64) {
    let t = Instant::now();
    let frames: Vec<Vec<u8>> = data
        .par_chunks(block)
        .map(|c| zstd::bulk::compress(c, level).expect("zstd"))
        .collect();
    let secs = t.elapsed().as_secs_f64();
    let bytes = frames.iter().map(|f| f.len() as u64).sum();
    let sample: Vec<&Vec<u8>> = frames.iter().step_by((frames.len() / 64).max(1)).collect();
    let t = Instant::now();
    for f in &sample {
        zstd::bulk::decompress(f, block).expect("zstd");
    }
    let micros = t.elapsed().as_secs_f64() * 1e6 / sample.len() as f64;
    (bytes, secs, micros)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(args.get(1).expect("usage: dtc_file_sizes <tables> <n>..."));
    for n in args[2..]
        .iter()
        .map(|a| a.parse::<u32>().expect("a stone count"))
    {
        let file = TableFile::open(dir.join(file_name(n))).expect("open");
        let h = file.header().clone();
        let positions = h.positions as f64;
        let bits = |bytes: u64| bytes as f64 * 8.0 / positions;
        println!(
            "n={n} ({}): file {:.4} bits, WDL section {:.4}, distance section {:.4}",
            h.metric,
            bits(h.file_length),
            bits(h.distance_data_offset - h.wdl_data_offset),
            bits(h.wdl_index_offset - h.distance_data_offset)
        );
        if std::env::var_os("DTC_SIZES_ONLY_FILE").is_some() {
            continue;
        }
        let values = file.decode_all().expect("decode");
        let k = n as usize + 1;
        let splits: Vec<u8> = values
            .chunks(k)
            .map(|b| {
                b.iter()
                    .position(|&v| Value::unpack(v) == Value::Draw)
                    .expect("one draw") as u8
            })
            .collect();
        let dtc: Vec<u8> = values
            .iter()
            .filter_map(|&v| Value::unpack(v).distance().map(|d| d.min(255) as u8))
            .collect();
        for block in [16384usize, 65536, 262144] {
            for level in [9, 15, 19] {
                let (bytes, secs, micros) = measure(&splits, block, level);
                println!(
                    "  WDL boards a block {block:>7}, level {level:>2}: {:.4} bits, {secs:6.1} s to compress, {micros:7.0} us a block to decompress",
                    bits(bytes)
                );
            }
        }
        // The DTC section as written (each block's wins, zeros in the
        // number of its losses: version 2), as version 1 wrote it (each
        // block's losses, then its wins) and as plain decisive entries,
        // for blocks of so many boards.
        for boards in [8192usize, 32768, 131072] {
            let per = boards * n as usize;
            let layouts: [Vec<u8>; 2] = [true, false].map(|wins_only| {
                dtc.chunks(per)
                    .zip(splits.chunks(boards))
                    .flat_map(|(d, s)| {
                        let (mut losses, mut wins) = (Vec::new(), Vec::new());
                        for (board, &s) in d.chunks(n as usize).zip(s) {
                            losses.extend_from_slice(&board[..s as usize]);
                            wins.extend_from_slice(&board[s as usize..]);
                        }
                        if wins_only {
                            wins.resize(wins.len() + losses.len(), 0);
                            wins
                        } else {
                            losses.extend(wins);
                            losses
                        }
                    })
                    .collect()
            });
            let [written, split] = &layouts;
            for (layout, data) in [
                ("wins, as written", written),
                ("losses, then wins", split),
                ("board by board", &dtc),
            ] {
                for level in [9, 15, 19] {
                    let (bytes, secs, micros) = measure(data, per, level);
                    println!(
                        "  DTC boards a block {boards:>7} ({layout}), level {level:>2}: {:.4} bits, {secs:6.1} s to compress, {micros:7.0} us a block to decompress",
                        bits(bytes)
                    );
                }
            }
        }
    }
}
