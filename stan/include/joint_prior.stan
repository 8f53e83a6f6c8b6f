  // ---- shared prior of the joint programs ----
  // theta0 is flat, and so is theta0_raw (a linear map, constant Jacobian): in the basis A0 its
  // posterior is close to uncorrelated even when two models are nearly identical and the
  // coordinates of theta0 are strongly correlated.  Sigma0 and every Omega_i have
  // p(M) ~ |M|^(-1/2) (joint_functions.stan; for a data set with some model missing, on the
  // block of its observed contrasts: padded_cholesky_log_prior); nu_alpha and nu_beta are
  // uniform (their bounds).
  // With calibration_prior = 1, theta0, Sigma0 and the Omega_i get proper priors instead.
  // The multivariate Student-t population is the scale mixture
  // theta_i | tau_i ~ N(theta0, Sigma0 / tau_i), tau_i ~ Gamma(nu/2, nu/2), with nu - 1 and tau_i
  // sampled as standardised logs exactly as in hierarchical_prior.stan.
  vector[d] theta0 = ybar_mean + population_basis * theta0_raw;
  matrix[d, d] population_cov = multiply_lower_tri_self_transpose(
                                  population_basis * population_factor);
  vector[q] inverse_tau = rep_vector(1, q);
  target += invariant_cholesky_log_prior(population_factor);
  for (i in complete_sets) {
    target += invariant_cholesky_log_prior(noise_factor[i]);
  }
  for (i in incomplete_sets) {
    target += padded_cholesky_log_prior(noise_factor[i], observed[i]);
  }
  if (calibration_prior) {
    // proper priors replacing the flat/invariant ones (joint_data.stan); theta0 is a linear map
    // of theta0_raw, so its normal density needs no Jacobian
    target += normal_lpdf(theta0 | 0, theta0_prior_sd);
    target += inverse_wishart_replacement(population_cov, population_prior_df,
                                          population_prior_scale);
    for (i in 1:q) {
      int m = observed[i];
      matrix[m, d] M = design[i][1:m];
      matrix[m, m] scale = quad_form_sym(noise_prior_scale, M');
      target += inverse_wishart_replacement(
                  multiply_lower_tri_self_transpose(noise_basis[i][1:m, 1:m]
                                                    * noise_factor[i][1:m, 1:m]),
                  noise_prior_df - d + m, scale);
    }
  }
  if (student) {
    real shape = nu_prior == 0 ? nu_alpha[1] : nu_shape;
    real rate = nu_prior == 0 ? nu_beta[1] : nu_rate;
    real nu = 1 + exp(standardised_log_gamma_lp(nu_raw, shape, rate)[1]);
    inverse_tau = exp(-standardised_log_gamma_lp(tau_raw, nu / 2, nu / 2));
  }
