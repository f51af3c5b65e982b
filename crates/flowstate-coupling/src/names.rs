//! The one rule by which every name a user writes is read: coupling mechanisms,
//! `coupling.groups` modes, flow kinds, GCC and SCTP presets, application sources,
//! trace formats. A name is compared after [`normalize_name`]: surrounding spaces
//! dropped, ASCII letters in lower case, `_` and a space read as `-`. So `"FSE_NG"`,
//! `"fse ng"` and `"FSE-NG"` are one name, as are `"TCP_CUBIC"` and `"tcp-cubic"`.
//! (docs/SCENARIOS.md, "Names".)

/// A name as compared: trimmed, lower case, `_` and spaces read as `-`.
pub fn normalize_name(name: &str) -> String {
    name.trim()
        .chars()
        .map(|c| match c {
            '_' | ' ' => '-',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// Whether `written` names `name` under the rule of [`normalize_name`].
pub fn same_name(written: &str, name: &str) -> bool {
    normalize_name(written) == normalize_name(name)
}

/// The item of `items` whose name `written` names, under the rule of
/// [`normalize_name`].
pub fn find_by_name<T: Copy>(
    items: impl IntoIterator<Item = T>,
    name_of: impl Fn(T) -> &'static str,
    written: &str,
) -> Option<T> {
    let key = normalize_name(written);
    items
        .into_iter()
        .find(|&item| normalize_name(name_of(item)) == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_separators_and_spaces_are_one_rule() {
        for written in ["fse-ng", "FSE-NG", "fse_ng", " Fse Ng ", "FSE_NG"] {
            assert_eq!(normalize_name(written), "fse-ng", "{written:?}");
            assert!(same_name(written, "fse-ng"));
        }
        assert!(!same_name("fseng", "fse-ng"));
        let found = find_by_name(["static", "sbd"], |n| n, "SBD");
        assert_eq!(found, Some("sbd"));
        assert_eq!(find_by_name(["static", "sbd"], |n| n, "sbdx"), None);
    }
}
