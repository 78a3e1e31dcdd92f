//! Sizes: Kubernetes quantities ("500Gi", "100G", "1.5Ti") and reserved space ("25%") turned
//! into exact byte counts with integer arithmetic, and bytes turned back into readable text.

use std::fmt;

/// A size in bytes, parsed from a Kubernetes quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    #[error("not a quantity")]
    Syntax,
    #[error("is not a whole number of bytes")]
    Fractional,
    #[error("is too large")]
    Overflow,
}

const SUFFIXES: &[(&str, u128)] = &[
    ("Ki", 1 << 10),
    ("Mi", 1 << 20),
    ("Gi", 1 << 30),
    ("Ti", 1 << 40),
    ("Pi", 1 << 50),
    ("Ei", 1 << 60),
    ("k", 1_000),
    ("M", 1_000_000),
    ("G", 1_000_000_000),
    ("T", 1_000_000_000_000),
    ("P", 1_000_000_000_000_000),
    ("E", 1_000_000_000_000_000_000),
];

/// A decimal number as an exact fraction `numerator / 10^scale`.
fn parse_decimal(s: &str) -> Result<(u128, u32), QuantityError> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
        return Err(QuantityError::Syntax);
    }
    if s.contains('.') && (frac.is_empty() || !frac.bytes().all(|b| b.is_ascii_digit())) {
        return Err(QuantityError::Syntax);
    }
    if int.len() + frac.len() > 30 {
        return Err(QuantityError::Overflow);
    }
    let digits: String = [int, frac].concat();
    let n = digits.parse::<u128>().map_err(|_| QuantityError::Overflow)?;
    Ok((n, frac.len() as u32))
}

impl Bytes {
    pub fn parse(s: &str) -> Result<Bytes, QuantityError> {
        let (number, factor) = SUFFIXES
            .iter()
            .find_map(|(suffix, f)| s.strip_suffix(suffix).map(|n| (n, *f)))
            .unwrap_or((s, 1));
        let (n, scale) = parse_decimal(number)?;
        let total = n.checked_mul(factor).ok_or(QuantityError::Overflow)?;
        let div = 10u128.pow(scale);
        if total % div != 0 {
            return Err(QuantityError::Fractional);
        }
        u64::try_from(total / div).map(Bytes).map_err(|_| QuantityError::Overflow)
    }

    pub const fn gib(n: u64) -> Bytes {
        Bytes(n << 30)
    }
}

/// Renders bytes the way a person writes them: the unit, binary or decimal, that divides the
/// size exactly and leaves the smallest number ("160Gi", "100G", "1536Mi", "12345").
impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = u128::from(self.0);
        let best = SUFFIXES
            .iter()
            .filter(|(_, factor)| n != 0 && n % factor == 0)
            .min_by_key(|(_, factor)| n / factor);
        match best {
            Some((suffix, factor)) => write!(f, "{}{}", n / factor, suffix),
            None => write!(f, "{n}"),
        }
    }
}

/// Reserved space on a disk: a share of its size or a fixed amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reserved {
    /// `numerator / 10^scale` percent.
    Percent {
        numerator: u128,
        scale: u32,
    },
    Bytes(Bytes),
}

impl Reserved {
    pub fn parse(s: &str) -> Result<Reserved, QuantityError> {
        match s.strip_suffix('%') {
            Some(p) => {
                let (numerator, scale) = parse_decimal(p)?;
                Ok(Reserved::Percent { numerator, scale })
            }
            None => Bytes::parse(s).map(Reserved::Bytes),
        }
    }

    /// The reserved bytes of a disk of `size`, rounded down to a whole byte.
    pub fn of(&self, size: Bytes) -> Bytes {
        match *self {
            Reserved::Bytes(b) => b,
            Reserved::Percent { numerator, scale } => {
                let denominator = 100u128 * 10u128.pow(scale);
                let r = u128::from(size.0) * numerator / denominator;
                Bytes(u64::try_from(r).unwrap_or(u64::MAX))
            }
        }
    }

    pub fn is_zero(&self) -> bool {
        match *self {
            Reserved::Bytes(b) => b.0 == 0,
            Reserved::Percent { numerator, .. } => numerator == 0,
        }
    }
}

impl fmt::Display for Reserved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reserved::Bytes(b) => write!(f, "{b}"),
            Reserved::Percent { numerator, scale } => {
                let div = 10u128.pow(scale);
                let (int, frac) = (numerator / div, numerator % div);
                if frac == 0 {
                    write!(f, "{int}%")
                } else {
                    let frac = format!("{frac:0width$}", width = scale as usize);
                    write!(f, "{int}.{}%", frac.trim_end_matches('0'))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_are_exact() {
        assert_eq!(Bytes::parse("160Gi"), Ok(Bytes(171_798_691_840)));
        assert_eq!(Bytes::parse("100G"), Ok(Bytes(100_000_000_000)));
        assert_eq!(Bytes::parse("1.5Ti"), Ok(Bytes(1_649_267_441_664)));
        assert_eq!(Bytes::parse("12345"), Ok(Bytes(12345)));
        assert_eq!(Bytes::parse("0.5"), Err(QuantityError::Fractional));
        assert_eq!(Bytes::parse("1e3"), Err(QuantityError::Syntax));
        assert_eq!(Bytes::parse("Gi"), Err(QuantityError::Syntax));
        assert_eq!(Bytes::parse("1."), Err(QuantityError::Syntax));
        assert_eq!(Bytes::parse("99999999999999999999Ei"), Err(QuantityError::Overflow));
        assert_eq!(Bytes::parse("16Ei"), Err(QuantityError::Overflow));
    }

    #[test]
    fn a_quarter_of_160gi_is_exact() {
        let r = Reserved::parse("25%").unwrap();
        assert_eq!(r.of(Bytes::parse("160Gi").unwrap()), Bytes(42_949_672_960));
        let r = Reserved::parse("12.5%").unwrap();
        assert_eq!(r.of(Bytes::gib(8)), Bytes::gib(1));
        assert_eq!(Reserved::parse("10Gi").unwrap().of(Bytes::gib(500)), Bytes::gib(10));
        // Rounds down to whole bytes.
        assert_eq!(Reserved::parse("33%").unwrap().of(Bytes(10)), Bytes(3));
    }

    #[test]
    fn display_is_readable_and_round_trips() {
        for s in ["160Gi", "100G", "1536Mi", "12345", "1Ti", "0"] {
            let b = Bytes::parse(s).unwrap();
            assert_eq!(b.to_string(), s);
        }
        assert_eq!(Reserved::parse("12.50%").unwrap().to_string(), "12.5%");
    }
}
