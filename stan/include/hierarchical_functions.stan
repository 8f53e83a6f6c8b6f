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
  // Location and scale of the sampler's coordinate of delta0 (Stan's offset and multiplier):
  // the mean of the data sets' means and its standard error sd(xbar) / sqrt(q) (1 when q = 1 or
  // the means are all equal).  Only the sampler's coordinate changes, not the model: under the
  // bounds' logit transform a delta0 whose posterior sd is a small fraction of the bound would
  // have a coordinate of sd ~0.02, which forces step sizes ~0.007 while the metric is still the
  // identity (the first 100 warm-up iterations took half of all leapfrog steps).
  vector delta0_location_scale(vector xbar) {
    int q = rows(xbar);
    real spread = q > 1 ? sd(xbar) : 0;
    return [mean(xbar), spread > 0 ? spread / sqrt(q) : 1]';
  }
