//! Which queue discipline a link runs, with its parameters (docs/SCENARIOS.md,
//! "Queue disciplines").

use super::codel::CodelParams;
use super::dual_pi2::DualPi2Params;
use super::fq_codel::FqCodelParams;
use super::limit::QueueLimit;
use super::pie::PieParams;

/// A link's queue discipline. The limit is the link's [`QueueLimit`] for all of them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Discipline {
    /// A FIFO that refuses what does not fit (the default).
    #[default]
    DropTail,
    /// RFC 8289.
    Codel(CodelParams),
    /// RFC 8290.
    FqCodel(FqCodelParams),
    /// RFC 8033.
    Pie(PieParams),
    /// RFC 9332.
    DualPi2(DualPi2Params),
}

impl Discipline {
    /// The names a scenario uses, in this order.
    pub const NAMES: [&'static str; 5] = ["drop-tail", "codel", "fq-codel", "pie", "dual-pi2"];

    /// The scenario name.
    pub const fn name(&self) -> &'static str {
        match self {
            Discipline::DropTail => "drop-tail",
            Discipline::Codel(_) => "codel",
            Discipline::FqCodel(_) => "fq-codel",
            Discipline::Pie(_) => "pie",
            Discipline::DualPi2(_) => "dual-pi2",
        }
    }

    /// The discipline named `name` with its default parameters.
    pub fn from_name(name: &str) -> Option<Discipline> {
        Some(match name {
            "drop-tail" => Discipline::DropTail,
            "codel" => Discipline::Codel(CodelParams::default()),
            "fq-codel" => Discipline::FqCodel(FqCodelParams::default()),
            "pie" => Discipline::Pie(PieParams::default()),
            "dual-pi2" => Discipline::DualPi2(DualPi2Params::default()),
            _ => return None,
        })
    }

    /// The limit a table without `limit` gets (Linux's defaults: codel and pie 1000
    /// packets, fq_codel 10 240, dualpi2 10 000; drop-tail has no default).
    pub fn default_limit(&self) -> Option<QueueLimit> {
        match self {
            Discipline::DropTail => None,
            Discipline::Codel(_) | Discipline::Pie(_) => Some(QueueLimit::Packets(1000)),
            Discipline::FqCodel(_) => Some(QueueLimit::Packets(10_240)),
            Discipline::DualPi2(_) => Some(QueueLimit::Packets(10_000)),
        }
    }

    /// Whether the discipline draws random numbers (from the link's own stream).
    pub fn is_random(&self) -> bool {
        matches!(
            self,
            Discipline::FqCodel(_) | Discipline::Pie(_) | Discipline::DualPi2(_)
        )
    }
}
