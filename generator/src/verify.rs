//! verify (being written).

/// Arguments of `togyz-gen verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {}

/// Errors of `togyz-gen verify`.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {}

/// Runs `togyz-gen verify`.
pub fn run(_args: &VerifyArgs) -> Result<(), VerifyError> {
    Ok(())
}
