  // ---- shared transformed parameters of the hierarchical programs ----
  // delta0 from its sampler's coordinate (hierarchical_transformed_data.stan): Stan's own logit
  // transform of the bounds, with its coordinate centred and scaled by the data.  With the plain
  // bounded declaration the coordinate's posterior sd is about 0.02 on the real data, which
  // forces step sizes near 0.007 while the metric is still the identity (benchmarks/RESULTS.md).
  real delta0 = delta0_bound * (2 * inv_logit(delta0_logit_centre
                                              + delta0_logit_scale * delta0_raw) - 1);
