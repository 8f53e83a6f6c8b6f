  // ---- shared transformed parameters of the joint programs ----
  // L0, the Cholesky factor of Sigma0 / g in the basis A0, from its standard deviations and the
  // Cholesky factor of its correlation (joint_prior.stan)
  matrix[d, d] population_factor = diag_pre_multiply(population_sd, population_corr);
