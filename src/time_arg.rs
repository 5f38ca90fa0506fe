//! Times on the command line, read as clap parses the flags: epoch ms,
//! RFC 3339, or an age like `1h`.

/// The current time in epoch ms (0 on a clock before 1970).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The clock a command runs at: the time given, or the current time.
pub fn clock(given: Option<i64>) -> i64 {
    given.unwrap_or_else(now_ms)
}

/// Reads epoch ms, an RFC 3339 time, or an age such as `1h` (that long ago).
pub fn parse_time(text: &str) -> Result<i64, String> {
    if let Ok(ms) = text.parse::<i64>() {
        return Ok(ms);
    }
    let now = now_ms();
    let (num, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let unit_ms = match unit {
        "ms" => Some(1),
        "s" => Some(1000),
        "m" => Some(60_000),
        "h" => Some(3_600_000),
        "d" => Some(86_400_000),
        _ => None,
    };
    if let (Ok(n), Some(u)) = (num.parse::<i64>(), unit_ms) {
        return Ok(now - n * u);
    }
    parse_rfc3339(text).ok_or_else(|| {
        format!("cannot read {text:?} as epoch ms, an RFC 3339 time or an age like 1h")
    })
}

/// `YYYY-MM-DDTHH:MM:SS[.mmm](Z|±HH:MM)` to epoch ms.
fn parse_rfc3339(s: &str) -> Option<i64> {
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d, h, mi, se) = (
        num(0..4)?,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
        num(17..19)?,
    );
    let mut rest = s.get(19..)?;
    let mut ms = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits: String = frac.chars().take_while(char::is_ascii_digit).collect();
        ms = format!("{digits:0<3}").get(..3)?.parse().ok()?;
        rest = frac.get(digits.len()..)?;
    }
    let offset_min = match rest {
        "Z" | "z" => 0,
        tz => {
            let sign = if tz.starts_with('-') { -1 } else { 1 };
            sign * (tz.get(1..3)?.parse::<i64>().ok()? * 60 + tz.get(4..6)?.parse::<i64>().ok()?)
        }
    };
    let (y2, m2) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * m2 + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    Some(((days * 86_400 + h * 3600 + mi * 60 + se) - offset_min * 60) * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rfc3339_and_epoch_ms() {
        assert_eq!(parse_time("1700000000000").unwrap(), 1_700_000_000_000);
        assert_eq!(
            parse_time("2023-11-14T22:13:20Z").unwrap(),
            1_700_000_000_000
        );
        assert_eq!(
            parse_time("2023-11-14T23:13:20.5+01:00").unwrap(),
            1_700_000_000_500
        );
        assert!(parse_time("yesterday").is_err());
    }
}
