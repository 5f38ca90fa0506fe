//! Epoch milliseconds and durations for people.

/// `2023-11-14T22:13:20.000Z`.
pub fn utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        ms.rem_euclid(1000)
    )
}

/// `6d 23h`, `5m 3s`, `-2h 10m` (the two largest units).
pub fn duration(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    let units = [
        ("d", 86_400_000u64),
        ("h", 3_600_000),
        ("m", 60_000),
        ("s", 1000),
        ("ms", 1),
    ];
    let mut parts = Vec::new();
    let mut rest = ms;
    for (name, size) in units {
        if rest >= size || (parts.is_empty() && size == 1) {
            parts.push(format!("{}{name}", rest / size));
            rest %= size;
        }
        if parts.len() == 2 {
            break;
        }
    }
    format!("{sign}{}", parts.join(" "))
}

/// An age in words: `5m 3s old`, or `2h in the future` for a timestamp
/// past the clock it is measured against.
pub fn age(ms: i64) -> String {
    if ms < 0 {
        format!("{} in the future", duration(-ms))
    } else {
        format!("{} old", duration(ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_times_and_durations() {
        assert_eq!(utc(1_700_000_000_000), "2023-11-14T22:13:20.000Z");
        assert_eq!(utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(duration(604_800_000 - 3_600_000), "6d 23h");
        assert_eq!(duration(300_000), "5m");
        assert_eq!(duration(0), "0ms");
        assert_eq!(duration(-7_200_000), "-2h");
        assert_eq!(age(3_462), "3s 462ms old");
        assert_eq!(age(-3_462), "3s 462ms in the future");
    }
}
