  // ---- shared prior of the joint programs: theta0, Sigma0, nu and the tau_i ----
  // theta0 is flat, and so is theta0_raw (a linear map, constant Jacobian): in the basis A0 its
  // posterior is close to uncorrelated even when two models are nearly identical and the
  // coordinates of theta0 are strongly correlated.  Sigma0 has p(M) ~ |M|^(-1/2)
  // (joint_functions.stan); nu_alpha and nu_beta are uniform (their bounds).  The prior of the
  // noise parameters is each program's own.
  // With calibration_prior = 1, theta0 and Sigma0 get proper priors instead
  // (joint_population_calibration.stan).
  // The multivariate Student-t population is the scale mixture
  // theta_i | tau_i ~ N(theta0, Sigma0 / tau_i), tau_i ~ Gamma(nu/2, nu/2), with nu - 1 and tau_i
  // sampled as standardised logs exactly as in hierarchical_prior.stan.
  // Sampled scale of the population.  Scaling Sigma0 by c and every tau_i by c leaves the
  // likelihood unchanged: only the Gamma prior of the tau_i holds this direction, which is a
  // long ridge through Sigma0's factor and all q coordinates of tau (about 1.5 times the
  // leapfrog steps on the real data).  So population_factor is the factor L0 of Sigma0 / g,
  // g = exp(mean_i log tau_i) the geometric mean of the mixing precisions:
  //   Sigma0 = g A0 L0 L0' A0',   Sigma0 / tau_i = (A0 L0 L0' A0') * (g / tau_i),
  // and the likelihood depends on the tau_i only through their ratios to g.  The density of L0
  // is that of sqrt(g) L0 (invariant_cholesky_log_prior adds d(d - 1)/4 log g) times the Jacobian
  // of L -> L0 at fixed tau, g^(d(d + 1)/4): (d^2 / 2) log g in all.  With a normal population
  // (no tau) g = 1.
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
  target += invariant_cholesky_log_prior(population_factor) + 0.5 * d * d * log_g;
