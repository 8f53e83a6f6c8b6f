  // ---- shared parameters of the joint programs: the population's location and scale ----
  // The true contrasts theta_i are integrated out (see joint_prior.stan).
  vector[d] theta0_raw;                            // theta0 = mean_i ybar_i + A0 theta0_raw
  // L0 = diag(population_sd) population_corr: Sigma0 = g A0 L0 L0' A0' (joint_prior.stan)
  vector<lower=0>[d] population_sd;
  cholesky_factor_corr[d] population_corr;
