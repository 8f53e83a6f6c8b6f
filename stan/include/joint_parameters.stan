  // ---- shared parameters of the joint programs: the population's location and scale ----
  // The true contrasts theta_i are integrated out (see joint_prior.stan).
  vector[d] theta0_raw;                            // theta0 = mean_i ybar_i + A0 theta0_raw
  cholesky_factor_cov[d] population_factor;        // L0: Sigma0 = g A0 L0 L0' A0'
