//! Spreading a budget of simulated games over candidate moves.
//!
//! Sequential halving (Karnin, Koren and Somekh, 2013): every candidate
//! gets an equal share of the first round's simulations, the better half
//! goes on to the next round, and so on until one is left. For a fixed
//! budget it finds the best arm with far fewer simulations than giving
//! each the same number, and unlike UCB it needs no exploration constant;
//! it is the root search of Gumbel MuZero for the same reasons.

use super::Work;

/// What the search found for one candidate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arm {
    pub index: usize,
    pub total: f64,
    pub runs: u32,
}

impl Arm {
    pub fn mean(&self) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            self.total / self.runs as f64
        }
    }
}

/// The outcome: the best candidate, its statistics, and how many
/// simulations were played in all.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Found {
    pub best: Arm,
    pub simulations: u64,
}

/// Runs sequential halving over `k` candidates with about `budget`
/// simulations; `simulate(i)` plays one simulated game after candidate `i`
/// and returns its value (higher is better), or `None` when it was cut
/// short because `work` ran out in it. With one candidate nothing is
/// simulated. Ties keep the lower index, so the result depends only on the
/// values `simulate` returns.
///
/// Before each simulation it asks `work` whether the search must stop (its
/// units spent, which `simulate` charges, or the think interrupted); it
/// then returns the best mean among the candidates still in the running
/// that were simulated at least once (the first of them when none was).
pub fn halving(
    k: usize,
    budget: u64,
    work: &Work,
    mut simulate: impl FnMut(usize) -> Option<f64>,
) -> Found {
    assert!(k > 0, "a search among nothing");
    let mut arms: Vec<Arm> = (0..k)
        .map(|index| Arm {
            index,
            total: 0.0,
            runs: 0,
        })
        .collect();
    if k == 1 {
        return Found {
            best: arms[0],
            simulations: 0,
        };
    }
    let rounds = (usize::BITS - (k - 1).leading_zeros()) as u64; // ceil(log2 k)
    let mut simulations = 0;
    let mut alive: Vec<usize> = (0..k).collect();
    'rounds: while alive.len() > 1 {
        let each = (budget / (rounds * alive.len() as u64)).max(1);
        for &i in &alive {
            for _ in 0..each {
                if work.done() {
                    break 'rounds;
                }
                let Some(value) = simulate(i) else {
                    break 'rounds;
                };
                arms[i].total += value;
                arms[i].runs += 1;
                simulations += 1;
            }
        }
        alive.sort_by(|&a, &b| arms[b].mean().total_cmp(&arms[a].mean()).then(a.cmp(&b)));
        alive.truncate(alive.len().div_ceil(2));
    }
    let best = alive
        .iter()
        .copied()
        .filter(|&i| arms[i].runs > 0)
        .min_by(|&a, &b| arms[b].mean().total_cmp(&arms[a].mean()).then(a.cmp(&b)))
        .unwrap_or(alive[0]);
    Found {
        best: arms[best],
        simulations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::BotRng;

    #[test]
    fn finds_the_best_of_noisy_arms() {
        // Arm i wins with probability i/20: arm 19 is best by 5 points.
        let mut rng = BotRng::seeded(3);
        let found = halving(20, 20_000, &Work::new(u64::MAX), |i| {
            Some(if rng.unit() < i as f64 / 20.0 {
                1.0
            } else {
                0.0
            })
        });
        assert!(found.best.index >= 18, "{found:?}");
        assert!(found.simulations <= 20_000 + 20, "{found:?}");
    }

    #[test]
    fn one_candidate_needs_no_simulation_and_ties_keep_the_first() {
        let unbounded = Work::new(u64::MAX);
        let found = halving(1, 1000, &unbounded, |_| panic!("nothing to compare"));
        assert_eq!((found.best.index, found.simulations), (0, 0));
        let found = halving(5, 100, &unbounded, |_| Some(0.5));
        assert_eq!(found.best.index, 0);
    }

    #[test]
    fn spent_work_stops_the_search_with_the_best_simulated_so_far() {
        // One simulation per arm in the first round, each costing 10 units
        // of 95: the eleventh finds the meter spent. Arm i is worth i, so
        // the best of the ten simulated (0 to 9) is 9.
        let work = Work::new(95);
        let found = halving(20, 20, &work, |i| {
            work.charge(10);
            Some(i as f64)
        });
        assert_eq!(found.simulations, 10);
        assert_eq!(found.best.index, 9);
        assert_eq!(found.best.runs, 1);
        // With nothing left from the start, nothing is simulated and the
        // first candidate is returned.
        let found = halving(20, 20, &Work::new(0), |_| panic!("no work is left"));
        assert_eq!((found.best.index, found.simulations), (0, 0));
        // A simulation cut short is not counted.
        let found = halving(20, 20, &Work::new(u64::MAX), |i| {
            (i < 3).then_some(i as f64)
        });
        assert_eq!((found.best.index, found.simulations), (2, 3));
    }
}
