//! Work on many independent items (cluster files, output folders) spread over the machine's
//! cores, with results in the order of the items, so the output does not depend on how many
//! threads ran or which finished first.

/// `f` of every item, on as many threads as the machine has cores (at most one per item); the
/// results in the order of the items, whatever the number of threads.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let threads = threads.min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = vec![];
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        // A worker panics only on a bug; its panic is the command's.
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// [`map`] of items taken by value.
pub fn map_into<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    use std::sync::{Mutex, PoisonError};
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    // Each slot is visited once, so each item is there to take.
    map(&slots, |slot| slot.lock().unwrap_or_else(PoisonError::into_inner).take().map(&f))
        .into_iter()
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_order_of_the_items() {
        let items: Vec<usize> = (0..1000).collect();
        // Uneven work, so the threads finish out of order.
        let squares = super::map(&items, |i| {
            if i % 7 == 0 {
                std::thread::yield_now();
            }
            i * i
        });
        assert_eq!(squares, items.iter().map(|i| i * i).collect::<Vec<_>>());
        assert!(super::map(&[] as &[u8], |_| 0).is_empty());
        let owned: Vec<String> = items.iter().map(|i| i.to_string()).collect();
        let lengths = super::map_into(owned.clone(), |s| s.len());
        assert_eq!(lengths, owned.iter().map(String::len).collect::<Vec<_>>());
    }
}
