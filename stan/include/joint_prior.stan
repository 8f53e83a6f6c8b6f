  // ---- shared prior of the joint programs: theta0, Sigma0, nu and the tau_i ----
  // theta0 is flat, and so is theta0_raw (a linear map, constant Jacobian): in the basis A0 its
  // posterior is close to uncorrelated even when two models are nearly identical and the
  // coordinates of theta0 are strongly correlated.  Sigma0's prior is below; nu_alpha and nu_beta
  // are uniform (their bounds).  The prior of the
  // noise parameters is each program's own.
  // With calibration_prior = 1, theta0 and Sigma0 get proper priors instead
  // (joint_population_calibration.stan).
  // The multivariate Student-t population is the scale mixture
  // theta_i | tau_i ~ N(theta0, Sigma0 / tau_i), tau_i ~ Gamma(nu/2, nu/2), with nu - 1 and tau_i
  // sampled as standardised logs exactly as in hierarchical_prior.stan.
  // Sigma0.  Its prior, in the data-based basis A0 (joint_data.stan), is proper and scale-free
  // (A0 carries the units: the spread of the data sets' mean contrasts):
  //   Sigma0 = A0 F F' A0',   F = diag(s) L_R,
  //   L_R L_R' ~ LKJ(population_corr_shape),   s_j ~ half-normal(0, population_sd_scale)
  // so the posterior is proper for any number of data sets and a model run on few data sets is
  // shrunk toward the others.  Sampled scale of the population: scaling Sigma0 by c and every
  // tau_i by c leaves the likelihood unchanged; only the priors hold this direction, a long ridge
  // through Sigma0 and all q coordinates of tau.  So the program samples the factor L0 of
  // Sigma0 / g, g = exp(mean_i log tau_i) the geometric mean of the mixing precisions:
  //   Sigma0 = g A0 L0 L0' A0',   L0 = diag(population_sd) L_R,   s = sqrt(g) population_sd,
  //   Sigma0 / tau_i = (A0 L0 L0' A0') * (g / tau_i),
  // and the likelihood depends on the tau_i only through their ratios to g.  The prior density
  // of s is evaluated at sqrt(g) population_sd, times the Jacobian g^(d/2) of that map at fixed
  // tau.  The sampler's coordinates are the scales (on the log scale) and L_R: shrinking a row of
  // L0 is then one coordinate, where with L0's own entries the log diagonal and the off-diagonal
  // entries had to move together (a funnel that made few-fold fits diverge).  With a normal
  // population (no tau) g = 1.
  vector[d] theta0 = ybar_mean + population_basis * theta0_raw;
  matrix[d, d] population_cov = multiply_lower_tri_self_transpose(
                                  population_basis * population_factor);   // Sigma0 / g
  vector[q] inverse_tau = rep_vector(1, q);                                  // g / tau_i
  real log_g = 0;
  if (student) {
    real shape = nu_prior == 0 ? nu_alpha[1] : nu_shape;
    real rate = nu_prior == 0 ? nu_beta[1] : nu_rate;
    real nu = 1 + exp(standardised_log_gamma_lp(nu_raw, shape, rate)[1]);
    vector[q] log_tau = standardised_log_gamma_lp(tau_raw, nu / 2, nu / 2);
    log_g = mean(log_tau);
    inverse_tau = exp(log_g - log_tau);
  }
  if (calibration_prior) {
    // density of (population_sd, L_R) that makes Sigma0 itself |Sigma0|^(-1/2), to be replaced
    // by its inverse Wishart density (joint_population_calibration.stan): |M|^(-1/2) on the
    // factor sqrt(g) L0 of Sigma0 (g^(d(d-1)/4) of the density and g^(d(d+1)/4) of the Jacobian
    // of L0 -> sqrt(g) L0 at fixed tau) times the Jacobian of (population_sd, L_R) -> L0
    target += invariant_cholesky_log_prior(population_factor) + 0.5 * d * d * log_g
              + scale_correlation_log_jacobian(population_sd, population_corr);
  } else {
    // exact densities (d log 2 for the half-normals), so that the log density can be checked;
    // s = sqrt(g) population_sd and the Jacobian (d / 2) log g
    target += lkj_corr_cholesky_lpdf(population_corr | population_corr_shape)
              + normal_lpdf(exp(0.5 * log_g) * population_sd | 0, population_sd_scale)
              + d * log(2) + 0.5 * d * log_g;
  }
