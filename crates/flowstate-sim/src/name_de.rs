//! Reading a name-valued scenario field (`direction`, `[measure] recorder_thread`,
//! `overrides.threshold`, ...) by the one name rule of [`flowstate_core::names`]: any
//! case, `_` or `-`. An unknown name is serde's `unknown variant` message, listing the
//! names.

use serde::de::{Deserialize, Deserializer, Error};

/// The item of `items` (each with its scenario name) that the string in `d` names;
/// `names` are the scenario names, for the error.
pub fn read_name<'de, D: Deserializer<'de>, T: Copy>(
    d: D,
    items: &[(T, &'static str)],
    names: &'static [&'static str],
) -> Result<T, D::Error> {
    let written = String::deserialize(d)?;
    flowstate_core::names::find_by_name(items.iter().copied(), |(_, name)| name, &written)
        .map(|(item, _)| item)
        .ok_or_else(|| D::Error::unknown_variant(&written, names))
}
