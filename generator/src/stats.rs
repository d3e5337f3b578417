//! stats (being written).

/// Arguments of `togyz-gen stats`.
#[derive(clap::Args, Debug)]
pub struct StatsArgs {}

/// Errors of `togyz-gen stats`.
#[derive(Debug, thiserror::Error)]
pub enum StatsError {}

/// Runs `togyz-gen stats`.
pub fn run(_args: &StatsArgs) -> Result<(), StatsError> {
    Ok(())
}
