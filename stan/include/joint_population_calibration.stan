  // ---- shared calibration prior of the joint programs: theta0 and Sigma0 ----
  if (calibration_prior) {
    // proper priors replacing the flat/invariant ones (joint_data.stan); theta0 is a linear map
    // of theta0_raw, so its normal density needs no Jacobian
    target += normal_lpdf(theta0 | 0, theta0_prior_sd);
    target += inverse_wishart_replacement(exp(log_g) * population_cov, population_prior_df,
                                          population_prior_scale);
  }
