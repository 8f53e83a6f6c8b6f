  // ---- shared functions of the hierarchical programs ----
  // Standardised logarithm of a Gamma variable.  For g ~ Gamma(shape, rate),
  //   m = E[log g] = digamma(shape) - log(rate),   s = sd[log g] = sqrt(trigamma(shape)),
  // and the sampler works with z = (log g - m) / s, whose prior is close to N(0, 1) whatever the
  // shape and rate.  Exact change of variables: log p(z) = log Gamma(g | shape, rate) + log g + log s.
  // Given z, this returns log g and adds log p(z) to the target (hence the _lp suffix).
  vector standardised_log_gamma_lp(vector z, real shape, real rate) {
    real log_sd = 0.5 * log(trigamma(shape));
    vector[rows(z)] log_g = digamma(shape) - log(rate) + exp(log_sd) * z;
    target += rows(z) * (shape * log(rate) - lgamma(shape) + log_sd)
              + shape * sum(log_g) - rate * sum(exp(log_g));
    return log_g;
  }
