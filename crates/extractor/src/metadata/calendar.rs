//! The Gregorian calendar rule both date readers check against: feed dates (`feed.rs`) and
//! publication dates of pages (`dates.rs`).

/// Days in month `m` (1-12) of year `y`, or `None` for a number that is not a month.
pub(crate) fn days_in_month(y: u32, m: u32) -> Option<u32> {
    let leap = y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400));
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    days.get(m.checked_sub(1)? as usize).copied()
}

#[cfg(test)]
mod tests {
    use super::days_in_month;

    #[test]
    fn leap_years_and_bad_months() {
        assert_eq!(days_in_month(2024, 2), Some(29));
        assert_eq!(days_in_month(1900, 2), Some(28));
        assert_eq!(days_in_month(2000, 2), Some(29));
        assert_eq!(days_in_month(2023, 12), Some(31));
        assert_eq!(days_in_month(2023, 0), None);
        assert_eq!(days_in_month(2023, 13), None);
    }
}
