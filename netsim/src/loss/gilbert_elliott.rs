//! The two-state Markov channel behind [`super::ErrorModelConfig::GilbertElliott`].

use rand::Rng;

use crate::seed::SimRng;

/// Which state a Gilbert-Elliott channel is in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GilbertElliottState {
    /// Few or no losses.
    #[default]
    Good,
    /// Bursty losses.
    Bad,
}

impl GilbertElliottState {
    /// The loss probability for the current datagram, then one state transition.
    ///
    /// The loss probability belongs to the state the datagram meets; the transition draw is
    /// taken from the same RNG as the loss draw that follows, so one layer is one stream.
    pub(crate) fn loss_then_step(
        &mut self,
        rng: &mut SimRng,
        p: f64,
        r: f64,
        loss_good: f64,
        loss_bad: f64,
    ) -> f64 {
        let (loss, switch) = match self {
            Self::Good => (loss_good, p),
            Self::Bad => (loss_bad, r),
        };
        if rng.r#gen::<f64>() < switch {
            *self = match self {
                Self::Good => Self::Bad,
                Self::Bad => Self::Good,
            };
        }
        loss
    }
}
