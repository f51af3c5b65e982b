//! Why a testbed run could not be made.

use flowstate_sim::SimError;

/// Why a testbed run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TestbedError {
    #[error("{0}")]
    Sim(#[from] SimError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Unsupported(String),
}
