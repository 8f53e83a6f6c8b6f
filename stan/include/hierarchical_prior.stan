  // ---- shared prior of the hierarchical programs ----
  // delta0, sigma0, sigma, nu_alpha and nu_beta have uniform priors: their declared bounds.
  // delta0 is a transformed parameter: the uniform density of delta0 needs the Jacobian
  // |d delta0 / d delta0_raw| = 2 D s p (1 - p), p = logit^-1(u); 2 D s is a constant, left out.
  {
    real u = delta0_logit_centre + delta0_logit_scale * delta0_raw;
    target += log_inv_logit(u) + log1m_inv_logit(u);
  }
  // The Student-t population is written as a scale mixture of normals,
  //   delta_i | tau_i ~ N(delta0, sigma0^2 / tau_i),   tau_i ~ Gamma(nu / 2, nu / 2),
  // which is exactly delta_i ~ Student-t(nu, delta0, sigma0).  Given tau_i everything about
  // delta_i is normal, so the likelihood integrates it out in closed form; population_variance
  // holds Var(delta_i | delta0, sigma0, tau_i).  The Python layer draws delta_i afterwards from
  // its normal full conditional (Rao-Blackwell: exact posterior draws given the chain's state).
  // nu - 1 and tau_i are sampled as standardised logs (standardised_log_gamma_lp): with plain
  // logs, (alpha, nu) and (nu, tau) form funnels that stall the sampler.
  vector[q] population_variance = rep_vector(square(sigma0), q);
  if (student) {
    real shape = nu_prior == 0 ? nu_alpha[1] : nu_shape;
    real rate = nu_prior == 0 ? nu_beta[1] : nu_rate;
    real nu = 1 + exp(standardised_log_gamma_lp(nu_raw, shape, rate)[1]);
    population_variance = square(sigma0) * exp(-standardised_log_gamma_lp(tau_raw, nu / 2, nu / 2));
  }
