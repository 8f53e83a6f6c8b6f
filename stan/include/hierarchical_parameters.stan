  // ---- shared parameters block of the hierarchical programs ----
  // The true differences delta_i are integrated out (see hierarchical_prior.stan): the sampler
  // never sees them, so there is no funnel between delta_i and sigma0 to parametrise around.
  // delta0, the mean of the population of differences, is uniform on (-delta0_bound, delta0_bound)
  // and sampled through the standardised logit delta0_raw (hierarchical_transformed_parameters.stan)
  real delta0_raw;
  real<lower=0, upper=sigma0_upper> sigma0;               // scale of the population of differences
  vector<lower=0, upper=sigma_upper>[q] sigma;            // per-data-set noise
  array[nu_prior == 0] real<lower=alpha_lower, upper=alpha_upper> nu_alpha;
  array[nu_prior == 0] real<lower=beta_lower, upper=beta_upper> nu_beta;
  vector[student] nu_raw;                 // standardised log(nu - 1)
  vector[student ? q : 0] tau_raw;        // standardised log tau_i, the mixing precisions
