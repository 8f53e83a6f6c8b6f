  // ---- shared parameters block of the hierarchical programs ----
  real<lower=-delta0_bound, upper=delta0_bound> delta0;   // mean of the population of differences
  real<lower=0, upper=sigma0_upper> sigma0;               // scale of the population of differences
  vector<lower=0, upper=sigma_upper>[q] sigma;            // per-data-set noise
  vector[q] delta_raw;                                    // z_i (non-centred) or delta_i (centred)
  array[nu_prior == 0] real<lower=alpha_lower, upper=alpha_upper> nu_alpha;
  array[nu_prior == 0] real<lower=beta_lower, upper=beta_upper> nu_beta;
  array[nu_prior != 2] real<lower=0> nu_minus_one;        // nu = 1 + nu_minus_one
