  // ---- shared parameters of the joint programs: the population's location and scale ----
  // The true contrasts theta_i are integrated out (see joint_prior.stan).
  // theta0 = mean_i ybar_i + A0 theta0_raw; A0 spans the spread of the ybar_i, so theta0_raw is
  // known to about 1/sqrt(q): the sampler's coordinate is theta0_raw * sqrt(q) (multiplier)
  vector<multiplier=theta0_scale>[d] theta0_raw;
  // L0 = diag(population_sd) population_corr: Sigma0 = g A0 L0 L0' A0' (joint_prior.stan)
  vector<lower=0>[d] population_sd;
  cholesky_factor_corr[d] population_corr;
