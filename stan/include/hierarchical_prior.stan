  // ---- shared prior of the hierarchical programs that sample sigma_i and tau_i ----
#include hierarchical_hyperprior.stan
  // The Student-t population is written as a scale mixture of normals,
  //   delta_i | tau_i ~ N(delta0, sigma0^2 / tau_i),   tau_i ~ Gamma(nu / 2, nu / 2),
  // which is exactly delta_i ~ Student-t(nu, delta0, sigma0).  Given tau_i everything about
  // delta_i is normal, so the likelihood integrates it out in closed form; population_variance
  // holds Var(delta_i | delta0, sigma0, tau_i).  The Python layer draws delta_i afterwards from
  // its normal full conditional (Rao-Blackwell: exact posterior draws given the chain's state).
  // tau_i is sampled as a standardised log (standardised_log_gamma_lp): with plain logs,
  // (nu, tau) form a funnel.  sigma_i has its uniform prior through its declared bounds.
  vector[q] population_variance = rep_vector(square(sigma0), q);
  if (student) {
    population_variance = square(sigma0) * exp(-standardised_log_gamma_lp(tau_raw, nu / 2, nu / 2));
  }
