  // ---- shared hyper-prior of the hierarchical programs: delta0 and nu ----
  // delta0, sigma0, nu_alpha and nu_beta have uniform priors: their declared bounds.
  // delta0 is a transformed parameter: the uniform density of delta0 needs the Jacobian
  // |d delta0 / d delta0_raw| = 2 D s p (1 - p), p = logit^-1(delta0_logit); 2 D s is a constant, left out.
  {
    real delta0_logit = delta0_logit_centre + delta0_logit_scale * delta0_raw;
    target += log_inv_logit(delta0_logit) + log1m_inv_logit(delta0_logit);
  }
  // nu - 1 ~ Gamma(shape, rate) is sampled as a standardised log (standardised_log_gamma_lp):
  // with the plain log, (alpha, nu) form a funnel that stalls the sampler.  The Gaussian
  // population is nu = infinity.
  real nu = positive_infinity();
  if (student) {
    real shape = nu_prior == 0 ? nu_alpha[1] : nu_shape;
    real rate = nu_prior == 0 ? nu_beta[1] : nu_rate;
    nu = 1 + exp(standardised_log_gamma_lp(nu_raw, shape, rate)[1]);
  }
