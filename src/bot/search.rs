//! Spreading a budget of simulated games over candidate moves.
//!
//! Sequential halving (Karnin, Koren and Somekh, 2013): every candidate
//! gets an equal share of the first round's simulations, the better half
//! goes on to the next round, and so on until one is left. For a fixed
//! budget it finds the best arm with far fewer simulations than giving
//! each the same number, and unlike UCB it needs no exploration constant;
//! it is the root search of Gumbel MuZero for the same reasons.

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
/// and returns its value (higher is better). With one candidate nothing is
/// simulated. Ties keep the lower index, so the result depends only on the
/// values `simulate` returns.
pub fn halving(k: usize, budget: u64, mut simulate: impl FnMut(usize) -> f64) -> Found {
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
    while alive.len() > 1 {
        let each = (budget / (rounds * alive.len() as u64)).max(1);
        for &i in &alive {
            for _ in 0..each {
                arms[i].total += simulate(i);
                arms[i].runs += 1;
                simulations += 1;
            }
        }
        alive.sort_by(|&a, &b| arms[b].mean().total_cmp(&arms[a].mean()).then(a.cmp(&b)));
        alive.truncate(alive.len().div_ceil(2));
    }
    Found {
        best: arms[alive[0]],
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
        let found = halving(20, 20_000, |i| {
            if rng.unit() < i as f64 / 20.0 {
                1.0
            } else {
                0.0
            }
        });
        assert!(found.best.index >= 18, "{found:?}");
        assert!(found.simulations <= 20_000 + 20, "{found:?}");
    }

    #[test]
    fn one_candidate_needs_no_simulation_and_ties_keep_the_first() {
        let found = halving(1, 1000, |_| panic!("nothing to compare"));
        assert_eq!((found.best.index, found.simulations), (0, 0));
        let found = halving(5, 100, |_| 0.5);
        assert_eq!(found.best.index, 0);
    }
}
