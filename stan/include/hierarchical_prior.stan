  // ---- shared prior of the hierarchical programs; defines delta, the true differences ----
  // delta0, sigma0, sigma, nu_alpha and nu_beta have uniform priors: their declared bounds.
  // delta and nu are local variables rather than transformed parameters so that they are not
  // written out with every draw; the Python layer recomputes them from delta_raw and nu_minus_one.
  vector[q] delta = is_noncentered .* (delta0 + sigma0 * delta_raw) + is_centered .* delta_raw;
  if (nu_prior == 0) {
    nu_minus_one[1] ~ gamma(nu_alpha[1], nu_beta[1]);
  } else if (nu_prior == 1) {
    nu_minus_one[1] ~ gamma(nu_shape, nu_rate);
  }
  {
    vector[q] location = is_centered * delta0;
    vector[q] scale = is_noncentered + is_centered * sigma0;
    if (nu_prior == 2) {
      delta_raw ~ normal(location, scale);
    } else {
      delta_raw ~ student_t(1 + nu_minus_one[1], location, scale);
    }
  }
