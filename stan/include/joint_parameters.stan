  // ---- shared parameters block of the joint programs ----
  // The true contrasts theta_i are integrated out (see joint_prior.stan).
  vector[d] theta0_raw;                            // theta0 = mean_i ybar_i + A0 theta0_raw
  cholesky_factor_cov[d] population_factor;        // L0: Sigma0 = g A0 L0 L0' A0'
  array[q] cholesky_factor_cov[d] noise_factor;    // L_i: Omega_i = A_i L_i L_i' A_i'
  array[nu_prior == 0] real<lower=alpha_lower, upper=alpha_upper> nu_alpha;
  array[nu_prior == 0] real<lower=beta_lower, upper=beta_upper> nu_beta;
  vector[student] nu_raw;                          // standardised log(nu - 1)
  vector[student ? q : 0] tau_raw;                 // standardised log tau_i, the mixing precisions
