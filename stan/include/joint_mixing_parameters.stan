  // ---- shared parameters of the joint programs: the Student-t population's mixing ----
  array[nu_prior == 0] real<lower=alpha_lower, upper=alpha_upper> nu_alpha;
  array[nu_prior == 0] real<lower=beta_lower, upper=beta_upper> nu_beta;
  vector[student] nu_raw;                          // standardised log(nu - 1)
  vector[student ? q : 0] tau_raw;                 // standardised log tau_i, the mixing precisions
