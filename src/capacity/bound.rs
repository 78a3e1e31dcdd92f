//! The two numbers every figure comes from, over the capacities of failure domains (nodes or
//! zones) that replicas of one volume must not share:
//!
//! * the **largest volume**: the `r`-th largest "best disk" of a domain;
//! * the **total**: the largest `T` with `Σ min(cᵢ, T) ≥ r·T`, in closed form
//!   `T = min over k = 0..r−1 of ⌊(c₍ₖ₊₁₎ + … + c₍ₙ₎) / (r − k)⌋` (capacities sorted from the
//!   largest, `c₍₁₎ ≥ c₍₂₎ ≥ …`): the `k` largest domains are capped at `T`, the rest give all
//!   they have. See the module docs of [`super`] for the proof.
//!
//! Both can be asked again with one domain's value lowered (a node lost), in O(r) time, so that
//! trying every node of a 2000-node cluster costs no re-sorting.

/// Values sorted from the largest, with prefix sums.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sorted {
    desc: Vec<u128>,
    /// `prefix[k]` = the sum of the `k` largest values.
    prefix: Vec<u128>,
}

fn clamp(v: u128) -> u64 {
    u64::try_from(v).unwrap_or(u64::MAX)
}

impl Sorted {
    pub fn new(mut values: Vec<u128>) -> Sorted {
        values.sort_unstable_by(|a, b| b.cmp(a));
        let mut prefix = Vec::with_capacity(values.len() + 1);
        let mut sum = 0u128;
        prefix.push(0);
        for v in &values {
            sum = sum.saturating_add(*v);
            prefix.push(sum);
        }
        Sorted { desc: values, prefix }
    }

    pub fn len(&self) -> usize {
        self.desc.len()
    }

    pub fn sum(&self) -> u128 {
        self.prefix.last().copied().unwrap_or(0)
    }

    /// The value at 0-based position `i` of the descending order (0 past the end).
    fn at(&self, i: usize) -> u128 {
        self.desc.get(i).copied().unwrap_or(0)
    }

    /// The sum of the `k` largest values (all of them when `k` ≥ len).
    fn top(&self, k: usize) -> u128 {
        self.prefix.get(k).copied().unwrap_or_else(|| self.sum())
    }

    /// The position of `value` in the descending order (any one of equal values).
    pub fn position(&self, value: u128) -> Option<usize> {
        self.desc.binary_search_by(|v| value.cmp(v)).ok()
    }

    /// The largest `T` with `Σ min(cᵢ, T) ≥ r·T`; 0 when `r` is 0 or exceeds the domains.
    pub fn total(&self, r: usize) -> u64 {
        self.total_lowering(None, r)
    }

    /// [`Sorted::total`] with the value at position `j` replaced by `x` (≤ the old value).
    pub fn total_lowering(&self, change: Option<(usize, u128)>, r: usize) -> u64 {
        if r == 0 || r > self.len() {
            return 0;
        }
        // After the change, the k largest are unchanged while j is not among them; otherwise
        // they are the old ones without d_j, plus the better of x and d_k.
        let lowered = change.map(|(j, x)| {
            let old = self.at(j);
            (j, old, x.min(old))
        });
        let sum = match lowered {
            Some((_, old, x)) => self.sum() - old + x,
            None => self.sum(),
        };
        let mut best = u128::MAX;
        for k in 0..r {
            let top = match lowered {
                Some((j, old, x)) if k > j => self.top(k) - old + x.max(self.at(k)),
                _ => self.top(k),
            };
            best = best.min((sum - top) / (r - k) as u128);
        }
        clamp(best)
    }

    /// The `r`-th largest value; 0 when `r` is 0 or exceeds the domains.
    pub fn largest(&self, r: usize) -> u64 {
        self.largest_lowering(None, r)
    }

    /// [`Sorted::largest`] with the value at position `j` replaced by `y` (≤ the old value).
    pub fn largest_lowering(&self, change: Option<(usize, u128)>, r: usize) -> u64 {
        if r == 0 || r > self.len() {
            return 0;
        }
        let Some((j, y)) = change else { return clamp(self.at(r - 1)) };
        if j >= r {
            return clamp(self.at(r - 1));
        }
        // The r largest after the change: the old r largest without d_j, and the better of y
        // and d_r; the r-th largest is the smallest of those.
        let others = if r == 1 {
            u128::MAX
        } else if j == r - 1 {
            self.at(r - 2)
        } else {
            self.at(r - 1)
        };
        clamp(others.min(y.min(self.at(j)).max(self.at(r))))
    }
}

/// The largest `V` with `Σ ⌊cᵢ / V⌋ ≥ r`: the largest volume whose `r` replicas may share
/// disks (disk anti-affinity soft), by bisection over whole bytes.
pub(crate) fn largest_shared(rooms: &[u64], r: usize) -> u64 {
    if r == 0 {
        return 0;
    }
    let fits = |v: u64| {
        let mut n = 0u128;
        for c in rooms {
            n += u128::from(c / v);
            if n >= r as u128 {
                return true;
            }
        }
        false
    };
    let (mut lo, mut hi) = (0u64, rooms.iter().copied().max().unwrap_or(0));
    // Invariant: lo fits (0 always does), hi + 1 does not.
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) { lo = mid } else { hi = mid - 1 }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, checked at every candidate value: slow, obviously right.
    fn brute_total(caps: &[u128], r: usize) -> u64 {
        if r == 0 {
            return 0;
        }
        let feasible = |t: u128| caps.iter().map(|c| (*c).min(t)).sum::<u128>() >= r as u128 * t;
        let (mut lo, mut hi) = (0u128, caps.iter().sum::<u128>());
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if feasible(mid) { lo = mid } else { hi = mid - 1 }
        }
        clamp(lo)
    }

    fn brute_largest(values: &[u128], r: usize) -> u64 {
        let mut v = values.to_vec();
        v.sort_unstable_by(|a, b| b.cmp(a));
        if r == 0 || r > v.len() { 0 } else { clamp(v[r - 1]) }
    }

    /// A small deterministic generator (xorshift), so the cases are the same on every run.
    fn numbers(seed: u64, n: usize, max: u64) -> Vec<u128> {
        let mut s = seed | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                u128::from(s % (max + 1))
            })
            .collect()
    }

    #[test]
    fn closed_form_matches_the_definition() {
        for seed in 1..400u64 {
            let n = (seed % 9) as usize;
            let caps = numbers(seed, n, if seed % 3 == 0 { 7 } else { 1_000_003 });
            let sorted = Sorted::new(caps.clone());
            for r in 0..=n + 1 {
                assert_eq!(sorted.total(r), brute_total(&caps, r), "caps {caps:?}, r {r}");
                assert_eq!(sorted.largest(r), brute_largest(&caps, r), "caps {caps:?}, r {r}");
                // Lower each value in turn, to 0 and to half of it.
                for (j, old) in sorted.desc.iter().enumerate() {
                    for x in [0, old / 2, *old] {
                        let mut changed = sorted.desc.clone();
                        changed[j] = x;
                        let got = sorted.total_lowering(Some((j, x)), r);
                        assert_eq!(got, brute_total(&changed, r), "{changed:?} r {r}");
                        let got = sorted.largest_lowering(Some((j, x)), r);
                        assert_eq!(got, brute_largest(&changed, r), "{changed:?} r {r}");
                    }
                }
            }
        }
    }

    #[test]
    fn one_big_domain_does_not_count_beyond_t() {
        // Capacities 1000, 200, 200, 100 and 2 replicas.
        //   k = 0: (1000 + 200 + 200 + 100) / 2 = 750   ← the naive "sum / replicas"
        //   k = 1: (200 + 200 + 100) / 1       = 500   ← the big node can only pair with others
        // T = 500: Σ min(c, 500) = 500 + 200 + 200 + 100 = 1000 = 2 · 500.
        let s = Sorted::new(vec![1000, 200, 200, 100]);
        assert_eq!(s.total(2), 500);
        assert_eq!(s.largest(2), 200);
    }

    #[test]
    fn shared_disks_bisection() {
        // One 300-byte disk, one 100-byte disk, 3 replicas that may share disks:
        // V = 100: ⌊300/100⌋ + ⌊100/100⌋ = 4 ≥ 3; V = 101: 2 + 0 = 2 < 3 → 100.
        assert_eq!(largest_shared(&[300, 100], 3), 100);
        assert_eq!(largest_shared(&[300, 100], 2), 150);
        assert_eq!(largest_shared(&[300, 100], 0), 0);
        assert_eq!(largest_shared(&[], 1), 0);
        assert_eq!(largest_shared(&[u64::MAX], 1), u64::MAX);
    }
}
